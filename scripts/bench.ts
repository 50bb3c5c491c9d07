import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { projectLayout, projectNames } from '../runner/config/projects.ts';
import { DEFAULT_WORKERS } from '../runner/config/worker-count.ts';
import { defaultFarSettings } from '../sandbox/flavors/far.ts';
import { makeThrowawayPki } from '../sandbox/pki.ts';
import { startSandbox, type ReceivedRequest } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { listSuite } from './suite-listing.ts';
import { freePorts } from '../runner/http/free-port.ts';
import { countOption, parseCli } from './cli.ts';
import { replaceReadmeBlock } from './readme-block.ts';

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
      'runs of the runtime self-test alone (selftest/runtimes.spec.ts: a command of ours and a small run on each other Node line; default 1)',
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

// Figures, not assertions: the machines are shared and noisy, so the README shows medians of whole processes.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const playwrightCli = join(repoRoot, 'node_modules/@playwright/test/cli.js');
/** Each answer of the slow target comes this late. */
const SLOW_MS = 200;
/** A test that sends nothing (it records that the order update operation is not shown): what remains is fixed cost. */
const TRIVIAL_TEST = '@ORD-400-UPDATE-ORDER-ID';
/** A fault family whose checks fail on six operations: the failing run. */
const FAILING_FAULTS = 'json-as-text-plain';

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

