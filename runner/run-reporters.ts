import { resolve } from 'node:path';
import type { ReporterDescription } from '@playwright/test';
import { Redactor } from '../kit/redact.ts';
import type { ConformanceAllureOptions } from '../reporters/allure-reporter.ts';
import type { ConformanceReporterOptions } from '../reporters/conformance-reporter.ts';
import { isListingOnly } from '../reporters/listing.ts';
import { runEnvironment } from '../reporters/run-environment.ts';
import type { RunConfig, RunReports } from './config/run-config.ts';
import { markUnfinished, reportFiles, writeNotRun, type ReportFiles } from '../reporters/run-reports.ts';
import { runState } from './run-state.ts';
import { moduleFile } from './module-file.ts';
import { unlocksByRequirement } from './config/optional-settings.ts';
import { ConfigError } from './config/load-config.ts';
import { keepsAllureHistory } from '../kit/verdict-marks.ts';
import { reportsOf, reportVariables, resolveVariables } from './config/resolve.ts';

/** The recorded environment of a run: the target, and the embedded sandbox's flavor and faults as the run started it. */
export function environmentOf(run: Pick<RunConfig, 'suite' | 'sandbox'>): Record<string, string> {
  return runEnvironment(
    run.suite,
    run.sandbox ? { flavor: run.sandbox.options.flavor, faults: run.sandbox.options.faults } : undefined,
  );
}

/** The files a run's reports go to: REPORTS_DIR's, and the Allure results. */
export function runReportFiles(reports: RunReports): ReportFiles {
  return reportFiles(reports.dir, reports.allureResultsDir);
}

/** A listing writes no report, and a shard only its blob (npm run merge-reports writes the reports). */
const writesReports = (reports: RunReports) => !isListingOnly() && !reports.shard;

/**
 * At the run's start, in the runner's process: every report it will write says "not finished" until its reporters
 * write the verdict, so that a crash leaves no earlier run's verdict behind (reporters/run-reports.ts).
 */
export function startReports(run: RunConfig): void {
  if (!writesReports(run.reports)) return;
  const files = runReportFiles(run.reports);
  const environment = environmentOf(run);
  markUnfinished(files, { profile: run.suite.profile, environment, startedAt: new Date().toISOString() });
  runState().reports = { files, profile: run.suite.profile, environment };
}

/**
 * A run that ends before any test, with exit code 2 (bad configuration, a preflight problem, an embedded sandbox that
 * cannot start): its own verdict, "not run: configuration", and each problem, in every report. When the configuration
 * did not resolve, the reports go where REPORTS_DIR says if it can be read, under the profile PROFILE names (gate when
 * it names none that can be read).
 */
export function endBeforeTests(problems: readonly string[]): void {
  const started = runState().reports ?? unresolvedReports();
  if (!started) return;
  writeNotRun(started.files, {
    profile: started.profile,
    environment: started.environment,
    problems: [...problems],
    exitCode: 2,
  });
}

/** Where the reports of a run whose configuration did not resolve go: the report variables alone, if they hold. */
function unresolvedReports(): { files: ReportFiles; profile: string; environment: Record<string, string> } | undefined {
  const alone = <T>(read: () => T, fallback: T): T => {
    try {
      return read();
    } catch (error) {
      if (error instanceof ConfigError) return fallback;
      throw error;
    }
  };
  const reports = alone(() => reportsOf(resolveVariables(reportVariables)), reportsOf({}));
  if (!writesReports(reports)) return undefined;
  const profile = alone(() => resolveVariables(['PROFILE']).PROFILE, undefined) ?? 'gate';
  return { files: runReportFiles(reports), profile, environment: {} };
}

/**
 * The reporters of a conformance run; REPORTS_DIR moves all of their files (the kill matrix gives each run its own).
 * A shard (CONFORMANCE_SHARD=1, with --shard=i/n) writes only a blob report; `npm run merge-reports` then runs the
 * reporters below over all shards' blobs (scripts/merge.config.ts), and exits as one run would.
 */
export function reportersFor(run: RunConfig): ReporterDescription[] {
  if (isListingOnly()) return [[moduleFile('../reporters/listing-reporter', import.meta.url)]];
  // Run in the runner process, where the run's receiver is: the check of every delivery waits on what it keeps.
  const progress: ReporterDescription = [moduleFile('./run-progress-reporter', import.meta.url)];
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
    ...(reports.stepSummary ? { stepSummary: reports.stepSummary } : {}),
    unlocks: unlocksByRequirement(),
    // A nightly run keeps its night in the target's history and says what changed since the night before.
    // Its target: the identity base URL as the reports show it, or the embedded sandbox's flavor (its faults aside: a
    // fault is the target breaking a requirement tonight, still the same target).
    ...(keepsAllureHistory(suite.profile)
      ? {
          allureHistoryPath: reports.allureHistoryPath,
          historyTarget: run.sandbox
            ? `embedded sandbox (${run.sandbox.options.flavor} flavor)`
            : (environment['identity base URL'] ?? 'unknown'),
        }
      : {}),
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
    ['json', { outputFile: resolve(reports.dir, 'results.json') }],
    // Absolute, so that both playwright.config.ts and scripts/merge.config.ts find them.
    [moduleFile('../reporters/allure-reporter', import.meta.url), allure],
    [moduleFile('../reporters/conformance-reporter', import.meta.url), conformance],
  ];
}
