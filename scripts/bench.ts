import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox, type ReceivedRequest } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { freePorts } from '../selftest/proof/plan.ts';
import { replaceReadmeBlock } from './readme-block.ts';

// npm run bench: wall and CPU time of a full conformance run against the sandbox, of a run of one trivial test (the
// fixed cost) and of the kill matrix (median of BENCH_RUNS runs each, default 3; BENCH_KILL_RUNS for the kill
// matrix; BENCH_NPM_TEST_RUNS, default 0, times `npm test`), the requests and tokens a run sends, and the ratio to a
// plain fetch loop of the same requests. Writes reports/bench.json and the README's table (BENCH_README=0: not the
// README). Figures, not assertions: the machines are shared and noisy, so read medians.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 3);
const killRuns = Number(process.env.BENCH_KILL_RUNS ?? runs);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

function run(command: string, args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; ms: number; output: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ms: performance.now() - started, output }));
  });
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
    const answer = await fetch(`${origin}${request.url}`, { method: request.method, headers, ...(hasBody ? { body: request.body } : {}) });
    await answer.arrayBuffer();
  }
  return performance.now() - started;
}

/** Runs a command through bash, which reports the CPU time of everything the command started (`times`). */
async function timed(command: string, env: Record<string, string | undefined>) {
  const result = await run('bash', ['-c', `${command}; status=$?; times; exit $status`], env);
  const children = result.output.trim().split('\n').at(-1) ?? '';
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
  return { ...result, cpuSeconds: seconds };
}

/** A run's outputs in a scratch folder, quiet, with the local reporters. */
function scratchRunEnv(scratch: string): Record<string, string> {
  return { REPORTS_DIR: join(scratch, 'reports'), TEST_RESULTS_DIR: join(scratch, 'test-results'), ALLURE_RESULTS_DIR: join(scratch, 'allure-results'), CONFORMANCE_QUIET: '1', CI: '' };
}

