import { mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/**
 * Ports handed out, across processes: a file per port, made only if absent. A port is bound only later, and meanwhile
 * looks free to every other process's probe (seen: a child run's receiver found its port taken, EADDRINUSE for five
 * seconds, while the run was starting). A reservation lapses after RESERVED_MS; by then its owner listens on it, or
 * has let it go (the proof run binds its last receivers minutes after it chose their ports on a busy machine).
 */
const RESERVED_DIR = join(tmpdir(), `identity-proofing-conformance-ports-${process.getuid?.() ?? 'user'}`);
const RESERVED_MS = 600_000;

/** Whether this caller may take the port: reserved now, or reserved by nobody for RESERVED_MS. */
function reserve(port: number): boolean {
  const file = join(RESERVED_DIR, String(port));
  try {
    mkdirSync(RESERVED_DIR, { recursive: true });
    writeFileSync(file, '', { flag: 'wx' });
    return true;
  } catch (error) {
    // Nowhere to note it: the port as probed, as before reservations.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return true;
  }
  try {
    if (Date.now() - statSync(file).mtimeMs < RESERVED_MS) return false;
    const now = new Date();
    utimesSync(file, now, now);
    return true;
  } catch {
    return true;
  }
}

/**
 * `count` free ports to serve on, the first found from `from` upward, wrapping within their range; each reserved for
 * this caller, so that no other process of ours takes it before it is bound.
 */
export async function freePorts(count: number, from = randomIn(SERVED)): Promise<number[]> {
  const ports: number[] = [];
  const size = SERVED.high - SERVED.low;
  for (let i = 0; ports.length < count && i < size; i += 1) {
    const port = SERVED.low + ((from - SERVED.low + i) % size);
    if ((await isFree(port)) && reserve(port)) ports.push(port);
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
