import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { projectLayout, projectNames } from '../runner/config/projects.ts';
import { DEFAULT_WORKERS } from '../runner/config/worker-count.ts';
import { defaultFarSettings } from '../sandbox/flavors/far.ts';
import { defaultReadLagMs } from '../sandbox/flavors/trailing.ts';
import { makeThrowawayPki } from '../sandbox/pki.ts';
import { startSandbox, type ReceivedRequest } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { listSuite } from '../scripts/suite-listing.ts';
import { freePorts } from '../runner/http/free-port.ts';
import { checkoutAt, otherCommit, type Checkout } from './bench-checkout.ts';
import { countOption, parseCli } from '../scripts/cli.ts';
import { configSchema } from '../schemas/variables.ts';
import { replaceReadmeBlock } from '../scripts/readme-block.ts';
import {
  copyCloneInstall,
  measurePackage,
  packageTable,
  type PackageBench,
  type PackageMeasure,
} from './bench-package.ts';

const cli = parseCli({
  summary:
    "Times the suite (medians of whole-process wall and CPU time) and writes reports/bench.json, the README's table and the time of its first two commands.",
  usage: 'npm run bench -- [options]',
  options: {
    runs: { type: 'string' },
    'slow-runs': { type: 'string' },
    'kill-runs': { type: 'string' },
    'npm-test-runs': { type: 'string' },
    'loaded-runs': { type: 'string' },
    'npm-ci-runs': { type: 'string' },
    'runtime-runs': { type: 'string' },
    'far-runs': { type: 'string' },
    'flavor-runs': { type: 'string' },
    'precondition-runs': { type: 'string' },
    'package-runs': { type: 'string' },
    'package-only': { type: 'boolean' },
    against: { type: 'string' },
    'no-readme': { type: 'boolean' },
  },
  describe: {
    runs: 'runs of each fast measure: full run, one test, failing run, doctor (default 5)',
    'slow-runs': 'runs against the slow target, each answer 200 ms late (default 1)',
    'far-runs':
      'runs against the far target: HTTPS through its own CA, every answer 150 ms late, events 6 to 9 s late, out of order, some twice (default 1)',
    'kill-runs': 'proof runs: kill matrix with the clean and portability runs (default 1)',
    'npm-test-runs': 'runs of npm test (default 1; 0 skips it)',
    'loaded-runs': 'runs of npm test in a row while full conformance runs load the machine (default 0)',
    'npm-ci-runs':
      "runs of npm ci in a scratch folder from package.json and the lock file, npm's cache as it is (default 1)",
    'runtime-runs':
      'runs of the runtime self-test alone (selftest/runtimes.spec.ts: every command of ours on each other Node line; default 1)',
    'flavor-runs':
      'runs against each correct flavor without a rate limit, embedded, events at once, by turns (default: as --runs)',
    'precondition-runs':
      'runs at default timeouts against each fault that breaks a precondition the checks share (default 1)',
    'package-runs':
      "installs of the packed package into an empty folder and of the clone (npm ci), npm's cache warm, each with its footprint and a run against the embedded sandbox (default 1)",
    'package-only':
      "the package measure alone (--package-runs of it): its figures into reports/bench.json, the others kept, and the README's package block",
    against:
      'a commit to measure side by side on the same machine, by turns (the full run, the failing run, each flavor, npm test): made in a scratch folder, git worktree and npm ci',
    'no-readme': 'write reports/bench.json only, not the README tables',
  },
});
const runs = countOption('runs', cli.values.runs, 5);
const slowRuns = countOption('slow-runs', cli.values['slow-runs'], 1);
const killRuns = countOption('kill-runs', cli.values['kill-runs'], 1);
const farRuns = countOption('far-runs', cli.values['far-runs'], 1);
const npmTestRuns = countOption('npm-test-runs', cli.values['npm-test-runs'], 1);
const loadedRuns = countOption('loaded-runs', cli.values['loaded-runs'], 0);
const npmCiRuns = countOption('npm-ci-runs', cli.values['npm-ci-runs'], 1);
const runtimeRuns = countOption('runtime-runs', cli.values['runtime-runs'], 1);
const flavorRuns = countOption('flavor-runs', cli.values['flavor-runs'], runs);
const preconditionRuns = countOption('precondition-runs', cli.values['precondition-runs'], 1);
const packageRuns = countOption('package-runs', cli.values['package-runs'], 1);

// Figures, not assertions: the machines are shared and noisy, so the README shows medians of whole processes.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const here = checkoutAt('this commit', repoRoot);
const playwrightCli = here.playwrightCli;
/** Each answer of the slow target comes this late. */
const SLOW_MS = 200;
/** A test that sends nothing (it records that the order update operation is not shown): what remains is fixed cost. */
const TRIVIAL_TEST = '@ORD-400-UPDATE-ORDER-ID';
/** A fault family whose checks fail on six operations: the failing run. */
const FAILING_FAULTS = 'json-as-text-plain';
/** The correct flavors that answer at once and set no rate limit: a run against each costs what the reference costs. */
const PROMPT_FLAVORS = [
  'reference',
  'alternative',
  'gateway',
  'lenient',
  'proto3',
  'document-step-up',
  'normalising',
  'case-insensitive-ids',
];
/** A correct flavor whose reads trail its writes (by up to defaultReadLagMs): it costs at most the reference + five lags. */
const TRAILING = 'trailing';
const FLAVOR_ROWS = [...PROMPT_FLAVORS, TRAILING];
/** Whether a checkout's sandbox has a flavor (another commit's may not have the newer ones). */
function hasFlavor(checkout: Checkout, flavor: string): boolean {
  const schema = JSON.parse(readFileSync(join(checkout.root, 'schemas', 'config.schema.json'), 'utf8')) as {
    properties: { SANDBOX_FLAVOR?: { enum?: string[] } };
  };
  return schema.properties.SANDBOX_FLAVOR?.enum?.includes(flavor) ?? false;
}

