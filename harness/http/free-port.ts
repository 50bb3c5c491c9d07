import { createServer } from 'node:net';

/**
 * Free loopback ports for a sandbox, a receiver or a client started next, taken below the ephemeral range that
 * listen(0) and outgoing connections draw from (32768 and up on Linux): a port is bound only later, and an ephemeral
 * one could meanwhile become the local port of a connection (seen: a client's webhook port taken so while ten
 * certifications ran at once on a loaded machine, EADDRINUSE).
 */
export async function freePorts(count: number, from = 20_000 + Math.floor(Math.random() * 8_000)): Promise<number[]> {
  const ports: number[] = [];
  for (let port = from; ports.length < count && port < 32_000; port += 1) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) ports.push(port);
  }
  if (ports.length < count) throw new Error(`Only ${ports.length} free ports from ${from}; ${count} needed`);
  return ports;
}

/** One free loopback port (see freePorts). */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0] as number;
}
