import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { commands } from '../scripts/command.ts';
import { configVariables } from '../schemas/variables.ts';
import type { ProbedScript } from './cli-probe.ts';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const playwrightCli = join(repoRoot, 'node_modules', '@playwright', 'test', 'cli.js');

export { closedPort, freePort } from '../runner/http/free-port.ts';

/** How the self-tests start a TypeScript file: node with tsx's loader, one process (the tsx binary starts two). */
export const TS_NODE: readonly [string, ...string[]] = [process.execPath, '--import', 'tsx'];

/**
 * The environment of a child conformance run: nothing of this process's configuration, run folders or Playwright
 * worker state leaks in, an empty .env file stands in for the developer's own, and its reports go to the work folder
 * (a run that stops before its tests writes them too), never over the checkout's reports/ and allure-results/.
 */
export function childEnv(workDir: string, overrides: Record<string, string>): Record<string, string> {
  const dropped = new Set([
    ...configVariables,
    ...'REPORTS_DIR TEST_RESULTS_DIR ALLURE_RESULTS_DIR ALLURE_HISTORY_PATH CERTIFICATION_DIR RUN_TAG CI'.split(' '),
    ...'SANDBOX_TOKEN_SECRET SANDBOX_EXTRA_API_KEYS SANDBOX_ISSUED_TOKENS_FILE FORCE_COLOR'.split(' '),
  ]);
  // eslint-disable-next-line no-restricted-properties -- the environment given to a child process
  const inherited = Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined && !dropped.has(entry[0]) && !/^(TEST_|PW_|PLAYWRIGHT_)/.test(entry[0]),
  );
  const envFile = join(workDir, 'empty.env');
  writeFileSync(envFile, '');
  return {
    ...Object.fromEntries(inherited),
    ENV_FILE: envFile,
    REPORTS_DIR: join(workDir, 'reports'),
    // A nightly run keeps its nights beside the Allure history: in the work folder, never the repository's.
    ALLURE_HISTORY_PATH: join(workDir, 'allure-history', 'history.jsonl'),
    CONFORMANCE_QUIET: '1',
    CONFORMANCE_WORKERS: '1',
    NO_COLOR: '1',
    ...overrides,
  };
}

export type CliRun = { code: number | null; stdout: string; stderr: string };

export function runCli(
  command: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 240_000,
  cwd = repoRoot,
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The commands of package.json that are ours (node --import tsx <file>), by their npm script's name. */
export const ourScripts = Object.entries(
  (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts,
).flatMap(([name, command]) => {
  // A subcommand of the product's command starts its script as the script's own npm script did.
  const subcommand = /^node bin\/identity-proofing-conformance\.js (\S+)$/.exec(command)?.[1];
  const script = subcommand ? commands[subcommand]?.script : undefined;
  const file = script ? `${script}.ts` : /^node --import tsx (\S+\.ts)$/.exec(command)?.[1];
  return file ? [{ name, file }] : [];
});

/** What each script did, in the order given, run with `option` in one process through tsx on `node` (cli-probe.ts). */
export async function probeScripts(
  option: string,
  files: readonly string[],
  env: Record<string, string>,
  node: string = process.execPath,
): Promise<ProbedScript[]> {
  const run = await runCli(node, [...TS_NODE.slice(1), 'selftest/cli-probe.ts', option, ...files], env, 120_000);
  if (run.code !== 0) throw new Error(`selftest/cli-probe.ts ended with exit code ${run.code}:\n${run.stderr}`);
  return JSON.parse(run.stdout) as ProbedScript[];
}

/** What process.exit throws while a command runs in this process: the command stops there, as it would have. */
class Exited extends Error {}

/**
 * A command of ours called in this process, as its script calls it (a script's whole work is a function returning its
 * exit code): the exit code and what it printed, as a child process would give them, without a process of its own.
 * Nothing else runs in this process while it does: console.log, console.error and process.exit are taken over.
 */
export async function inProcess(command: () => number | Promise<number>): Promise<CliRun> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const { log, error } = console;
  const { exit } = process;
  let exitCode: number | undefined;
  let code: number | null = null;
  console.log = (...args: unknown[]) => void stdout.push(`${format(...args)}\n`);
  console.error = (...args: unknown[]) => void stderr.push(`${format(...args)}\n`);
  process.exit = ((given?: number) => {
    exitCode ??= given ?? 0;
    throw new Exited();
  }) as typeof process.exit;
  try {
    code = await command();
  } catch (thrown) {
    if (!(thrown instanceof Exited)) throw thrown;
  } finally {
    console.log = log;
    console.error = error;
    process.exit = exit;
  }
  return { code: exitCode ?? code, stdout: stdout.join(''), stderr: stderr.join('') };
}

/** Every file under dir, by its path. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

const isBase64 = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=') isBase64[c.charCodeAt(0)] = 1;

/** Runs of base64 characters, at least 24 long; a scan rather than a regular expression, which overflows on a 30 MB run. */
function base64Runs(text: string): string[] {
  const runs: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i += 1) {
    const inRun = i < text.length && isBase64[text.charCodeAt(i)] === 1;
    if (inRun && start < 0) start = i;
    if (!inRun && start >= 0) {
      if (i - start >= 24) runs.push(text.slice(start, i));
      start = -1;
    }
  }
  return runs;
}

/**
 * The forms in which a secret could sit in an artifact: as is, percent-encoded, or inside base64 (the single-file
 * report and results.json embed their data and attachments as base64), so base64 runs are decoded and searched too.
 */
function secretsIn(text: string, secrets: readonly string[]): string[] {
  const layers = [text];
  for (const run of base64Runs(text)) {
    const decoded = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    if (/[\x20-\x7e]{8}/.test(decoded)) layers.push(decoded);
  }
  return secrets.filter((secret) =>
    layers.some((layer) => layer.includes(secret) || layer.includes(encodeURIComponent(secret))),
  );
}

/** Each file (and captured output) holding a secret, with which secrets: empty when nothing leaked. */
export function scanForSecrets(
  sources: Array<{ name: string; text: string }>,
  secrets: Record<string, string>,
): string[] {
  const values = Object.values(secrets);
  const names = new Map(Object.entries(secrets).map(([name, value]) => [value, name]));
  return sources.flatMap(({ name, text }) => {
    const found = secretsIn(text, values);
    return found.length ? [`${name}: ${found.map((value) => names.get(value)).join(', ')}`] : [];
  });
}

export function readText(path: string): string {
  return readFileSync(path).toString('utf8');
}

export const readJson = <T>(path: string): T => JSON.parse(readText(path)) as T;

/** Each requirement's outcome in a matrix (a run's conformance.json, a client certification's). */
export const outcomesIn = (matrix: string): Record<string, string> =>
  Object.fromEntries(
    readJson<{ requirements: Array<{ id: string; outcome: string }> }>(matrix).requirements.map((r) => [
      r.id,
      r.outcome,
    ]),
  );
