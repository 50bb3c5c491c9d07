import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../runner/config/load-config.ts';
import { reportsOf, reportVariables, resolveVariables } from '../runner/config/resolve.ts';
import { moduleFile } from '../runner/module-file.ts';
import { parseCli } from './cli.ts';
import { playwrightCli } from './product.ts';

// npm run merge-reports -- <folder of the shards' blob reports>: Playwright's merge-reports with the suite's own
// reporters (scripts/merge.config.ts), then the gate's exit code, which merge-reports itself does not give: 1 when
// the merged matrix has a reason to fail the run, 2 on a configuration error, 0 otherwise.
const [folder = ''] = parseCli({
  summary:
    "Judges the shards of one run together: Playwright's merge-reports with the suite's reporters, then the gate's exit code.",
  usage: "npm run merge-reports -- <folder of the shards' blob reports (.zip)>",
  options: {},
  describe: {},
  positionals: { min: 1, max: 1, names: 'one folder' },
  epilogue:
    'Exit codes: 0 nothing fails the profile (docs/verdicts.md), 1 not conformant, 2 bad configuration or arguments.',
}).positionals;
const merged = spawnSync(
  process.execPath,
  [playwrightCli(), 'merge-reports', '--config', moduleFile('./merge.config', import.meta.url), folder],
  { stdio: 'inherit' },
);
if (merged.status !== 0) process.exit(merged.status ?? 1);
let reportsDir: string;
try {
  reportsDir = reportsOf(resolveVariables(reportVariables)).dir;
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(2);
}
const matrix = join(reportsDir, 'conformance.json');
if (!existsSync(matrix)) {
  console.error(`merge-reports wrote no ${matrix}`);
  process.exit(1);
}
// The run's own verdict (reporters/run-verdict.ts): its reasons are empty exactly when its exit code is 0.
const { reasons } = JSON.parse(readFileSync(matrix, 'utf8')) as { reasons: string[] };
process.exit(reasons.length > 0 ? 1 : 0);