/** Runs a command through bash, which reports the CPU time of everything the command started (`times`). */
function timed(command: string, env: Record<string, string | undefined>): Promise<Timed> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${command}; status=$?; times; exit $status`], {
      cwd: repoRoot,
      // eslint-disable-next-line no-restricted-properties -- the environment given to a child process
      env: { ...process.env, ...env },
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
}): Promise<TargetRun> {
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
    const result = await timed(`node ${playwrightCli} test`, env);
    if (result.code !== options.expectedExit)
      throw new Error(`The run exited ${result.code}, not ${options.expectedExit}:\n${result.output.slice(-2000)}`);
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

/** The fixed cost: one trivial test, with the embedded sandbox and every reporter, as node or npx starts it. */
async function oneTestRun(launcher: string) {
  const scratch = mkdtempSync(join(tmpdir(), 'bench-one-'));
  try {
    const [sandboxPort, webhookPort] = await freePorts(2);
    const env = {
      SANDBOX_PORT: String(sandboxPort),
      WEBHOOK_LISTEN: `127.0.0.1:${webhookPort}`,
      ...scratchRunEnv(scratch),
    };
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
  const [sandboxPort, webhookPort] = await freePorts(2);
  const result = await timed('node --import tsx scripts/doctor.ts', {
    SANDBOX_PORT: String(sandboxPort),
    WEBHOOK_LISTEN: `127.0.0.1:${webhookPort}`,
  });
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

/** `npm ci` as a fresh clone runs it: package.json and the lock file in an empty folder, npm's cache as it is. */
async function npmCiRun(): Promise<Timed> {
  const scratch = mkdtempSync(join(tmpdir(), 'bench-npm-ci-'));
  try {
    for (const file of ['package.json', 'package-lock.json'])
      writeFileSync(join(scratch, file), readFileSync(join(repoRoot, file)));
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
  console.log(
    `bench: ${runs} run(s) of each fast measure, ${slowRuns} slow-target run(s), ${killRuns} proof run(s), ${npmTestRuns} npm test run(s)`,
  );
  const floor = await floorRuns(runs);
  const full = await repeat(
    'full run',
    runs,
    () => runAgainstSandbox({ expectedExit: 0, loop: true }),
    (one) => `${line(one)}, ${one.requests} requests, plain fetch loop ${seconds(one.loopMs ?? 0)} s`,
  );
  const oneNode = await repeat('one test (node)', runs, () => oneTestRun(`node ${playwrightCli}`), line);
  const oneNpx = await repeat('one test (npx)', runs, () => oneTestRun('npx playwright'), line);
  const doctor = await repeat('doctor', runs, doctorRun, line);
  const failing = await repeat(
    'failing run',
    runs,
    () => runAgainstSandbox({ faults: FAILING_FAULTS, expectedExit: 1 }),
    line,
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
  const npmTest = await repeat(
    'npm test',
    npmTestRuns,
    () => timed('npm test', { CI: '' }),
    (one) => `${line(one)} (exit ${one.code})${keptFailure('npm test', one)}`,
  );
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
  };
  keepEarlierFigures(summary);
  mkdirSync(join(repoRoot, 'reports'), { recursive: true });
  writeFileSync(join(repoRoot, 'reports/bench.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const table = benchTable(summary);
  console.log(`\n${table}`);
  if (!cli.values['no-readme']) {
    replaceReadmeBlock('bench', table);
    replaceReadmeBlock('first-commands', firstCommands(summary));
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
  ] as const;
  const slots = summary as unknown as Record<(typeof measures)[number], unknown>;
  for (const measure of measures)
    if (runsIn(summary[measure]) === 0 && earlier[measure]) slots[measure] = earlier[measure];
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
      const [sandboxPort, webhookPort] = await freePorts(2);
      await timed(`node ${playwrightCli} test`, {
        SANDBOX_PORT: String(sandboxPort),
        WEBHOOK_LISTEN: `127.0.0.1:${webhookPort}`,
        ...scratchRunEnv(scratch),
      });
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
  const cell = (f: Figure) => (f.runs === 0 ? 'not measured' : `${f.medianSeconds} s (${f.medianCpuSeconds} CPU-s)`);
  return [
    `Measured ${s.measuredAt.slice(0, 10)} on a ${s.machine.cpus}-core machine, Node ${s.machine.node} by \`npm run bench\` (\`reports/bench.json\`; medians of whole processes, wall time and CPU time of every process):`,
    '',
    '| Measure | Median | Target |',
    '|---|---|---|',
    `| Full conformance run against the sandbox, every reporter on (${s.fullRun.runs} runs) | ${cell(s.fullRun)} | 6 s |`,
    `| Its floor, Playwright alone: the suite's six projects and ${s.floor.suite.tests} tests, each empty, on the base test the suite uses, 2 workers (${s.floor.suite.runs} runs) | ${cell(s.floor.suite)} | |`,
    `| One trivial test with the embedded sandbox and every reporter: the fixed cost (\`node …/cli.js test\`, ${s.oneTest.node.runs} runs) | ${cell(s.oneTest.node)} | 1.5 s |`,
    `| The same through \`npx playwright test\` (npx's own start included) | ${cell(s.oneTest.npx)} | |`,
    `| Its floor, Playwright alone: one empty test, TypeScript in a package like this one (${s.floor.oneTest.runs} runs) | ${cell(s.floor.oneTest)} | |`,
    `| A failing run: the full suite against faults \`${s.failingRun.faults}\` (${s.failingRun.runs} runs) | ${cell(s.failingRun)} | |`,
    `| \`npm run doctor\` against the embedded sandbox: hosts, tokens, every route, the webhook path (\`node --import tsx\`, ${s.doctor.runs} runs) | ${cell(s.doctor)} | |`,
    `| Slow target, every answer ${s.slowTarget.latencyMs} ms late, workers chosen from the round trip (the default; ${s.slowTarget.chosenWorkers?.runs ?? 0} runs) | ${s.slowTarget.chosenWorkers ? cell(s.slowTarget.chosenWorkers) : 'not measured'} | |`,
    `| The same with \`CONFORMANCE_WORKERS=2\` (${s.slowTarget.twoWorkers.runs} runs) | ${cell(s.slowTarget.twoWorkers)} | |`,
    `| Its requests one after the other at ${s.slowTarget.latencyMs} ms each | ${s.slowTarget.sequentialSeconds} s | |`,
    ...(s.farTarget.runs > 0
      ? [
          `| Far target: HTTPS through its own CA (only \`TLS_CA_FILE\` set), every answer 150 ms late, events 6 to 9 s late, out of order, some twice; workers chosen from the round trip (${s.farTarget.runs} runs) | ${cell(s.farTarget)} | ≤ ${(3 * s.fullRun.medianSeconds + s.farTarget.latestEventDelaySeconds).toFixed(1)} s: 3 × the full run + the latest awaited event's delay (${s.farTarget.latestEventDelaySeconds} s) |`,
          `| Its event waits: how long after the last event it awaited each flow's wait ended, at most (a counted step-up awaits the events of every step-up beside it) | ${s.farTarget.longestWaitLagMs} ms | ≤ 1000 ms |`,
        ]
      : []),
    `| Requests per run / tokens fetched / the same requests in a plain \`fetch\` loop | ${s.fullRun.requests} / ${s.fullRun.tokensFetched} / ${s.fullRun.plainFetchLoopSeconds} s | |`,
    `| Proof run: clean, portability and kill matrix (${s.proofRun.runs} runs) | ${cell(s.proofRun)} | |`,
    `| \`npm test\` (${s.npmTest.runs} runs, exit ${s.npmTest.exitCodes.join(', ') || '—'}) | ${cell(s.npmTest)} | 180 s |`,
    `| \`npm test\` in a row while full conformance runs load the machine (${s.npmTestUnderLoad.runs} runs alongside ${s.npmTestUnderLoad.loadRuns} conformance runs, exit ${s.npmTestUnderLoad.exitCodes.join(', ') || '—'}) | ${cell(s.npmTestUnderLoad)} | green |`,
    `| \`npm ci\` from package.json and the lock file, npm's cache warm (${s.npmCi.runs} runs) | ${cell(s.npmCi)} | |`,
    `| The runtime self-test alone, part of \`npm test\`: a command of ours and a small conformance run on each Node line of \`package.json\`'s \`optionalDependencies\` (${s.runtimeSelftest.runs} runs) | ${cell(s.runtimeSelftest)} | |`,
  ].join('\n');
}

await main();
