import { dirname, join } from 'node:path';
import { allureResultsDir } from '../../runner/run-reporters.ts';

type Env = Record<string, string | undefined>;

export interface EvidencePaths {
  reportsDir: string;
  allureResults: string;
  /** The single-file report, in allure-report/ next to the results folder. */
  allureReport: string;
  /** Allure 3 history (JSON lines), kept across nightly runs. */
  allureHistory: string;
}

/** Where a run's evidence lies, from the same variables the reporters read (REPORTS_DIR, ALLURE_RESULTS_DIR). */
export function evidencePaths(env: Env = process.env): EvidencePaths {
  const allureResults = allureResultsDir(env);
  return {
    reportsDir: env.REPORTS_DIR ?? 'reports',
    allureResults,
    allureReport: join(dirname(allureResults), 'allure-report', 'index.html'),
    allureHistory: env.ALLURE_HISTORY_PATH ?? join('allure-history', 'history.jsonl'),
  };
}
