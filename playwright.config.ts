import { fileURLToPath } from 'node:url';
import { defineConfig, type PlaywrightTestConfig } from '@playwright/test';
import { ConfigError, type SuiteConfig } from './harness/config/load-config.ts';
import { spawnEmbeddedSandbox } from './harness/config/embedded-sandbox.ts';
import { runState } from './harness/run/run-state.ts';
import { resolveConfig, type ResolvedConfig } from './harness/config/resolve.ts';
import type { WorkerFixtures } from './fixtures/test.ts';
import { reportersFor } from './reporters/reporters.ts';
import { serializeRedacted } from './reporters/serialize-redacted.ts';

const repoRoot = fileURLToPath(new URL('.', import.meta.url));
const isMainProcess = process.env.TEST_WORKER_INDEX === undefined;

function resolveOrExit(): ResolvedConfig {
  try {
    return resolveConfig(process.env, repoRoot);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}

const { config: suite, sandbox } = resolveOrExit();
serializeRedacted(suite, suite.secrets);
if (isMainProcess && !process.env.CONFORMANCE_QUIET) {
  const target = sandbox ? `embedded sandbox at ${sandbox.url}` : suite.services.identity.baseUrl;
  console.log(`Conformance run: profile ${suite.profile}, seed ${suite.seed} (replay with SEED=${suite.seed}), target ${target}`);
}

// Started now, so that it boots while the runner collects the tests; a listing runs no test and needs none.
const listing = process.argv.includes('--list');
if (sandbox && isMainProcess && !listing) {
  runState().sandbox = spawnEmbeddedSandbox(repoRoot, sandbox.env);
}

// One worker per project: the projects run side by side, so that one project's worker boots (about a second of
// loading) while another project's tests run, and a run starts 6 workers instead of 10 (measured: npm run bench).
const project = (name: string, extra: Partial<NonNullable<PlaywrightTestConfig<object, WorkerFixtures>['projects']>[number]> = {}) => ({
  name,
  testDir: `./tests/${name}`,
  workers: 1,
  use: { config: suite } satisfies { config: SuiteConfig },
  ...extra,
});

export default defineConfig<object, WorkerFixtures>({
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  workers: process.env.CONFORMANCE_WORKERS ? Number(process.env.CONFORMANCE_WORKERS) : 2,
  retries: 0,
  // A test may wait out 429s for as long as the run's budget lasts (RATE_LIMIT_BUDGET_MS).
  timeout: 30_000 + suite.http.timeoutMs * (suite.http.retries503 + 1) + suite.http.rateLimitBudgetMs,
  outputDir: process.env.TEST_RESULTS_DIR ?? './test-results/conformance',
  reporter: reportersFor(suite),
  use: { trace: 'off', screenshot: 'off', video: 'off' },
  projects: [
    // First, because its flows mostly wait for deliveries: the other projects' tests run meanwhile. Its files run in
    // order on its one worker (the webhook receiver listens on one configured address).
    project('webhooks', { fullyParallel: false }),
    project('auth'),
    project('identity'),
    project('stepup'),
    project('orders'),
    project('reseller'),
  ],
  // The embedded sandbox listening, the run's token broker, then the preflight (harness/run/global-setup.ts).
  ...(isMainProcess && !listing ? { globalSetup: './harness/run/global-setup.ts' } : {}),
});
