import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox, type ReceivedRequest } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { freePorts } from '../selftest/proof/plan.ts';

// npm run bench: wall time of a full conformance run against the sandbox and of the kill matrix (median of
// BENCH_RUNS runs each, default 3), the requests and tokens a run sends, and the ratio of the run's time to a plain
// sequential fetch loop of the same requests, which shows the harness's overhead. Figures, not assertions: the
// machines are shared and noisy, so read medians and ratios.
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

async function conformanceRun() {
  const requests: ReceivedRequest[] = [];
  const tokenSecret = randomBytes(16).toString('hex');
  const [webhookPort] = await freePorts(1);
  const sandbox = await startSandbox({ tokenSecret, webhookUrl: `http://127.0.0.1:${webhookPort}/webhooks`, onRequest: (r) => requests.push(r) });
  const scratch = mkdtempSync(join(tmpdir(), 'bench-'));
  try {
    const env = {
      ...sandboxTargetEnv({ url: sandbox.url, flavor: 'reference', tokenSecret }),
      WEBHOOK_LISTEN: `127.0.0.1:${webhookPort}`,
      REPORTS_DIR: join(scratch, 'reports'),
      TEST_RESULTS_DIR: join(scratch, 'test-results'),
      ALLURE_RESULTS_DIR: join(scratch, 'allure-results'),
      CONFORMANCE_QUIET: '1',
      CI: '',
    };
    // The configured reporters stay on (matrix, JUnit, Allure): the figure is the run as users get it.
    const result = await run('npx', ['playwright', 'test'], env);
    if (result.code !== 0) throw new Error(`The conformance run failed (exit ${result.code}):\n${result.output.slice(-2000)}`);
    const suiteRequests = [...requests];
    const loopMs = await plainLoop(sandbox.url, suiteRequests);
    return {
      ms: result.ms,
      requests: suiteRequests.length,
      tokens: suiteRequests.filter((r) => r.url.split('?')[0]?.endsWith('/v1/token')).length,
      loopMs,
      webhookDeliveries: sandbox.deliveries,
    };
  } finally {
    await sandbox.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function main() {
  console.log(`bench: ${runs} conformance run(s), ${killRuns} kill-matrix run(s)`);
  const conformance = [];
  for (let i = 0; i < runs; i += 1) {
    const one = await conformanceRun();
    console.log(`  conformance run ${i + 1}: ${(one.ms / 1000).toFixed(2)} s, ${one.requests} requests (${one.tokens} to token endpoints), plain fetch loop ${(one.loopMs / 1000).toFixed(2)} s`);
    conformance.push(one);
  }
  const kill = [];
  for (let i = 0; i < killRuns; i += 1) {
    const one = await run('npx', ['playwright', 'test', '-c', 'selftest/playwright.config.ts', 'selftest/proof.spec.ts', '--reporter=dot', '--output', join(tmpdir(), `bench-proof-${i}`)], {
      SELFTEST_RUN_ID: `bench-${Date.now()}-${i}`,
      CI: '',
    });
    if (one.code !== 0) console.log(`  kill matrix run ${i + 1} did not pass (exit ${one.code}); timing kept`);
    console.log(`  kill matrix run ${i + 1}: ${(one.ms / 1000).toFixed(2)} s`);
    kill.push(one.ms);
  }
  const summary = {
    measuredAt: new Date().toISOString(),
    machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
    conformanceRun: {
      runs,
      medianSeconds: +(median(conformance.map((c) => c.ms)) / 1000).toFixed(2),
      requests: median(conformance.map((c) => c.requests)),
      tokensFetched: median(conformance.map((c) => c.tokens)),
      plainFetchLoopMedianSeconds: +(median(conformance.map((c) => c.loopMs)) / 1000).toFixed(2),
      ratioToPlainLoop: +median(conformance.map((c) => c.ms / c.loopMs)).toFixed(1),
    },
    killMatrix: killRuns > 0 ? { runs: killRuns, medianSeconds: +(median(kill) / 1000).toFixed(1) } : 'not measured (BENCH_KILL_RUNS=0)',
  };
  mkdirSync(join(repoRoot, 'reports'), { recursive: true });
  writeFileSync(join(repoRoot, 'reports/bench.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const c = summary.conformanceRun;
  console.log(`\n| Measure | Median |\n|---|---|`);
  console.log(`| Full conformance run against the sandbox (${c.runs} runs) | ${c.medianSeconds} s |`);
  console.log(`| Requests sent per run / tokens fetched | ${c.requests} / ${c.tokensFetched} |`);
  console.log(`| Same requests in a plain sequential fetch loop | ${c.plainFetchLoopMedianSeconds} s |`);
  console.log(`| Ratio run / plain loop | ${c.ratioToPlainLoop}x |`);
  if (typeof summary.killMatrix === 'object') {
    console.log(`| Kill matrix with clean and portability runs (${killRuns} runs) | ${summary.killMatrix.medianSeconds} s |`);
  }
  console.log('\nwritten: reports/bench.json');
}

await main();
