import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReporterDescription } from '@playwright/test';
import type { SuiteConfig } from '../kit/config/suite-config.ts';
import { Redactor } from '../kit/redact.ts';
import type { ConformanceAllureOptions } from '../reporters/allure-reporter.ts';
import type { ConformanceReporterOptions } from '../reporters/conformance-reporter.ts';
import { isListingOnly } from '../reporters/listing.ts';
import { runEnvironment } from '../reporters/run-environment.ts';

type Env = Record<string, string | undefined>;

/**
 * Where a run's Allure results go: ALLURE_RESULTS_DIR, else next to the other reports when REPORTS_DIR moves them
 * (so that parallel runs never clear each other's results), else allure-results/.
 */
export function allureResultsDir(env: Env = process.env): string {
  return env.ALLURE_RESULTS_DIR ?? (env.REPORTS_DIR ? join(env.REPORTS_DIR, 'allure-results') : 'allure-results');
}

/**
 * The reporters of a conformance run; REPORTS_DIR moves all of their files (the kill matrix gives each run its own).
 * A shard (CONFORMANCE_SHARD=1, with --shard=i/n) writes only a blob report; `npm run merge-reports` then runs the
 * reporters below over all shards' blobs (scripts/merge.config.ts), and exits as one run would.
 */
export function reportersFor(suite: SuiteConfig, env: Env = process.env): ReporterDescription[] {
  if (isListingOnly()) return [[fileURLToPath(new URL('../reporters/listing-reporter.ts', import.meta.url))]];
  // Run in the runner process, where the run's receiver is: the check of every delivery waits on what it keeps.
  const progress: ReporterDescription = [fileURLToPath(new URL('./run-progress-reporter.ts', import.meta.url))];
  if (env.CONFORMANCE_SHARD)
    return [progress, [env.CI ? 'dot' : 'list'], ['blob', { outputDir: env.BLOB_DIR ?? 'blob-report' }]];
  return [progress, ...mergedReporters(suite, env)];
}

/**
 * The reporters that judge a whole run: JSON, Allure and the conformance matrix (which also writes JUnit and prints the
 * console: a line per project, each failure once, the summary); Playwright's list of every test with CONFORMANCE_VERBOSE=1.
 */
export function mergedReporters(suite: SuiteConfig, env: Env = process.env): ReporterDescription[] {
  const reportsDir = env.REPORTS_DIR ?? 'reports';
  const environment = runEnvironment(
    suite,
    suite.embedded ? { flavor: env.SANDBOX_FLAVOR ?? 'reference', faults: env.SANDBOX_FAULTS ?? '' } : undefined,
  );
  const redactor = new Redactor(suite.secrets);
  const verbose = env.CONFORMANCE_VERBOSE === '1';
  const conformance: ConformanceReporterOptions = {
    outputDir: reportsDir,
    profile: suite.profile,
    environment,
    ledger: suite.ledger,
    verbose,
  };
  const allure: ConformanceAllureOptions = {
    resultsDir: allureResultsDir(env),
    environmentInfo: environment,
    ...(env.SPEC_URL ? { specUrl: env.SPEC_URL } : {}),
    // A function, so that the secrets it closes over never appear in the serialized configuration (results.json).
    redact: (text) => redactor.text(text),
  };
  return [
    // The conformance reporter prints a line per project and the summary; every test's line only when asked for.
    ...(verbose ? [[env.CI ? 'dot' : 'list'] as ReporterDescription] : []),
    ['json', { outputFile: `${reportsDir}/results.json` }],
    // Absolute, so that both playwright.config.ts and scripts/merge.config.ts find them.
    [fileURLToPath(new URL('../reporters/allure-reporter.ts', import.meta.url)), allure],
    [fileURLToPath(new URL('../reporters/conformance-reporter.ts', import.meta.url)), conformance],
  ];
}
