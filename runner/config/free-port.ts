import { execFileSync } from 'node:child_process';

/**
 * A port free on the host now (SANDBOX_PORT=0: any free port), for a configuration resolved synchronously: the target's
 * URLs carry it before the embedded sandbox listens. Asked of the system by a listen on port 0 in a short child process;
 * should another process take it meanwhile, the sandbox's listen fails naming SANDBOX_PORT.
 */
export function freePort(host: string): number {
  const script = `const s = require('node:net').createServer().listen(0, ${JSON.stringify(host)}, () => { process.stdout.write(String(s.address().port)); s.close(); });`;
  const port = Number(execFileSync(process.execPath, ['-e', script], { env: {}, encoding: 'utf8', timeout: 30_000 }));
  if (!Number.isInteger(port) || port <= 0) throw new Error(`SANDBOX_PORT=0: no free port on ${host} was found`);
  return port;
}
