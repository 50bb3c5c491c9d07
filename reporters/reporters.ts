import { join } from 'node:path';
import type { ReporterDescription } from '@playwright/test';
import type { SuiteConfig } from '../fixtures/config/load-config.ts';
import { Redactor } from '../fixtures/redact.ts';
import type { ConformanceAllureOptions } from './allure-reporter.ts';
import type { ConformanceReporterOptions } from './conformance-reporter.ts';
import { runEnvironment } from './run-environment.ts';

type Env = Record<string, string | undefined>;

/**
 * Where a run's Allure results go: ALLURE_RESULTS_DIR, else next to the other reports when REPORTS_DIR moves them
 * (so that parallel runs never clear each other's results), else allure-results/.
 */
export function allureResultsDir(env: Env = process.env): string {
  return env.ALLURE_RESULTS_DIR ?? (env.REPORTS_DIR ? join(env.REPORTS_DIR, 'allure-results') : 'allure-results');
}

/** The reporters of a conformance run; REPORTS_DIR moves all of their files (the kill matrix gives each run its own). */
export function reportersFor(suite: SuiteConfig, env: Env = process.env): ReporterDescription[] {
  const reportsDir = env.REPORTS_DIR ?? 'reports';
  const environment = runEnvironment(suite, suite.embedded ? { flavor: env.SANDBOX_FLAVOR ?? 'reference', faults: env.SANDBOX_FAULTS ?? '' } : undefined);
  const redactor = new Redactor(suite.secrets);
  const conformance: ConformanceReporterOptions = { outputDir: reportsDir, profile: suite.profile, environment, ledger: suite.ledger };
  const allure: ConformanceAllureOptions = {
    resultsDir: allureResultsDir(env),
    environmentInfo: environment,
    ...(env.SPEC_URL ? { specUrl: env.SPEC_URL } : {}),
    // A function, so that the secrets it closes over never appear in the serialized configuration (results.json).
    redact: (text) => redactor.text(text),
  };
  return [
    [env.CI ? 'dot' : 'list'],
    ['junit', { outputFile: `${reportsDir}/junit.xml` }],
    ['json', { outputFile: `${reportsDir}/results.json` }],
    ['./reporters/allure-reporter.ts', allure],
    ['./reporters/conformance-reporter.ts', conformance],
  ];
}
