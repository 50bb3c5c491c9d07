import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { ConfigError } from './runner/config/load-config.ts';
import { conformanceProjects } from './runner/config/projects.ts';
import { resolveConfig, type ResolvedConfig } from './runner/config/resolve.ts';
import { decideWorkers, inheritedWorkers } from './runner/config/run-workers.ts';
import { workersLine } from './runner/config/worker-count.ts';
import type { WorkerFixtures } from './fixtures/test.ts';
import { serializeRedacted } from './reporters/serialize-redacted.ts';

const repoRoot = fileURLToPath(new URL('.', import.meta.url));
const isMainProcess = process.env.TEST_WORKER_INDEX === undefined;

async function resolveOrExit(): Promise<ResolvedConfig> {
  try {
    return resolveConfig(process.env, repoRoot);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    // The run's reports say it did not run, and why, in place of an earlier run's verdict.
    if (isMainProcess) (await import('./runner/run-reporters.ts')).endBeforeTests(error.problems);
    process.exit(2);
  }
}

const { config: suite, sandbox } = await resolveOrExit();
serializeRedacted(suite, suite.secrets);
const runReporters = isMainProcess ? await import('./runner/run-reporters.ts') : undefined;
// Every report the run will write says "not finished" until it ends: a crash leaves no earlier run's verdict behind.
runReporters?.startReports(suite);
// A listing runs no test: it needs no worker count, no sandbox, no run state and no reporters of a run.
const listing = process.argv.includes('--list');
// Playwright fixes the worker count here, before the global setup: the runner chooses it (from the target's round trip
// unless CONFORMANCE_WORKERS is set) and its workers, which load this file too, inherit the choice.
const workerChoice = isMainProcess && !listing ? await decideWorkers(suite) : undefined;
suite.workers = workerChoice?.workers ?? inheritedWorkers() ?? suite.workers;
if (isMainProcess && !process.env.CONFORMANCE_QUIET) {
  const target = sandbox ? `embedded sandbox at ${sandbox.url}` : suite.services.identity.baseUrl;
  console.log(
    `Conformance run: profile ${suite.profile}, seed ${suite.seed} (replay with SEED=${suite.seed}), target ${target}`,
  );
  if (workerChoice) console.log(workersLine(workerChoice));
}

// Started now, in the runner's process. The sandbox, the run's state and the reporters belong to the runner: workers,
// which load this file too, skip them.
if (sandbox && isMainProcess && !listing) {
  const [{ startEmbeddedSandbox }, { runState }] = await Promise.all([
    import('./runner/config/embedded-sandbox.ts'),
    import('./runner/run-state.ts'),
  ]);
  runState().sandbox = startEmbeddedSandbox(sandbox.env);
}
if (workerChoice) (await import('./reporters/run-facts.ts')).runFacts().workers = workerChoice;
const reporter = runReporters?.reportersFor(suite) ?? [];

export default defineConfig<object, WorkerFixtures>({
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  workers: suite.workers,
  retries: 0,
  // A test may wait out 429s for as long as the run's budget lasts (RATE_LIMIT_BUDGET_MS), and a webhook check's
  // step-up for its count (one event window), then, sent again alone, for its channel (another) and its event (a third):
  // runner/webhooks/step-up-flows.ts.
  timeout:
    30_000 +
    suite.http.timeoutMs * (suite.http.retries503 + 1) +
    suite.http.rateLimitBudgetMs +
    3 * suite.webhook.waitMs,
  outputDir: process.env.TEST_RESULTS_DIR ?? './test-results/conformance',
  reporter,
  use: { trace: 'off', screenshot: 'off', video: 'off' },
  projects: conformanceProjects(suite, './tests'),
  // The embedded sandbox listening, the run's token broker, then the preflight (runner/global-setup.ts).
  ...(isMainProcess && !listing ? { globalSetup: './runner/global-setup.ts' } : {}),
});
