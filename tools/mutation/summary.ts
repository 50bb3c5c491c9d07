import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceMarkedBlock } from '../../scripts/readme-block.ts';
import { readResults, resultsOfReport, resultsTable, score } from './results.ts';

// The end of npm run mutate: the run's report (reports/mutation/mutation.json) merged, module by module, into
// docs/mutation-results.json, and the table of docs/mutation.md regenerated from it. Why each survivor is a change the
// document allows (or which check now kills it) is written by hand below the table; selftest/docs-current.spec.ts
// fails when a survivor is not classified there.
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const reportPath = process.argv[2] ?? join(repoRoot, 'reports/mutation/mutation.json');
const resultsPath = join(repoRoot, 'docs/mutation-results.json');

const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Parameters<typeof resultsOfReport>[0];
const fresh = resultsOfReport(report, statSync(reportPath).mtime.toISOString());
const results = { ...readResults(resultsPath), ...fresh };
writeFileSync(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
replaceMarkedBlock(join(repoRoot, 'docs/mutation.md'), 'mutation-results', resultsTable(results));
for (const [file, r] of Object.entries(fresh)) {
  console.log(
    `mutate: ${file}: ${r.mutants - r.ignored} mutants, ${r.killed + r.timedOut} killed, ${r.survived} survived (score ${(score(r) * 100).toFixed(0)} %)`,
  );
}
console.log('mutate: classify each survivor in docs/mutation.md (npm test checks that every one is)');
