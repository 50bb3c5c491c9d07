import { dirname, join } from 'node:path';
import type { RunReports } from '../../runner/config/run-config.ts';

export interface EvidencePaths {
  reportsDir: string;
  allureResults: string;
  /** The single-file report, in allure-report/ next to the results folder. */
  allureReport: string;
  /** Allure 3 history (JSON lines), kept across nightly runs. */
  allureHistory: string;
}

/** Where a run's evidence lies, from the run's configuration of its reports (REPORTS_DIR, ALLURE_*). */
export function evidencePaths(
  reports: Pick<RunReports, 'dir' | 'allureResultsDir' | 'allureHistoryPath'>,
): EvidencePaths {
  return {
    reportsDir: reports.dir,
    allureResults: reports.allureResultsDir,
    allureReport: join(dirname(reports.allureResultsDir), 'allure-report', 'index.html'),
    allureHistory: reports.allureHistoryPath,
  };
}