async function conformanceRun() {
  const requests: ReceivedRequest[] = [];
  const tokenSecret = randomBytes(16).toString('hex');
  const [webhookPort] = await freePorts(1);
  const sandbox = await startSandbox({ tokenSecret, webhookUrl: `http://127.0.0.1:${webhookPort}/webhooks`, onRequest: (r) => requests.push(r) });
  const scratch = mkdtempSync(join(tmpdir(), 'bench-'));
  try {
    const env = { ...sandboxTargetEnv({ url: sandbox.url, flavor: 'reference', tokenSecret }), WEBHOOK_LISTEN: `127.0.0.1:${webhookPort}`, WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${webhookPort}/webhooks`, ...scratchRunEnv(scratch) };
    // The configured reporters stay on (list, JUnit, JSON, Allure, matrix): the figure is the run as users get it.
    const result = await timed('npx playwright test', env);
    if (result.code !== 0) throw new Error(`The conformance run failed (exit ${result.code}):\n${result.output.slice(-2000)}`);
    const suiteRequests = [...requests];
    const loopMs = await plainLoop(sandbox.url, suiteRequests);
    return {
      ms: result.ms,
      cpuSeconds: result.cpuSeconds,
      requests: suiteRequests.length,
      tokens: suiteRequests.filter((r) => r.url.split('?')[0]?.endsWith('/v1/token')).length,
      loopMs,
    };
  } finally {
    await sandbox.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The fixed cost: one trivial test, with the embedded sandbox and every reporter, as `npx playwright test` runs it. */
async function fixedCostRun() {
  const scratch = mkdtempSync(join(tmpdir(), 'bench-fixed-'));
  try {
    const [sandboxPort, webhookPort] = await freePorts(2);
    const env = { SANDBOX_PORT: String(sandboxPort), WEBHOOK_LISTEN: `127.0.0.1:${webhookPort}`, ...scratchRunEnv(scratch) };
    const result = await timed(`npx playwright test --project orders --grep ${TRIVIAL_TEST}`, env);
    if (result.code !== 0) throw new Error(`The one-test run failed (exit ${result.code}):\n${result.output.slice(-2000)}`);
    return result;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A test that sends nothing (it records that the order update operation is not shown): what remains is fixed cost. */
const TRIVIAL_TEST = '@ORD-400-UPDATE-ORDER-ID';
const npmTestRuns = Number(process.env.BENCH_NPM_TEST_RUNS ?? 0);
const seconds = (ms: number) => +(ms / 1000).toFixed(2);

async function main() {
  console.log(`bench: ${runs} conformance run(s), ${runs} one-test run(s), ${killRuns} kill-matrix run(s), ${npmTestRuns} npm test run(s)`);
  const conformance = [];
  for (let i = 0; i < runs; i += 1) {
    const one = await conformanceRun();
    console.log(`  conformance run ${i + 1}: ${seconds(one.ms)} s, ${one.cpuSeconds.toFixed(1)} CPU-s, ${one.requests} requests (${one.tokens} to token endpoints), plain fetch loop ${seconds(one.loopMs)} s`);
    conformance.push(one);
  }
  const fixed = [];
  for (let i = 0; i < runs; i += 1) {
    const one = await fixedCostRun();
    console.log(`  one-test run ${i + 1}: ${seconds(one.ms)} s, ${one.cpuSeconds.toFixed(1)} CPU-s`);
    fixed.push(one);
  }
  const kill = [];
  for (let i = 0; i < killRuns; i += 1) {
    const one = await run('npx', ['playwright', 'test', '-c', 'selftest/playwright.config.ts', 'selftest/proof.spec.ts', '--reporter=dot', '--output', join(tmpdir(), `bench-proof-${i}`)], {
      SELFTEST_RUN_ID: `bench-${Date.now()}-${i}`,
      CI: '',
    });
    if (one.code !== 0) console.log(`  kill matrix run ${i + 1} did not pass (exit ${one.code}); timing kept`);
    console.log(`  kill matrix run ${i + 1}: ${seconds(one.ms)} s`);
    kill.push(one.ms);
  }
  const npmTest = [];
  for (let i = 0; i < npmTestRuns; i += 1) {
    const one = await run('npm', ['test'], { CI: '' });
    console.log(`  npm test run ${i + 1}: ${seconds(one.ms)} s (exit ${one.code})`);
    npmTest.push(one.ms);
  }
  const summary = {
    measuredAt: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version },
    conformanceRun: {
      runs,
      medianSeconds: seconds(median(conformance.map((c) => c.ms))),
      medianCpuSeconds: +median(conformance.map((c) => c.cpuSeconds)).toFixed(1),
      requests: median(conformance.map((c) => c.requests)),
      tokensFetched: median(conformance.map((c) => c.tokens)),
      plainFetchLoopMedianSeconds: seconds(median(conformance.map((c) => c.loopMs))),
      ratioToPlainLoop: +median(conformance.map((c) => c.ms / c.loopMs)).toFixed(1),
    },
    oneTestRun: { runs, medianSeconds: seconds(median(fixed.map((f) => f.ms))), medianCpuSeconds: +median(fixed.map((f) => f.cpuSeconds)).toFixed(1) },
    killMatrix: killRuns > 0 ? { runs: killRuns, medianSeconds: +(median(kill) / 1000).toFixed(1) } : 'not measured (BENCH_KILL_RUNS=0)',
    npmTest: npmTestRuns > 0 ? { runs: npmTestRuns, medianSeconds: +(median(npmTest) / 1000).toFixed(1) } : 'not measured (BENCH_NPM_TEST_RUNS=0)',
  };
  mkdirSync(join(repoRoot, 'reports'), { recursive: true });
  writeFileSync(join(repoRoot, 'reports/bench.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const table = benchTable(summary);
  console.log(`\n${table}`);
  if (process.env.BENCH_README !== '0') {
    replaceReadmeBlock('bench', table);
    console.log('written: reports/bench.json and the README table');
  } else console.log('written: reports/bench.json');
}

type Summary = {
  measuredAt: string;
  machine: { cpus: number; node: string };
  conformanceRun: { runs: number; medianSeconds: number; medianCpuSeconds: number; requests: number; tokensFetched: number; plainFetchLoopMedianSeconds: number; ratioToPlainLoop: number };
  oneTestRun: { runs: number; medianSeconds: number; medianCpuSeconds: number };
  killMatrix: { runs: number; medianSeconds: number } | string;
  npmTest: { runs: number; medianSeconds: number } | string;
};

function benchTable(s: Summary): string {
  const c = s.conformanceRun;
  return [
    `Measured ${s.measuredAt.slice(0, 10)} on a ${s.machine.cpus}-core machine, Node ${s.machine.node} (\`reports/bench.json\`, medians):`,
    '',
    '| Measure | Median | Target |',
    '|---|---|---|',
    `| Full conformance run against the sandbox, all reporters on (${c.runs} runs) | ${c.medianSeconds} s | 6 s |`,
    `| CPU time of that run (all processes) | ${c.medianCpuSeconds} CPU-s | 10 CPU-s |`,
    `| One trivial test with the embedded sandbox and every reporter: the fixed cost (${s.oneTestRun.runs} runs) | ${s.oneTestRun.medianSeconds} s (${s.oneTestRun.medianCpuSeconds} CPU-s) | 1.5 s |`,
    `| Requests sent per run / tokens fetched | ${c.requests} / ${c.tokensFetched} | |`,
    `| The same requests in a plain sequential \`fetch\` loop (ratio run / loop) | ${c.plainFetchLoopMedianSeconds} s (${c.ratioToPlainLoop}x) | |`,
    typeof s.killMatrix === 'object' ? `| Proof run: kill matrix with the clean and portability runs (${s.killMatrix.runs} runs) | ${s.killMatrix.medianSeconds} s | |` : `| Proof run | ${s.killMatrix} | |`,
    typeof s.npmTest === 'object' ? `| \`npm test\` (${s.npmTest.runs} runs) | ${s.npmTest.medianSeconds} s | 180 s |` : `| \`npm test\` | ${s.npmTest} | 180 s |`,
  ].join('\n');
}

await main();
