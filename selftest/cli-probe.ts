import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';

/**
 * `node --import tsx selftest/cli-probe.ts <option> <file>...`: starts each script named in this one process, as
 * `node --import tsx <file> <option>` would (its path in process.argv[1]), not a process per script (cli.spec.ts,
 * package.spec.ts); prints as JSON the exit code each asked for at its first exit, what it printed and threw.
 */
export interface ProbedScript {
  file: string;
  code: number | null;
  stdout: string;
  stderr: string;
  threw?: string;
}

class Exited extends Error {}
// A script whose work is an async function catches what it threw in a handler that exits again: that second exit
// throws too, outside the import, and is no failure of the probe.
process.on('unhandledRejection', (reason) => {
  if (!(reason instanceof Exited)) throw reason;
});

const [option = '', ...files] = process.argv.slice(2);
const { exit } = process;
const { log, error } = console;
const probed: ProbedScript[] = [];
for (const file of files) {
  const path = resolve(file);
  const stdout: string[] = [];
  const stderr: string[] = [];
  let code: number | undefined;
  let threw: string | undefined;
  process.argv = [process.execPath, path, option];
  // What it prints once it has exited (a catch around the exit, running on) a process would never have printed.
  console.log = (...args: unknown[]) => void (code === undefined && stdout.push(format(...args)));
  console.error = (...args: unknown[]) => void (code === undefined && stderr.push(format(...args)));
  process.exit = ((exitCode?: number) => {
    code ??= exitCode ?? 0;
    throw new Exited();
  }) as typeof process.exit;
  try {
    await import(pathToFileURL(path).href);
  } catch (thrown) {
    if (!(thrown instanceof Exited))
      threw = thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown);
  } finally {
    // The handlers a rejected async script runs next (its catch, which may print and exit) run under the stubs too.
    await new Promise((resolved) => setImmediate(resolved));
    console.log = log;
    console.error = error;
    process.exit = exit;
  }
  const asked = code ?? process.exitCode;
  probed.push({
    file,
    code: asked === undefined ? null : Number(asked),
    stdout: stdout.join('\n'),
    stderr: stderr.join('\n'),
    ...(threw ? { threw } : {}),
  });
  process.exitCode = undefined;
}
// Exit once the answer is written: a script's module may leave a handle open.
process.stdout.write(JSON.stringify(probed), () => exit(0));
