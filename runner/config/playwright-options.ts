import { resolve } from 'node:path';
import type { PlaywrightTestConfig } from '@playwright/test';
import { serializeRedacted } from '../../reporters/serialize-redacted.ts';
import { conformanceProjects } from './projects.ts';
import { embeddedReadLagMs, type RunConfig } from './run-config.ts';

/**
 * What playwright.config.ts gives Playwright for a run, the same in the runner and in every worker: it follows from the
 * run's configuration alone. The reporters and the global setup, which only the runner has, are added there.
 */
export function playwrightOptions(run: RunConfig, testsDir: string) {
  const { suite } = run;
  // The JSON reporter writes every project's `use`, the suite configuration with its API keys, into results.json.
  const shown = serializeRedacted({ ...suite }, suite.secrets);
  return {
    fullyParallel: true,
    forbidOnly: run.console.ci,
    workers: suite.workers,
    // No profile retries a test: a failure seen once stands, and a test that passed on a second try would hide a MUST
    // failure from the verdict. A flaky target's 503s are retried per request (HTTP_503_RETRIES) under every profile.
    retries: 0,
    // A test may wait out 429s for as long as the run's budget lasts (RATE_LIMIT_BUDGET_MS), and a webhook check's
    // step-up for its count (one event window), then, sent again alone, for its channel (another) and its event (a
    // third): runner/webhooks/step-up-flows.ts.
    timeout:
      30_000 +
      suite.http.timeoutMs * (suite.http.retries503 + 1) +
      suite.http.rateLimitBudgetMs +
      3 * suite.webhook.waitMs,
    // Absolute: Playwright reads a relative one from the configuration's folder, the installed package's.
    outputDir: resolve(run.reports.testResultsDir),
    use: { trace: 'off', screenshot: 'off', video: 'off' },
    projects: conformanceProjects(shown, testsDir, embeddedReadLagMs(run.sandbox) !== undefined),
  } satisfies PlaywrightTestConfig<object, { config: typeof suite }>;
}
