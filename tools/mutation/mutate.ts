import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCli } from '../../scripts/cli.ts';

// npm run mutate [-- --mutate sandbox/<module>.ts]: StrykerJS with stryker.config.json, then the summary of its report
// into docs/mutation-results.json and the table of docs/mutation.md.
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const { values } = parseCli({
  summary:
    'Mutates the sandbox modules of stryker.config.json and runs the conformance suite against each mutant (not part of npm test: one full run per mutant).',
  usage: 'npm run mutate [-- --mutate sandbox/<module>.ts]',
  options: { mutate: { type: 'string' } },
  describe: { mutate: 'one module (or a glob) instead of every module of stryker.config.json' },
  epilogue:
    'Writes reports/mutation/mutation.json, docs/mutation-results.json and the table of docs/mutation.md; each survivor is then to be killed or classified in docs/mutation.md.',
});
const stryker = spawnSync(
  process.execPath,
  [
    join(repoRoot, 'node_modules/@stryker-mutator/core/bin/stryker.js'),
    'run',
    ...(values.mutate ? ['--mutate', values.mutate] : []),
  ],
  { cwd: repoRoot, stdio: 'inherit' },
);
if (stryker.status !== 0) process.exit(stryker.status ?? 1);
const summary = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'tools/mutation/summary.ts')], {
  cwd: repoRoot,
  stdio: 'inherit',
});
process.exit(summary.status ?? 1);