/**
 * Faults that break a precondition many checks share, each with the timeout it touches: a run against one costs the
 * failing run and that timeout once (the checks standing on it are blocked at once, not tried).
 */
const PRECONDITION_FAULTS = [
  { fault: 'records-never-ready', timeout: 'DOCUMENT_READY_TIMEOUT_MS' },
  { fault: 'token-never-answers', timeout: 'HTTP_TIMEOUT_MS' },
  { fault: 'webhooks-never-sent', timeout: 'WEBHOOK_WAIT_MS' },
  // Reads that never show an update's tags: the first such read waits out the bound, later ones not (the run's breaker).
  { fault: 'fetch-tags-never-caught-up', timeout: 'READ_AFTER_WRITE_TIMEOUT_MS' },
] as const;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0
    ? Number.NaN
    : sorted.length % 2
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const seconds = (ms: number) => +(ms / 1000).toFixed(2);

interface Timed {
  code: number | null;
  ms: number;
  cpuSeconds: number;
  output: string;
}

/**
 * The PATH npm gives a script of the checkout in `cwd`: its node_modules/.bin first, then the PATH the bench was
 * started with, less the folders npm put before it for the bench itself. So each commit runs on the Node its own
 * package.json brings, or on the Node first on the PATH when it brings none, as this one does (commits before the
 * package linked Node 24 there: start the bench with tools/runtimes' Node 24 first on the PATH to compare one line).
 */
function scriptPath(cwd: string): string {
  // eslint-disable-next-line no-restricted-properties -- the PATH the bench was started with
  const started = (process.env['PATH'] ?? '').split(delimiter);
  const own = started.filter((dir) => !dir.endsWith(join('node_modules', '.bin')) && !dir.endsWith('node-gyp-bin'));
  return [join(cwd, 'node_modules', '.bin'), ...own].join(delimiter);
}

