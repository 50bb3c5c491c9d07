import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import {
  childEnv,
  filesUnder,
  freePort,
  ourScripts,
  outcomesIn,
  probeScripts,
  readJson,
  readText,
  repoRoot,
  runCli,
  type CliRun,
} from './evidence-harness.ts';
import { engineLines, otherLines, ownLine } from './node-lines.ts';

// The product as a user gets it: packed, installed from the tarball into an empty folder, and run through npx from
// there with a .env of that folder, on each Node line of package.json's engines. One pack and one install serve every
// test of this file, so they run in one worker: its hook starts the two chains of runs (each in a folder of its own, the
// install's node_modules linked there), and each test judges what its runs did. Four whole runs in all:
// certify against the embedded sandbox on this Node line, and against a second process the installed package's run
// on each other line and the clone's, compared outcome by outcome. The doctor runs in the embedded folder only: against
// the second process, each run's preflight makes its probes (runner/preflight.ts, the doctor's own) and ends the run
// with exit code 2 on a problem.
test.describe.configure({ mode: 'default' });

const COMMAND = 'identity-proofing-conformance';
/**
 * The target of the comparison with the clone: a correct flavor other than the embedded one, with one fault that fails
 * one check (each failed test costs the run a new worker).
 */
const FLAVOR = 'alternative';
const FAULT = 'order-in-person-refused';

/** A command in a folder of the user's, bounded by its test's time. */
const inFolder = (cwd: string, command: string, args: string[], on: Record<string, string>) =>
  runCli(command, args, on, 600_000, cwd);

const tail = (run: CliRun) => `${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`;

/** Every file of a folder with its size and modification time: what a run must leave as it found it. */
const snapshot = (dir: string): string[] =>
  filesUnder(dir).map((file) => `${file} ${statSync(file).size} ${statSync(file).mtimeMs}`);

const conformanceOf = (reports: string) =>
  readJson<{ result: string; environment: Record<string, string> }>(join(reports, 'conformance.json'));
const outcomes = (reports: string) => outcomesIn(join(reports, 'conformance.json'));

let work = '';
/** The implementer's folder: a package.json of theirs, the suite installed from the tarball, their .env. */
let folder = '';
let packageDir = '';
let packed: string[] = [];
let installedAsIs: string[] = [];
/** No variable of the developer's, no npm script's PATH: the folder's .env and the user's Node alone. */
let env: Record<string, string> = {};
/** The process groups of the target sandboxes started here, ended when the file ends if their runs did not. */
const sandboxes = new Set<number>();

const npx = (cwd: string, args: string[], on: Record<string, string> = env) =>
  inFolder(cwd, 'npx', ['--no-install', COMMAND, ...args], on);

const scriptFiles = ourScripts.map((script) => script.file);
/** A run's reports, test results and Allure results in the work folder, under `name`. */
const outputsIn = (name: string) => ({
  REPORTS_DIR: join(work, name, 'reports'),
  TEST_RESULTS_DIR: join(work, name, 'test-results'),
  ALLURE_RESULTS_DIR: join(work, name, 'allure-results'),
});

/** The two chains of runs the hook starts: a chain's failure is thrown in the tests that await it. */
let embedded: ReturnType<typeof embeddedRuns>;
let compared: ReturnType<typeof comparedRuns>;

/**
 * The user's folder as npm left it: --version, doctor and certify against the embedded sandbox (whose run writes the
 * reports a run does), verify-bundle.
 */
async function embeddedRuns() {
  const version = await npx(folder, ['--version']);
  // The key file named before it is made: only certify reads it.
  const keyFile = join(folder, 'keys', 'certify-signing-key.pem');
  const embeddedEnv = [`SANDBOX_PORT=${await freePort()}`, `WEBHOOK_LISTEN=127.0.0.1:${await freePort()}`];
  writeFileSync(join(folder, '.env'), `${[...embeddedEnv, `CERTIFY_SIGNING_KEY_FILE=${keyFile}`].join('\n')}\n`);
  const doctor = await npx(folder, ['doctor']);
  const key = await npx(folder, ['certify', '--new-key', '--key-dir', 'keys']);
  const certify = await npx(folder, ['certify']);
  const certification = join(folder, 'certification');
  const [bundle] = existsSync(certification) ? readdirSync(certification).filter((name) => name !== 'keys') : [];
  if (bundle === undefined) return { version, doctor, key, certify };
  const verified = await npx(folder, [
    'verify-bundle',
    '--public-key',
    join('keys', 'certify-signing-key.pub.pem'),
    '--require-conformant',
    join('certification', bundle),
  ]);
  return { version, doctor, key, certify, bundle, verified };
}

/**
 * A second process serving a flavor with a fault, named by a folder's .env: the installed package's run on each Node
 * line (npx, npm, the command and the runner's workers all on the first node of the PATH; and every command of the
 * clone, through tsx, printing its usage on that line), then the clone's run. One after another: the sandbox sends its
 * events to one receiver.
 */
