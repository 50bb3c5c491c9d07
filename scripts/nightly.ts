import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { interfaceInfo } from '../catalog/catalog.ts';
import { allureHistoryFile, regressed, type SinceLastNight } from '../reporters/nights.ts';
import { ConfigError } from '../runner/config/load-config.ts';
import { reportsOf, reportVariables, resolveVariables } from '../runner/config/resolve.ts';
import { isStartedScript, parseCli } from './cli.ts';
import { buildSingleFileReport } from './evidence/allure-single-file.ts';
import { evidencePaths } from './evidence/paths.ts';
import { compiled, playwrightCli, playwrightConfig, productRoot } from './product.ts';

/** What a nightly run's conformance.json says of its night (reporters/conformance-reporter.ts). */
interface NightReport {
  finishedAt?: string;
  reasons?: string[];
  nights?: { dir: string; count: number; stoppedEarly: boolean; sinceLastNight?: SinceLastNight };
}

/**
 * `npm run nightly [-- --merge DIR] [-- <playwright args>]`: the night in one command for cron or a scheduled CI job.
 * Runs the suite under the nightly profile (or, with --merge, judges a sharded night's blobs once), whose reporter keeps
 * the night in the target's history and says what changed since the night before; then appends the night to the
 * target's Allure history and builds the report. Exit: the run's own (0, 1, 2; a night that stopped early is not 0),
 * or 1 for a regression since last night under NIGHTLY_FAIL_ON_REGRESSION=1.
 */
export function main(argv: string[] = process.argv.slice(2)): number {
  const { values, positionals } = parseCli(
    {
      summary:
        'One night: the conformance run under the nightly profile, its night appended to the history of its target, the Allure report with the trend, and what changed since the night before.',
      usage: 'npm run nightly -- [--merge <blob folder>] [-- <playwright test arguments, e.g. --grep>]',
      options: { merge: { type: 'string' } },
      describe: {
        merge: "a sharded night: judge the shards' blob reports together (npm run merge-reports), then append once",
      },
      positionals: { min: 0, max: 100, names: 'playwright test arguments' },
      variables: ['ALLURE_HISTORY_PATH', 'NIGHTLY_FAIL_ON_REGRESSION'],
      epilogue:
        'Exit codes: 0 nothing fails the night, 1 not conformant (or a regression since last night under NIGHTLY_FAIL_ON_REGRESSION=1), 2 bad configuration or arguments; a night that stopped early is recorded as such and exits non-zero.',
    },
    argv,
  );
  let variables: Record<string, string>;
  try {
    variables = resolveVariables([...reportVariables, 'NIGHTLY_FAIL_ON_REGRESSION']) as Record<string, string>;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 2;
  }
  const reports = reportsOf(variables);
  const paths = evidencePaths(reports);
  // eslint-disable-next-line no-restricted-properties -- the environment given to the run
  const env = { ...process.env, PROFILE: 'nightly' };
  const started = Date.now();
  // The run as the command's `run` starts it, in the current folder: its settings and reports are the user's.
  const command = values.merge
    ? [
        ...(compiled ? [] : ['--import', import.meta.resolve('tsx')]),
        join(productRoot, `scripts/merge-reports.${compiled ? 'js' : 'ts'}`),
        values.merge,
      ]
    : [playwrightCli(), 'test', '-c', playwrightConfig, ...positionals];
  const run = spawnSync(process.execPath, command, { env, stdio: 'inherit' });
  const runExit = run.status ?? 1;
  const matrix = join(reports.dir, 'conformance.json');
  if (!existsSync(matrix) || statSync(matrix).mtimeMs < started) {
    console.error(`Nightly: the run wrote no ${matrix} (exit ${runExit}); no night recorded`);
    return runExit === 0 ? 1 : runExit;
  }
  const report = JSON.parse(readFileSync(matrix, 'utf8')) as NightReport;
  if (!report.nights) {
    // A run that ended before its tests (a configuration error) states its verdict and keeps no night.
    console.error(`Nightly: ${matrix} records no night (exit ${runExit})`);
    return runExit === 0 ? 1 : runExit;
  }
  const { dir, count, stoppedEarly, sinceLastNight } = report.nights;
  try {
    const allure = buildSingleFileReport({
      resultsDir: paths.allureResults,
      outputFile: paths.allureReport,
      name: `${interfaceInfo.title} ${interfaceInfo.version} conformance (nightly profile, ${count} night${count === 1 ? '' : 's'})`,
      historyPath: allureHistoryFile(dir),
    });
    console.log(
      `Nightly: Allure report with the trend of ${count} night${count === 1 ? '' : 's'} (${allure.tests} tests): ${allure.file}`,
    );
  } catch (error) {
    console.error(`Nightly: the Allure report failed: ${error instanceof Error ? error.message : String(error)}`);
    return runExit === 0 ? 1 : runExit;
  }
  console.log(
    `Nightly: night ${count} of ${dir}${stoppedEarly ? ' (stopped early: recorded as such)' : ''}; matrix ${join(reports.dir, 'conformance.html')}`,
  );
  if (stoppedEarly && runExit === 0) return 1;
  if (variables['NIGHTLY_FAIL_ON_REGRESSION'] === '1' && regressed(sinceLastNight)) {
    console.error('Nightly: a requirement got worse since last night (NIGHTLY_FAIL_ON_REGRESSION=1)');
    return Math.max(runExit, 1);
  }
  return runExit;
}

if (isStartedScript(import.meta.url)) process.exit(main());