/** Runs a command through bash, which reports the CPU time of everything the command started (`times`). */
function timed(command: string, env: Record<string, string | undefined>, cwd = repoRoot): Promise<Timed> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${command}; status=$?; times; exit $status`], {
      cwd,
      // eslint-disable-next-line no-restricted-properties -- the environment given to a child process
      env: { ...process.env, PATH: scriptPath(cwd), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const children = output.trim().split('\n').at(-1) ?? '';
      const cpuSeconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
        (sum, m) => sum + Number(m[1]) * 60 + Number(m[2]),
        0,
      );
      resolve({ code, ms: performance.now() - started, cpuSeconds, output });
    });
  });
}

/** A run that should have passed and did not: its whole output kept in reports/, so that why can be read. */
function keptFailure(name: string, one: Timed): string {
  if (one.code === 0) return '';
  const file = join(repoRoot, 'reports', `bench-${name.replace(/\W+/g, '-')}-${Date.now()}.txt`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, one.output);
  return `; its output: ${relative(repoRoot, file)}`;
}

/** A run's outputs in a scratch folder, quiet, with the local reporters. */
function scratchRunEnv(scratch: string): Record<string, string> {
  return {
    REPORTS_DIR: join(scratch, 'reports'),
    TEST_RESULTS_DIR: join(scratch, 'test-results'),
    ALLURE_RESULTS_DIR: join(scratch, 'allure-results'),
    CONFORMANCE_QUIET: '1',
    CI: '',
  };
}

/** Free ports for the embedded sandbox and the receiver of one run, so that runs side by side never share one. */
async function embeddedPorts(): Promise<{ SANDBOX_PORT: string; WEBHOOK_LISTEN: string }> {
  const [sandboxPort, webhookPort] = await freePorts(2);
  return { SANDBOX_PORT: String(sandboxPort), WEBHOOK_LISTEN: `127.0.0.1:${webhookPort}` };
}

/** Sends the same requests one after the other with fetch: no fixtures, no checks, no reports. */
async function plainLoop(origin: string, requests: ReceivedRequest[]): Promise<number> {
  const skip = new Set(['host', 'content-length', 'connection', 'transfer-encoding']);
  const started = performance.now();
  for (const request of requests) {
    const headers = new Headers();
    for (let i = 0; i < request.rawHeaders.length; i += 2) {
      const name = request.rawHeaders[i] as string;
      if (!skip.has(name.toLowerCase())) headers.append(name, request.rawHeaders[i + 1] as string);
    }
    const hasBody = !['GET', 'HEAD'].includes(request.method) && request.body.length > 0;
    const answer = await fetch(`${origin}${request.url}`, {
      method: request.method,
      headers,
      ...(hasBody ? { body: request.body } : {}),
    });
    await answer.arrayBuffer();
  }
  return performance.now() - started;
}

interface TargetRun extends Timed {
  requests: number;
  tokens: number;
  /** The same requests sent again in a plain fetch loop, when asked for. */
  loopMs?: number;
}

/**
 * The whole suite against a sandbox started here (so that its requests are counted), every reporter on: the run as
 * users get it. Faults make it a failing run, latency a slow target.
 */
async function runAgainstSandbox(options: {
  faults?: string;
  latencyMs?: number;
  workers?: number;
  expectedExit: number;
  loop?: boolean;
  /** The suite that runs: this checkout's, or another commit's (--against). */
  checkout?: Checkout;
}): Promise<TargetRun> {
  const checkout = options.checkout ?? here;
  const requests: ReceivedRequest[] = [];
  const tokenSecret = randomBytes(16).toString('hex');
  const [webhookPort] = await freePorts(1);
  const faults = options.faults ? [options.faults] : [];
  const sandbox = await startSandbox({
    tokenSecret,
    faults,
    latencyMs: options.latencyMs ?? 0,
    webhookUrl: `http://127.0.0.1:${webhookPort}/webhooks`,
    onRequest: (r) => requests.push(r),
    warn: () => undefined,
  });
  const scratch = mkdtempSync(join(tmpdir(), 'bench-'));
  try {
    const env = {
      ...sandboxTargetEnv({ url: sandbox.url, flavor: 'reference', tokenSecret }),
      WEBHOOK_LISTEN: `127.0.0.1:${webhookPort}`,
      WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${webhookPort}/webhooks`,
      ...(options.workers ? { CONFORMANCE_WORKERS: String(options.workers) } : {}),
      ...scratchRunEnv(scratch),
    };
    const result = await timed(`node ${checkout.playwrightCli} test`, env, checkout.root);
    if (result.code !== options.expectedExit)
      throw new Error(
        `The run of ${checkout.name} exited ${result.code}, not ${options.expectedExit}:\n${result.output.slice(-2000)}`,
      );
    const sent = [...requests];
    return {
      ...result,
      requests: sent.length,
      tokens: sent.filter((r) => r.url.split('?')[0]?.endsWith('/v1/token')).length,
      ...(options.loop ? { loopMs: await plainLoop(sandbox.url, sent) } : {}),
    };
  } finally {
    await sandbox.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

interface FarRun extends Timed {
  /** From the run's conformance.json: how late the latest awaited event came, how soon after its event each wait ended. */
  latestEventDelayMs: number;
  longestWaitLagMs: number;
}

/**
 * The whole suite against the far flavor at its defaults (sandbox/flavors/far.ts), over HTTPS with a certificate of a CA
 * made here, configured as a user would: the target's URLs, WEBHOOK_PUBLIC_URL and TLS_CA_FILE, nothing tuned.
 */
async function runAgainstFarTarget(): Promise<FarRun> {
  const tokenSecret = randomBytes(16).toString('hex');
  const [webhookPort] = await freePorts(1);
  const pki = makeThrowawayPki();
  const scratch = mkdtempSync(join(tmpdir(), 'bench-far-'));
  const caFile = join(scratch, 'ca.pem');
  writeFileSync(caFile, pki.caCert);
  const sandbox = await startSandbox({
    flavor: 'far',
    far: { ...defaultFarSettings, seed: `bench-${Date.now()}`, tls: { key: pki.key, cert: pki.cert } },
    tokenSecret,
    webhookUrl: `http://127.0.0.1:${webhookPort}/webhooks`,
    warn: () => undefined,
  });
  try {
    const env = {
      ...sandboxTargetEnv({ url: sandbox.url, flavor: 'far', tokenSecret }),
      TLS_CA_FILE: caFile,
      WEBHOOK_LISTEN: `127.0.0.1:${webhookPort}`,
      WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${webhookPort}/webhooks`,
      ...scratchRunEnv(scratch),
    };
    const result = await timed(`node ${playwrightCli} test`, env);
    if (result.code !== 0)
      throw new Error(`The run against the far target exited ${result.code}:\n${result.output.slice(-2000)}`);
    const report = JSON.parse(readFileSync(join(scratch, 'reports', 'conformance.json'), 'utf8')) as {
      events?: { latestDelayMs: number; longestLagMs: number };
    };
    return {
      ...result,
      latestEventDelayMs: report.events?.latestDelayMs ?? 0,
      longestWaitLagMs: report.events?.longestLagMs ?? 0,
    };
  } finally {
    await sandbox.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

interface EmbeddedRun extends Timed {
  /** Waits of the run that ended on their window rather than on an event (conformance.json), when it says. */
  windowEnds?: number;
}

/**
 * The whole suite against the embedded sandbox of a checkout (its own flavor and faults, as a user starts it), every
 * reporter on, default timeouts: a correct flavor's run, or a fault's.
 */
async function embeddedRun(
  checkout: Checkout,
  options: { flavor?: string; faults?: string; expectedExit: readonly number[] },
): Promise<EmbeddedRun> {
  const scratch = mkdtempSync(join(tmpdir(), 'bench-embedded-'));
  try {
    const env = {
      ...(await embeddedPorts()),
      ...(options.flavor ? { SANDBOX_FLAVOR: options.flavor } : {}),
      ...(options.faults ? { SANDBOX_FAULTS: options.faults } : {}),
      ...scratchRunEnv(scratch),
    };
    const result = await timed(`node ${checkout.playwrightCli} test`, env, checkout.root);
    const what = `${checkout.name}, ${options.flavor ?? 'reference'}${options.faults ? ` with ${options.faults}` : ''}`;
    if (result.code === null || !options.expectedExit.includes(result.code))
      throw new Error(`The run of ${what} exited ${result.code}:\n${result.output.slice(-2000)}`);
    let windowEnds: number | undefined;
    try {
      const report = JSON.parse(readFileSync(join(scratch, 'reports', 'conformance.json'), 'utf8')) as {
        events?: { windowEnds?: unknown[] };
      };
      windowEnds = report.events?.windowEnds?.length;
    } catch {
      // A run that stopped before its tests (exit 2) writes no events.
    }
    return { ...result, ...(windowEnds === undefined ? {} : { windowEnds }) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The same measure in each checkout, by turns (this one, then the other, and again), so that the machine's drift over
 * the bench falls on both alike.
 */
async function byTurns<T>(
  label: string,
  count: number,
  checkouts: readonly Checkout[],
  once: (checkout: Checkout) => Promise<T>,
  describe: (one: T) => string,
): Promise<Map<string, T[]>> {
  const all = new Map<string, T[]>(checkouts.map((c) => [c.name, []]));
  for (let i = 0; i < count; i += 1) {
    for (const checkout of checkouts) {
      const one = await once(checkout);
      console.log(`  ${label} ${i + 1}${checkouts.length > 1 ? `, ${checkout.name}` : ''}: ${describe(one)}`);
      all.get(checkout.name)?.push(one);
    }
  }
  return all;
}

/** The fixed cost: one trivial test, with the embedded sandbox and every reporter, as node or npx starts it. */
async function oneTestRun(launcher: string) {
  const scratch = mkdtempSync(join(tmpdir(), 'bench-one-'));
  try {
    const env = { ...(await embeddedPorts()), ...scratchRunEnv(scratch) };
    const result = await timed(`${launcher} test --project orders --grep ${TRIVIAL_TEST}`, env);
    if (result.code !== 0)
      throw new Error(`The one-test run failed (exit ${result.code}):\n${result.output.slice(-2000)}`);
    return result;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** npm run doctor against the embedded sandbox: every probe of the run's preflight, and its own start. */
async function doctorRun() {
  const result = await timed('node --import tsx scripts/doctor.ts', await embeddedPorts());
  if (result.code !== 0)
    throw new Error(`The doctor found a problem (exit ${result.code}):\n${result.output.slice(-2000)}`);
  return result;
}

/** A test file of `count` empty tests on Playwright's base test, the one the suite's fixtures extend. */
const emptySpec = (playwrightTest: string, count: number) =>
  `import { _baseTest as test } from ${JSON.stringify(playwrightTest)};\n\nfor (let i = 0; i < ${count}; i += 1) test(\`empty \${i}\`, (): void => undefined);\n`;

/**
 * Playwright alone, in a package like this one (ES modules, TypeScript): the suite's six projects laid out as a run on
 * the default workers lays them out, as many tests in each as the suite has there, every test empty and on Playwright's
 * base test without its browser fixtures (as the suite's are), with the `dot` reporter. No suite on this stack goes
 * under these figures on the day's machine: one project of one test is the floor under the one-test figure, the six
 * projects the floor under the full run (a runner, six worker starts and Playwright's own cost per test).
 */
async function floorRuns(count: number): Promise<{ one: Timed[]; suite: Timed[]; tests: number }> {
  if (count === 0) return { one: [], suite: [], tests: 0 };
  const listed = await listSuite();
  const scratch = mkdtempSync(join(tmpdir(), 'bench-floor-'));
  try {
    const playwrightTest = pathToFileURL(join(repoRoot, 'node_modules/@playwright/test/index.mjs')).href;
    writeFileSync(join(scratch, 'package.json'), '{ "type": "module" }\n');
    const workers = DEFAULT_WORKERS;
    // Each project in a folder of its own (run-end shares tests/webhooks/ with the webhooks project, by file name).
    const layout = projectLayout(workers, '.').map(({ name, workers: most }) => ({
      name,
      testDir: `./${name}`,
      workers: most,
    }));
    const projects = [...layout, { name: 'one', testDir: './one' }];
    const inProject = (name: string) =>
      listed.filter((t) =>
        name === 'run-end'
          ? t.file.endsWith('/valid-deliveries.spec.ts')
          : name === 'webhooks'
            ? t.file.startsWith('webhooks/') && !t.file.endsWith('/valid-deliveries.spec.ts')
            : t.file.startsWith(`${name}/`),
      ).length;
    for (const { name, testDir } of projects) {
      mkdirSync(join(scratch, testDir));
      writeFileSync(
        join(scratch, testDir, 'empty.spec.ts'),
        emptySpec(playwrightTest, name === 'one' ? 1 : inProject(name)),
      );
    }
    // fullyParallel as in playwright.config.ts: the projects above say where it is off.
    writeFileSync(
      join(scratch, 'floor.config.ts'),
      `export default ${JSON.stringify({ workers, fullyParallel: true, reporter: 'dot', projects })};\n`,
    );
    const run = async (args: string) => {
      const result = await timed(`node ${playwrightCli} test -c ${join(scratch, 'floor.config.ts')} ${args}`, {
        CI: '',
      });
      if (result.code !== 0)
        throw new Error(`The floor run failed (exit ${result.code}):\n${result.output.slice(-2000)}`);
      return result;
    };
    const one = await repeat('floor, one empty test', count, () => run('--project one'), line);
    const suite = await repeat(
      "floor, the suite's projects of empty tests",
      count,
      () => run(projectNames.map((name) => `--project ${name}`).join(' ')),
      line,
    );
    return { one, suite, tests: listed.length };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `npm ci` as a fresh clone runs it: package.json, the lock file and prepare in an empty folder, npm's cache as it is. */
async function npmCiRun(): Promise<Timed> {
  const scratch = mkdtempSync(join(tmpdir(), 'bench-npm-ci-'));
  try {
    copyCloneInstall(repoRoot, scratch);
    const result = await timed(`cd ${JSON.stringify(scratch)} && npm ci --no-audit --no-fund`, {});
    if (result.code !== 0) throw new Error(`npm ci failed (exit ${result.code}):\n${result.output.slice(-2000)}`);
    return result;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function repeat<T>(
  label: string,
  count: number,
  once: () => Promise<T>,
  describe: (one: T) => string,
): Promise<T[]> {
  const all: T[] = [];
  for (let i = 0; i < count; i += 1) {
    const one = await once();
    console.log(`  ${label} ${i + 1}: ${describe(one)}`);
    all.push(one);
  }
  return all;
}

const figure = (values: Timed[]) => ({
  runs: values.length,
  medianSeconds: seconds(median(values.map((v) => v.ms))),
  medianCpuSeconds: +median(values.map((v) => v.cpuSeconds)).toFixed(1),
});
const line = (one: Timed) => `${seconds(one.ms)} s, ${one.cpuSeconds.toFixed(1)} CPU-s`;

async function main() {
  if (cli.values['package-only']) return measurePackageAlone();
  console.log(
    `bench: ${runs} run(s) of each fast measure, ${slowRuns} slow-target run(s), ${killRuns} proof run(s), ${npmTestRuns} npm test run(s)`,
  );
  const against = cli.values.against ? otherCommit(repoRoot, cli.values.against) : undefined;
  try {
    await measure(against);
  } finally {
    against?.remove();
  }
}

const packageBench: PackageBench = {
  repoRoot,
  runs: packageRuns,
  timed,
  figure,
  runEnv: async (scratch) => ({ ...(await embeddedPorts()), ...scratchRunEnv(scratch) }),
  log: (text) => console.log(text),
};

/** The package measure alone: the other figures of reports/bench.json and the README's other blocks stay as they are. */
async function measurePackageAlone() {
  const measured = await measurePackage(packageBench);
  const file = join(repoRoot, 'reports/bench.json');
  let earlier: Record<string, unknown> = {};
  try {
    earlier = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    // No earlier bench: the file holds the package measure alone.
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ ...earlier, package: measured }, null, 2)}\n`);
  const table = packageTable(measured);
  console.log(`\n${table}`);
  if (!cli.values['no-readme']) replaceReadmeBlock('package', table);
  console.log(`written: reports/bench.json${cli.values['no-readme'] ? '' : " and the README's package block"}`);
}

async function measure(against: Checkout | undefined) {
  const checkouts = against ? [here, against] : [here];
  const mine = <T>(all: Map<string, T[]>): T[] => all.get(here.name) ?? [];
  const floor = await floorRuns(runs);
  const fullRuns = await byTurns(
    'full run',
    runs,
    checkouts,
    (checkout) => runAgainstSandbox({ expectedExit: 0, loop: checkout === here, checkout }),
    (one) =>
      `${line(one)}, ${one.requests} requests${one.loopMs === undefined ? '' : `, plain fetch loop ${seconds(one.loopMs)} s`}`,
  );
  const full = mine(fullRuns);
  const oneNode = await repeat('one test (node)', runs, () => oneTestRun(`node ${playwrightCli}`), line);
  const oneNpx = await repeat('one test (npx)', runs, () => oneTestRun('npx playwright'), line);
  const doctor = await repeat('doctor', runs, doctorRun, line);
  const failingRuns = await byTurns(
    'failing run',
    runs,
    checkouts,
    (checkout) => runAgainstSandbox({ faults: FAILING_FAULTS, expectedExit: 1, checkout }),
    line,
  );
  const failing = mine(failingRuns);
  const flavorRunsOf: Record<string, Map<string, EmbeddedRun[]>> = {};
  for (const flavor of FLAVOR_ROWS)
    flavorRunsOf[flavor] = await byTurns(
      `flavor ${flavor}`,
      flavorRuns,
      checkouts.filter((checkout) => hasFlavor(checkout, flavor)),
      (checkout) => embeddedRun(checkout, { flavor, expectedExit: [0] }),
      (one) => `${line(one)}, ${one.windowEnds ?? 'no'} waits ended on their window`,
    );
  const preconditions: Record<string, EmbeddedRun[]> = {};
  for (const { fault } of PRECONDITION_FAULTS)
    preconditions[fault] = await repeat(
      `precondition fault ${fault}`,
      preconditionRuns,
      () => embeddedRun(here, { faults: fault, expectedExit: [1, 2] }),
      (one) => `${line(one)} (exit ${one.code})`,
    );
  const slow = await repeat(
    'slow target, workers chosen from the round trip',
    slowRuns,
    () => runAgainstSandbox({ latencyMs: SLOW_MS, expectedExit: 0 }),
    line,
  );
  const slowNarrow = await repeat(
    'slow target, 2 workers',
    slowRuns,
    () => runAgainstSandbox({ latencyMs: SLOW_MS, workers: 2, expectedExit: 0 }),
    line,
  );
  const far = await repeat(
    'far target',
    farRuns,
    runAgainstFarTarget,
    (one) =>
      `${line(one)}, latest awaited event ${seconds(one.latestEventDelayMs)} s after its request, waits ended within ${one.longestWaitLagMs} ms of the last events they awaited`,
  );
  const kill = await repeat(
    'proof run',
    killRuns,
    () =>
      timed(
        `node ${playwrightCli} test -c selftest/playwright.config.ts selftest/proof.spec.ts --reporter=dot --output ${join(tmpdir(), `bench-proof-${Date.now()}`)}`,
        { SELFTEST_RUN_ID: `bench-${Date.now()}`, CI: '' },
      ),
    line,
  );
  const npmTestRunsOf = await byTurns(
    'npm test',
    npmTestRuns,
    checkouts,
    (checkout) => timed('npm test', { CI: '' }, checkout.root),
    (one) => `${line(one)} (exit ${one.code})${keptFailure('npm test', one)}`,
  );
  const npmTest = mine(npmTestRunsOf);
  const loaded = await underLoad(() =>
    repeat(
      'npm test under load',
      loadedRuns,
      () => timed('npm test', { CI: '' }),
      (one) => `${line(one)} (exit ${one.code})${keptFailure('npm test under load', one)}`,
    ),
  );
  const npmCi = await repeat('npm ci', npmCiRuns, npmCiRun, line);
  const runtimes = await repeat(
    'runtime self-test',
    runtimeRuns,
    () =>
      timed(
        `node ${playwrightCli} test -c selftest/playwright.config.ts selftest/runtimes.spec.ts --reporter=dot --output ${join(tmpdir(), `bench-runtimes-${Date.now()}`)}`,
        { CI: '' },
      ),
    (one) => `${line(one)} (exit ${one.code})${keptFailure('runtime self-test', one)}`,
  );
  const installedPackage = await measurePackage(packageBench);

  const requests = median(full.map((r) => r.requests));
  const summary: Summary = {
    measuredAt: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version },
    floor: { oneTest: figure(floor.one), suite: { ...figure(floor.suite), tests: floor.tests } },
    fullRun: {
      ...figure(full),
      requests,
      tokensFetched: median(full.map((r) => r.tokens)),
      plainFetchLoopSeconds: seconds(median(full.map((r) => r.loopMs ?? 0))),
    },
    oneTest: { node: figure(oneNode), npx: figure(oneNpx) },
    failingRun: { ...figure(failing), faults: FAILING_FAULTS },
    doctor: figure(doctor),
    slowTarget: {
      latencyMs: SLOW_MS,
      sequentialSeconds: seconds(requests * SLOW_MS),
      chosenWorkers: figure(slow),
      twoWorkers: figure(slowNarrow),
    },
    farTarget: {
      ...figure(far),
      latestEventDelaySeconds: seconds(median(far.map((r) => r.latestEventDelayMs))),
      longestWaitLagMs: Math.max(0, ...far.map((r) => r.longestWaitLagMs)),
    },
    proofRun: figure(kill),
    npmTest: { ...figure(npmTest), exitCodes: npmTest.map((r) => r.code) },
    npmTestUnderLoad: {
      ...figure(loaded.results),
      exitCodes: loaded.results.map((r) => r.code),
      loadRuns: loaded.loadRuns,
    },
    npmCi: figure(npmCi),
    runtimeSelftest: figure(runtimes),
    package: installedPackage,
    flavors: Object.fromEntries(
      FLAVOR_ROWS.map((flavor) => {
        const these = mine(flavorRunsOf[flavor] ?? new Map<string, EmbeddedRun[]>());
        return [flavor, { ...figure(these), windowEnds: Math.max(0, ...these.map((r) => r.windowEnds ?? 0)) }];
      }),
    ),
    preconditions: Object.fromEntries(
      PRECONDITION_FAULTS.map(({ fault, timeout }) => {
        const these = preconditions[fault] ?? [];
        return [
          fault,
          {
            ...figure(these),
            exitCodes: these.map((r) => r.code),
            timeout,
            timeoutSeconds: seconds(Number(configSchema.properties[timeout]?.default ?? 0)),
          },
        ];
      }),
    ),
    ...(against
      ? {
          against: {
            commit: against.name,
            fullRun: {
              ...figure(fullRuns.get(against.name) ?? []),
              requests: median((fullRuns.get(against.name) ?? []).map((r) => r.requests)),
            },
            failingRun: figure(failingRuns.get(against.name) ?? []),
            npmTest: figure(npmTestRunsOf.get(against.name) ?? []),
            flavors: Object.fromEntries(
              FLAVOR_ROWS.flatMap((flavor) => {
                const these = flavorRunsOf[flavor]?.get(against.name) ?? [];
                return these.length ? [[flavor, figure(these)]] : [];
              }),
            ),
          },
        }
      : {}),
  };
  keepEarlierFigures(summary);
  mkdirSync(join(repoRoot, 'reports'), { recursive: true });
  writeFileSync(join(repoRoot, 'reports/bench.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const table = benchTable(summary);
  console.log(`\n${table}`);
  if (!cli.values['no-readme']) {
    replaceReadmeBlock('bench', table);
    replaceReadmeBlock('first-commands', firstCommands(summary));
    replaceReadmeBlock('package', packageTable(summary.package));
    console.log('written: reports/bench.json and the README tables');
  } else console.log('written: reports/bench.json');
}

/**
 * A measure asked for 0 runs keeps its figure from the last bench (reports/bench.json), so that one measure can be
 * taken again alone (`--runs 0 --slow-runs 0 --kill-runs 0 --npm-test-runs 0 --loaded-runs 5`) without erasing the
 * others from the README's table.
 */
function keepEarlierFigures(summary: Summary): void {
  let earlier: Partial<Summary>;
  try {
    earlier = JSON.parse(readFileSync(join(repoRoot, 'reports/bench.json'), 'utf8')) as Partial<Summary>;
  } catch {
    return;
  }
  const measures = [
    'floor',
    'fullRun',
    'oneTest',
    'failingRun',
    'doctor',
    'slowTarget',
    'farTarget',
    'proofRun',
    'npmTest',
    'npmTestUnderLoad',
    'npmCi',
    'runtimeSelftest',
    'package',
    'flavors',
    'preconditions',
  ] as const;
  const slots = summary as unknown as Record<(typeof measures)[number], unknown>;
  for (const measure of measures)
    if (runsIn(summary[measure]) === 0 && earlier[measure]) slots[measure] = earlier[measure];
  // Another commit's figures stand beside this one's full run, failing run and npm test: kept while those are.
  const sideBySide = ['fullRun', 'failingRun', 'npmTest'] as const;
  if (!summary.against && earlier.against && sideBySide.every((measure) => runsIn(summary[measure]) === 0))
    summary.against = earlier.against;
  if (measures.every((measure) => runsIn(summary[measure]) === 0) && earlier.measuredAt && earlier.machine)
    Object.assign(summary, { measuredAt: earlier.measuredAt, machine: earlier.machine });
}

/** How many runs a measure's figures hold, the figures nested in it included (one test by node and by npx). */
function runsIn(value: object): number {
  if ('runs' in value) return Number(value.runs);
  return Object.values(value).reduce(
    (sum: number, inner: unknown) => sum + (inner && typeof inner === 'object' ? runsIn(inner) : 0),
    0,
  );
}

/**
 * Runs `measure` while full conformance runs against the embedded sandbox follow one another in the background: the
 * self-tests must stay green on a busy machine.
 */
async function underLoad<T>(measure: () => Promise<T[]>): Promise<{ results: T[]; loadRuns: number }> {
  if (loadedRuns === 0) return { results: [], loadRuns: 0 };
  let stop = false;
  let loadRuns = 0;
  const load = (async () => {
    while (!stop) {
      const scratch = mkdtempSync(join(tmpdir(), 'bench-load-'));
      await timed(`node ${playwrightCli} test`, { ...(await embeddedPorts()), ...scratchRunEnv(scratch) });
      rmSync(scratch, { recursive: true, force: true });
      loadRuns += 1;
    }
  })();
  try {
    return { results: await measure(), loadRuns };
  } finally {
    stop = true;
    await load;
  }
}

type Figure = ReturnType<typeof figure>;
interface Summary {
  measuredAt: string;
  machine: { cpus: number; node: string };
  floor: { oneTest: Figure; suite: Figure & { tests: number } };
  fullRun: Figure & { requests: number; tokensFetched: number; plainFetchLoopSeconds: number };
  oneTest: { node: Figure; npx: Figure };
  failingRun: Figure & { faults: string };
  doctor: Figure;
  slowTarget: { latencyMs: number; sequentialSeconds: number; twoWorkers: Figure; chosenWorkers?: Figure };
  /** Against the far flavor: the run, and the latest awaited event's delay it had to wait for (medians). */
  farTarget: Figure & { latestEventDelaySeconds: number; longestWaitLagMs: number };
  proofRun: Figure;
  npmTest: Figure & { exitCodes: Array<number | null> };
  npmTestUnderLoad: Figure & { exitCodes: Array<number | null>; loadRuns: number };
  npmCi: Figure;
  runtimeSelftest: Figure;
  /** The packed package installed into an empty folder, against the clone's npm ci (tools/bench-package.ts). */
  package: PackageMeasure;
  /** Each correct flavor without a rate limit, embedded, events at once; the most waits of a run that ended on a window. */
  flavors: Record<string, Figure & { windowEnds: number }>;
  /** Each fault that breaks a shared precondition, at default timeouts, with the timeout it touches. */
  preconditions: Record<string, Figure & { exitCodes: Array<number | null>; timeout: string; timeoutSeconds: number }>;
  /** The same measures of another commit, by turns with these (--against). */
  against?: {
    commit: string;
    fullRun: Figure & { requests: number };
    failingRun: Figure;
    npmTest: Figure;
    flavors: Record<string, Figure>;
  };
}

/** The README's first lines: how long each of the two commands takes, from the same figures. */
function firstCommands(s: Summary): string {
  const took = (f: Figure) => (f.runs === 0 ? 'not measured' : `${f.medianSeconds} s`);
  return [
    `On a ${s.machine.cpus}-core machine, Node ${s.machine.node} (\`npm run bench\`, ${s.measuredAt.slice(0, 10)}, medians): \`npm ci\` ${took(s.npmCi)}`,
    `(npm's cache warm, ${s.npmCi.runs} runs), \`npm run conformance\` ${took(s.fullRun)} (${s.fullRun.runs} runs), \`npm test\` ${took(s.npmTest)}`,
    `(${s.npmTest.runs} runs). The full table is under [How the suite proves itself](#how-the-suite-proves-itself-npm-test).`,
  ].join('\n');
}

function benchTable(s: Summary): string {
  const cell = (f: Figure | undefined) =>
    !f || f.runs === 0 ? 'not measured' : `${f.medianSeconds} s (${f.medianCpuSeconds} CPU-s)`;
  const other = s.against;
  // With another commit measured by turns, its figure stands in a column of its own beside this one's.
  const row = (measure: string, median: string, target: string, theirs?: string) =>
    other ? `| ${measure} | ${median} | ${theirs ?? ''} | ${target} |` : `| ${measure} | ${median} | ${target} |`;
  const reference = s.flavors['reference'];
  const ratio = (f: Figure) =>
    reference && reference.runs > 0 && f.runs > 0
      ? ` (×${(f.medianSeconds / reference.medianSeconds).toFixed(2)})`
      : '';
  return [
    `Measured ${s.measuredAt.slice(0, 10)} on a ${s.machine.cpus}-core machine, Node ${s.machine.node} by \`npm run bench\` (\`reports/bench.json\`; medians of whole processes, wall time and CPU time of every process${other ? `; the commit ${other.commit} measured by turns with this one` : ''}):`,
    '',
    other ? `| Measure | Median | ${other.commit} | Target |` : '| Measure | Median | Target |',
    other ? '|---|---|---|---|' : '|---|---|---|',
    row(
      `Full conformance run against the sandbox, every reporter on (${s.fullRun.runs} runs)`,
      cell(s.fullRun),
      '6 s',
      other && cell(other.fullRun),
    ),
    row(
      `Its floor, Playwright alone: the suite's ${projectNames.length} projects and ${s.floor.suite.tests} tests, each empty, on the base test the suite uses, 2 workers (${s.floor.suite.runs} runs)`,
      cell(s.floor.suite),
      '',
    ),
    row(
      `One trivial test with the embedded sandbox and every reporter: the fixed cost (\`node …/cli.js test\`, ${s.oneTest.node.runs} runs)`,
      cell(s.oneTest.node),
      '1.5 s',
    ),
    row(`The same through \`npx playwright test\` (npx's own start included)`, cell(s.oneTest.npx), ''),
    row(
      `Its floor, Playwright alone: one empty test, TypeScript in a package like this one (${s.floor.oneTest.runs} runs)`,
      cell(s.floor.oneTest),
      '',
    ),
    row(
      `A failing run: the full suite against faults \`${s.failingRun.faults}\` (${s.failingRun.runs} runs)`,
      cell(s.failingRun),
      '',
      other && cell(other.failingRun),
    ),
    ...Object.entries(s.flavors).map(([flavor, f]) =>
      row(
        `The full run against the embedded \`${flavor}\` flavor, events at once (${f.runs} runs): time against the reference's, and waits that ended on their window`,
        f.runs === 0 ? 'not measured' : `${cell(f)}${ratio(f)}; ${f.windowEnds} on a window`,
        flavor === 'reference'
          ? 'none on a window'
          : flavor === TRAILING
            ? `≤ the reference + ${(5 * defaultReadLagMs) / 1000} s (five lags), none on a window`
            : '≤ ×1.25, none on a window',
        other && (other.flavors[flavor] ? cell(other.flavors[flavor]) : 'no such flavor'),
      ),
    ),
    ...Object.entries(s.preconditions).map(([fault, f]) =>
      row(
        `A run against \`${fault}\`, a broken precondition the checks share, default timeouts (${f.runs} runs, exit ${f.exitCodes.join(', ') || '—'})`,
        cell(f),
        s.failingRun.runs > 0
          ? `≤ ${(s.failingRun.medianSeconds + f.timeoutSeconds).toFixed(1)} s: the failing run + ${f.timeout} (${f.timeoutSeconds} s) once`
          : `the failing run + ${f.timeout} once`,
      ),
    ),
    row(
      `\`npm run doctor\` against the embedded sandbox: hosts, tokens, every route, the webhook path (\`node --import tsx\`, ${s.doctor.runs} runs)`,
      cell(s.doctor),
      '',
    ),
    row(
      `Slow target, every answer ${s.slowTarget.latencyMs} ms late, workers chosen from the round trip (the default; ${s.slowTarget.chosenWorkers?.runs ?? 0} runs)`,
      cell(s.slowTarget.chosenWorkers),
      '',
    ),
    row(
      `The same with \`CONFORMANCE_WORKERS=2\` (${s.slowTarget.twoWorkers.runs} runs)`,
      cell(s.slowTarget.twoWorkers),
      '',
    ),
    row(
      `Its requests one after the other at ${s.slowTarget.latencyMs} ms each`,
      `${s.slowTarget.sequentialSeconds} s`,
      '',
    ),
    ...(s.farTarget.runs > 0
      ? [
          row(
            `Far target: HTTPS through its own CA (only \`TLS_CA_FILE\` set), every answer 150 ms late, events 6 to 9 s late, out of order, some twice; workers chosen from the round trip (${s.farTarget.runs} runs)`,
            cell(s.farTarget),
            `≤ ${(3 * s.fullRun.medianSeconds + s.farTarget.latestEventDelaySeconds).toFixed(1)} s: 3 × the full run + the latest awaited event's delay (${s.farTarget.latestEventDelaySeconds} s)`,
          ),
          row(
            `Its event waits: how long after the last event it awaited each flow's wait ended, at most (a counted step-up awaits the events of every step-up beside it)`,
            `${s.farTarget.longestWaitLagMs} ms`,
            '≤ 1000 ms',
          ),
        ]
      : []),
    row(
      `Requests per run / tokens fetched / the same requests in a plain \`fetch\` loop`,
      `${s.fullRun.requests} / ${s.fullRun.tokensFetched} / ${s.fullRun.plainFetchLoopSeconds} s`,
      '',
      other && `${other.fullRun.requests} requests`,
    ),
    row(`Proof run: clean, portability and kill matrix (${s.proofRun.runs} runs)`, cell(s.proofRun), ''),
    row(
      `\`npm test\` (${s.npmTest.runs} runs, exit ${s.npmTest.exitCodes.join(', ') || '—'})`,
      cell(s.npmTest),
      '180 s',
      other && cell(other.npmTest),
    ),
    row(
      `\`npm test\` in a row while full conformance runs load the machine (${s.npmTestUnderLoad.runs} runs alongside ${s.npmTestUnderLoad.loadRuns} conformance runs, exit ${s.npmTestUnderLoad.exitCodes.join(', ') || '—'})`,
      cell(s.npmTestUnderLoad),
      'green',
    ),
    row(`\`npm ci\` from package.json and the lock file, npm's cache warm (${s.npmCi.runs} runs)`, cell(s.npmCi), ''),
    row(
      `The runtime self-test alone, part of \`npm test\`: a command of ours and a small conformance run on each other Node line (Node 22 of \`package.json\`, the system's Node) (${s.runtimeSelftest.runs} runs)`,
      cell(s.runtimeSelftest),
      '',
    ),
  ].join('\n');
}

await main();
