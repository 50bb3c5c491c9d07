import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { interfaceInfo } from '../catalog/catalog.ts';
import { keepsAllureHistory, type Profile } from '../kit/verdict-marks.ts';
import { buildSingleFileReport } from './evidence/allure-single-file.ts';
import { parseCli } from './cli.ts';
import { allureHistoryFile } from '../reporters/nights.ts';
import { evidencePaths } from './evidence/paths.ts';
import { reportsOf, reportVariables, resolveVariables } from '../runner/config/resolve.ts';

/**
 * `npm run report [-- --results DIR --output FILE]`: the last run's Allure report as one HTML file that opens from
 * disk. After a run under the nightly profile it shows (and appends the run to) its target's Allure history, beside
 * ALLURE_HISTORY_PATH; `npm run nightly` does that itself, after each night.
 */
function main(): void {
  const paths = evidencePaths(reportsOf(resolveVariables(reportVariables)));
  const { values } = parseCli({
    summary:
      "The last run's Allure report as one HTML file that opens from disk. After a run under the nightly profile, this command appends it to its target's Allure history (npm run nightly does so after each night: do not run both).",
    usage: 'npm run report -- [options]',
    options: { results: { type: 'string' }, output: { type: 'string' } },
    describe: {
      results: `the Allure results folder (default ${paths.allureResults})`,
      output: `the report file (default ${paths.allureReport})`,
    },
  });
  const matrix = join(paths.reportsDir, 'conformance.json');
  const { profile, nights } = existsSync(matrix)
    ? (JSON.parse(readFileSync(matrix, 'utf8')) as { profile?: string; nights?: { dir: string } })
    : {};
  const report = buildSingleFileReport({
    resultsDir: values.results ?? paths.allureResults,
    outputFile: values.output ?? paths.allureReport,
    name: `${interfaceInfo.title} ${interfaceInfo.version} conformance${profile ? ` (${profile} profile)` : ''}`,
    ...(profile && keepsAllureHistory(profile as Profile)
      ? { historyPath: nights ? allureHistoryFile(nights.dir) : paths.allureHistory }
      : {}),
  });
  console.log(`Allure report (${report.tests} tests, one file, opens offline): ${report.file}`);
}

try {
  main();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
