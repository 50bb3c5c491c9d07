import { fileURLToPath } from 'node:url';
import type { ReporterDescription } from '@playwright/test';
import { Redactor } from '../kit/redact.ts';
import type { ConformanceAllureOptions } from '../reporters/allure-reporter.ts';
import type { ConformanceReporterOptions } from '../reporters/conformance-reporter.ts';
import { isListingOnly } from '../reporters/listing.ts';
import { runEnvironment } from '../reporters/run-environment.ts';
import type { RunConfig } from './config/run-config.ts';

/** The recorded environment of a run: the target, and the embedded sandbox's flavor and faults as the run started it. */
export function environmentOf(run: Pick<RunConfig, 'suite' | 'sandbox'>): Record<string, string> {
  return runEnvironment(
    run.suite,
    run.sandbox ? { flavor: run.sandbox.options.flavor, faults: run.sandbox.options.faults } : undefined,
  );
}

/**
 * The reporters of a conformance run; REPORTS_DIR moves all of their files (the kill matrix gives each run its own).
 * A shard (CONFORMANCE_SHARD=1, with --shard=i/n) writes only a blob report; `npm run merge-reports` then runs the
 * reporters below over all shards' blobs (scripts/merge.config.ts), and exits as one run would.
 */
export function reportersFor(run: RunConfig): ReporterDescription[] {
  if (isListingOnly()) return [[fileURLToPath(new URL('../reporters/listing-reporter.ts', import.meta.url))]];
  // Run in the runner process, where the run's receiver is: the check of every delivery waits on what it keeps.
  const progress: ReporterDescription = [fileURLToPath(new URL('./run-progress-reporter.ts', import.meta.url))];
  if (run.reports.shard)
    return [progress, [run.console.ci ? 'dot' : 'list'], ['blob', { outputDir: run.reports.shard.blobDir }]];
  return [progress, ...mergedReporters(run)];
}

/**
 * The reporters that judge a whole run: JSON, Allure and the conformance matrix (which also writes JUnit and prints the
 * console: a line per project, each failure once, the summary); Playwright's list of every test with CONFORMANCE_VERBOSE=1.
 */
export function mergedReporters(run: RunConfig): ReporterDescription[] {
  const { suite, reports } = run;
  const environment = environmentOf(run);
  const redactor = new Redactor(suite.secrets);
  const { verbose } = run.console;
  const conformance: ConformanceReporterOptions = {
    outputDir: reports.dir,
    profile: suite.profile,
    environment,
    ledger: suite.ledger,
    verbose,
    eventWindowMs: suite.webhook.waitMs,
    ...(reports.stepSummary ? { stepSummary: reports.stepSummary } : {}),
  };
  const allure: ConformanceAllureOptions = {
    resultsDir: reports.allureResultsDir,
    environmentInfo: environment,
    ...(reports.specUrl ? { specUrl: reports.specUrl } : {}),
    // A function, so that the secrets it closes over never appear in the serialized configuration (results.json).
    redact: (text) => redactor.text(text),
  };
  return [
    // The conformance reporter prints a line per project and the summary; every test's line only when asked for.
    ...(verbose ? [[run.console.ci ? 'dot' : 'list'] as ReporterDescription] : []),
    ['json', { outputFile: `${reports.dir}/results.json` }],
    // Absolute, so that both playwright.config.ts and scripts/merge.config.ts find them.
    [fileURLToPath(new URL('../reporters/allure-reporter.ts', import.meta.url)), allure],
    [fileURLToPath(new URL('../reporters/conformance-reporter.ts', import.meta.url)), conformance],
  ];
}
