import { createServer } from 'node:net';

/**
 * Free loopback ports for a sandbox, a receiver or a client started next, taken below the ephemeral range that
 * listen(0) and outgoing connections draw from (32768 and up on Linux): a port is bound only later, and an ephemeral
 * one could meanwhile become the local port of a connection (seen: a client's webhook port taken so while ten
 * certifications ran at once on a loaded machine, EADDRINUSE). Ports to serve on and ports that must stay closed come
 * from ranges of their own, so that no server of a test running beside it ever listens on a port another test counts
 * on being closed (seen: a "dead host" answered "socket hang up" while another test's free-port probe held its port).
 */
const SERVED = { low: 20_000, high: 28_000 };
const CLOSED = { low: 28_000, high: 32_000 };

const randomIn = (range: { low: number; high: number }) =>
  range.low + Math.floor(Math.random() * (range.high - range.low));

function isFree(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `count` free ports to serve on, the first found from `from` upward, wrapping within their range. */
export async function freePorts(count: number, from = randomIn(SERVED)): Promise<number[]> {
  const ports: number[] = [];
  const size = SERVED.high - SERVED.low;
  for (let i = 0; ports.length < count && i < size; i += 1) {
    const port = SERVED.low + ((from - SERVED.low + i) % size);
    if (await isFree(port)) ports.push(port);
  }
  if (ports.length < count) throw new Error(`Only ${ports.length} free ports from ${from}; ${count} needed`);
  return ports;
}

/** One free loopback port to serve on (see freePorts). */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0] as number;
}

/** A loopback port nothing listens on, for a host or proxy that must refuse the connection. */
export async function closedPort(): Promise<number> {
  for (let tries = 0; tries < 100; tries += 1) {
    const port = randomIn(CLOSED);
    if (await isFree(port)) return port;
  }
  throw new Error(`No closed port found from ${CLOSED.low} to ${CLOSED.high}`);
}