async function comparedRuns() {
  // Another folder of the implementer's, with the one install's node_modules.
  const at = join(work, 'target');
  mkdirSync(at);
  writeFileSync(join(at, 'package.json'), readText(join(folder, 'package.json')));
  symlinkSync(join(folder, 'node_modules'), join(at, 'node_modules'), 'dir');
  // The target: the package's own sandbox command, in a process of its own.
  const sandboxPort = await freePort();
  const webhookListen = `127.0.0.1:${await freePort()}`;
  const tokenSecret = randomBytes(16).toString('hex');
  const sandbox = spawn('npx', ['--no-install', COMMAND, 'sandbox'], {
    cwd: at,
    env: {
      ...env,
      SANDBOX_PORT: String(sandboxPort),
      SANDBOX_FLAVOR: FLAVOR,
      SANDBOX_FAULTS: FAULT,
      SANDBOX_TOKEN_SECRET: tokenSecret,
      SANDBOX_WEBHOOK_URL: `http://${webhookListen}/webhooks`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (sandbox.pid !== undefined) sandboxes.add(sandbox.pid);
  try {
    let served = '';
    sandbox.stdout.on('data', (chunk: Buffer) => (served += chunk.toString()));
    sandbox.stderr.on('data', (chunk: Buffer) => (served += chunk.toString()));
    while (!served.includes('Health:')) {
      if (sandbox.exitCode !== null) throw new Error(`the sandbox ended: ${served}`);
      await new Promise<void>((resolve) => {
        sandbox.stdout.once('data', () => resolve());
        sandbox.once('exit', () => resolve());
      });
    }
    const target = sandboxTargetEnv({ url: `http://127.0.0.1:${sandboxPort}`, flavor: FLAVOR, tokenSecret });
    const targetEnv = [
      ...Object.entries(target).map(([name, value]) => `${name}='${value}'`),
      `WEBHOOK_LISTEN=${webhookListen}`,
      `WEBHOOK_PUBLIC_URL=http://${webhookListen}/webhooks`,
    ];
    writeFileSync(join(at, '.env'), `${targetEnv.join('\n')}\n`);
    // An installed run on each Node line, and the clone's commands probed on that line.
    const lineRuns = [];
    for (const { line, binary } of runLines) {
      const outputs = outputsIn(`node${line}`);
      const run = await npx(at, ['run'], {
        ...env,
        ...outputs,
        ...(binary ? { PATH: [dirname(binary), env['PATH'] ?? ''].join(delimiter) } : {}),
      });
      const help = binary ? await probeScripts('--help', scriptFiles, childEnv(at, {}), binary) : undefined;
      lineRuns.push({ line, run, reports: outputs.REPORTS_DIR, help });
    }
    // The clone's own first command, with the same .env, its outputs in the work folder.
    const cloneOutputs = outputsIn('clone');
    const clone = await inFolder(repoRoot, 'npm', ['run', 'conformance'], {
      ...env,
      ENV_FILE: join(at, '.env'),
      ...cloneOutputs,
    });
    return { lineRuns, clone, cloneReports: cloneOutputs.REPORTS_DIR };
  } finally {
    // The sandbox's process group: npx, the command and the sandbox it started.
    if (sandbox.pid !== undefined && sandbox.exitCode === null) process.kill(-sandbox.pid, 'SIGTERM');
    if (sandbox.pid !== undefined) sandboxes.delete(sandbox.pid);
  }
}

/** The lines of engines other than this process's, with this machine's binary of each. */
const lines = engineLines
  .filter((line) => line !== ownLine)
  .map((line) => ({ line, binary: otherLines.find((other) => other.line === line)?.binary }));
/** The lines the installed package runs on against the second process: every other one here, else this one. */
const otherHere = lines.filter((l): l is { line: string; binary: string } => !!l.binary && existsSync(l.binary));
const runLines: Array<{ line: string; binary?: string }> =
  otherHere.length > 0 ? otherHere : [{ line: ownLine ?? process.version }];

test.beforeAll(async () => {
  test.setTimeout(300_000);
  work = mkdtempSync(join(tmpdir(), 'package-'));
  folder = join(work, 'user');
  mkdirSync(folder);
  env = childEnv(work, {});
  for (const name of ['ENV_FILE', 'REPORTS_DIR', 'CONFORMANCE_WORKERS']) delete env[name];
  const pack = await inFolder(repoRoot, 'npm', ['pack', '--json', '--pack-destination', work], env);
  expect(pack.code, pack.stderr).toBe(0);
  // npm prints the lifecycle scripts' output before its JSON.
  const [tarball] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[\n'))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  packed = tarball?.files.map((file) => file.path) ?? [];
  writeFileSync(join(folder, 'package.json'), '{ "name": "an-implementers-repository", "private": true }\n');
  const install = ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball?.filename ?? '')];
  const installed = await inFolder(folder, 'npm', install, env);
  expect(installed.code, installed.stderr).toBe(0);
  packageDir = join(folder, 'node_modules', COMMAND);
  installedAsIs = snapshot(packageDir);
  [embedded, compared] = [embeddedRuns(), comparedRuns()];
  for (const chain of [embedded, compared]) chain.catch(() => undefined);
});

test.afterAll(async () => {
  // Every run started ends before the folder goes (a test that failed leaves the others' runs going).
  await Promise.allSettled([embedded, compared]);
  for (const pid of sandboxes) process.kill(-pid, 'SIGTERM');
  if (work) rmSync(work, { recursive: true, force: true });
});

test.afterEach(() => {
  if (installedAsIs.length > 0)
    expect(snapshot(packageDir), 'the installed package, as installed').toEqual(installedAsIs);
});

test('npm pack ships the command, the compiled product, the README and the user docs, and no self-test, bench, mutation or load file', () => {
  for (const file of [
    `bin/${COMMAND}.js`,
    'dist/scripts/main.js',
    'dist/playwright.config.js',
    'dist/sandbox/main.js',
    'dist/docs/verdicts.md',
    'README.md',
    'package.json',
  ])
    expect(packed, 'the packed files').toContain(file);
  const workshop = /^(dist\/)?(selftest|tools)\/|bench|mutat|stryker|\bload\.|autocannon|\.ts$/;
  expect(
    packed.filter((file) => workshop.test(file)),
    'workshop files, or TypeScript Node will not load',
  ).toEqual([]);
  expect(existsSync(join(packageDir, 'selftest')), 'no self-test in the installed package').toBe(false);
});

test(`the installed package runs --version, doctor and certify against the embedded sandbox (conformant, reports in the folder) and verify-bundle on Node ${ownLine}`, async () => {
  test.setTimeout(600_000);
  const { version, doctor, key, certify, bundle, verified } = await embedded;
  expect(version.code, version.stderr).toBe(0);
  expect(version.stdout).toMatch(
    /^identity-proofing-conformance \d+\.\d+\.\d+ \(.+ \d+\.\d+\.\d+, catalog SHA-256 [0-9a-f]{64}\)/,
  );
  expect(doctor.code, `${doctor.stdout}\n${doctor.stderr}`).toBe(0);
  expect(key.code, key.stderr).toBe(0);
  expect(certify.code, tail(certify)).toBe(0);
  expect(conformanceOf(join(folder, 'reports')).result).toBe('conformant');
  for (const name of ['conformance.md', 'junit.xml', 'results.json'])
    expect(existsSync(join(folder, 'reports', name)), `reports/${name} in the folder`).toBe(true);
  expect(readdirSync(join(folder, 'allure-results')).length, 'Allure results in the folder').toBeGreaterThan(0);
  // A signed bundle of the embedded sandbox's certification, verified offline.
  expect(bundle, 'a bundle under certification/ of the folder').toBeDefined();
  expect(verified?.code, `${verified?.stdout}\n${verified?.stderr}`).toBe(0);
});

/** A line's installed run gives the clone's verdict and outcomes, and the clone's commands print their usage there. */
async function judgeLine(line: string) {
  const { lineRuns, cloneReports } = await compared;
  const onLine = lineRuns.find((r) => r.line === line);
  if (!onLine) throw new Error(`no run on Node ${line}`);
  const { run, reports, help } = onLine;
  expect(run.code, tail(run)).toBe(1);
  const fromPackage = conformanceOf(reports);
  const fromClone = conformanceOf(cloneReports);
  expect(fromPackage.environment['node'], 'the Node line of the run').toMatch(new RegExp(`^v${line}\\.`));
  expect(fromPackage.result, 'the verdict').toBe(fromClone.result);
  expect(outcomes(reports), "each requirement's outcome").toEqual(outcomes(cloneReports));
  for (const [index, { name }] of help ? ourScripts.entries() : []) {
    const probed = help?.[index];
    expect(probed?.threw, `npm run ${name} -- --help`).toBeUndefined();
    expect(probed?.code, `npm run ${name} -- --help: ${probed?.stderr}`).toBe(0);
    expect(probed?.stdout, `npm run ${name} -- --help`).toContain(`Usage: npm run ${name}`);
  }
}

test(`against a second process serving the ${FLAVOR} flavor with the fault ${FAULT}, named by the folder's .env, the clone's npm run conformance catches the fault`, async () => {
  test.setTimeout(600_000);
  const { clone, cloneReports } = await compared;
  expect(clone.code, tail(clone)).toBe(1);
  const fromClone = conformanceOf(cloneReports);
  expect(fromClone.result).toMatch(/^not conformant/);
  expect(Object.values(outcomes(cloneReports)), 'the fault is caught').toContain('failed');
  // With no other line here, the installed package runs on this one.
  if (otherHere.length === 0) await judgeLine(runLines[0]?.line ?? '');
});

for (const { line, binary } of lines)
  test(`on Node ${line} of engines, the installed package's run against that second process gives the verdict and every requirement's outcome the clone's gives, and every command of the clone prints its usage`, async () => {
    test.skip(
      !binary || !existsSync(binary),
      `no Node ${line} here: npm ci --prefix tools/runtimes brings 22 and 24 (.ci/run does, on linux-x64), the system's Node is the other`,
    );
    test.setTimeout(600_000);
    await judgeLine(line);
  });
