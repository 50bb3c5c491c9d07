import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReporterDescription } from '@playwright/test';
import type { SuiteConfig } from '../kit/config/suite-config.ts';
import { Redactor } from '../kit/redact.ts';
import type { ConformanceAllureOptions } from '../reporters/allure-reporter.ts';
import type { ConformanceReporterOptions } from '../reporters/conformance-reporter.ts';
import { isListingOnly } from '../reporters/listing.ts';
import { runEnvironment } from '../reporters/run-environment.ts';
import { markUnfinished, reportFiles, writeNotRun, type ReportFiles } from '../reporters/run-reports.ts';
import { configSchema } from '../schemas/variables.ts';
import { runState } from './run-state.ts';
import { optionalSettings } from './config/optional-settings.ts';

type Env = Record<string, string | undefined>;

/**
 * Where a run's Allure results go: ALLURE_RESULTS_DIR, else next to the other reports when REPORTS_DIR moves them
 * (so that parallel runs never clear each other's results), else allure-results/.
 */
export function allureResultsDir(env: Env = process.env): string {
  return env.ALLURE_RESULTS_DIR ?? (env.REPORTS_DIR ? join(env.REPORTS_DIR, 'allure-results') : 'allure-results');
}

/** The files a run's reports go to: REPORTS_DIR, and the Allure results (allureResultsDir). */
export function runReportFiles(env: Env = process.env): ReportFiles {
  return reportFiles(env.REPORTS_DIR ?? 'reports', allureResultsDir(env));
}

/** What the reports say of the run's environment: target, flavor, seed, profile (reporters/run-environment.ts). */
function environmentOf(suite: SuiteConfig, env: Env): Record<string, string> {
  return runEnvironment(
    suite,
    suite.embedded ? { flavor: env.SANDBOX_FLAVOR ?? 'reference', faults: env.SANDBOX_FAULTS ?? '' } : undefined,
  );
}

/** The variables that unlock each requirement, from the doctor's one table (runner/config/optional-settings.ts). */
function unlocks(): Record<string, string[]> {
  const table: Record<string, string[]> = {};
  for (const setting of optionalSettings)
    for (const id of setting.requirements) table[id] = [...new Set([...(table[id] ?? []), ...setting.variables])];
  return table;
}

/** A listing writes no report, and a shard only its blob (npm run merge-reports writes the reports). */
const writesReports = (env: Env) => !isListingOnly() && !env.CONFORMANCE_SHARD;

/**
 * At the run's start, in the runner's process: every report it will write says "not finished" until its reporters
 * write the verdict, so that a crash leaves no earlier run's verdict behind (reporters/run-reports.ts).
 */
export function startReports(suite: SuiteConfig, env: Env = process.env): void {
  if (!writesReports(env)) return;
  const files = runReportFiles(env);
  const environment = environmentOf(suite, env);
  markUnfinished(files, { profile: suite.profile, environment, startedAt: new Date().toISOString() });
  runState().reports = { files, profile: suite.profile, environment };
}

/**
 * A run that ends before any test, with exit code 2 (bad configuration, a preflight problem, an embedded sandbox that
 * cannot start): its own verdict, "not run: configuration", and each problem, in every report. When the configuration
 * did not resolve, the reports go where REPORTS_DIR says, under the profile PROFILE names (gate when it names none).
 */
export function endBeforeTests(problems: readonly string[], env: Env = process.env): void {
  if (!writesReports(env)) return;
  const started = runState().reports;
  const profiles = configSchema.properties.PROFILE?.enum ?? [];
  const profile = started?.profile ?? (profiles.includes(env.PROFILE ?? '') ? (env.PROFILE as string) : 'gate');
  writeNotRun(started?.files ?? runReportFiles(env), {
    profile,
    environment: started?.environment ?? {},
    problems: [...problems],
    exitCode: 2,
  });
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
  const environment = environmentOf(suite, env);
  const redactor = new Redactor(suite.secrets);
  const verbose = env.CONFORMANCE_VERBOSE === '1';
  const conformance: ConformanceReporterOptions = {
    outputDir: reportsDir,
    profile: suite.profile,
    environment,
    ledger: suite.ledger,
    verbose,
    eventWindowMs: suite.webhook.waitMs,
    unlocks: unlocks(),
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
