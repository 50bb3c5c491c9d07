import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import {
  classifiedIds,
  readResults,
  resultsOfReport,
  resultsTable,
  score,
  sectionOf,
} from '../tools/mutation/results.ts';

// npm run mutate keeps each module's last run in docs/mutation-results.json; docs/mutation.md shows its table and, per
// module, why each survivor is allowed by the document or which check kills it now.
const docPath = new URL('../docs/mutation.md', import.meta.url);
const results = readResults(new URL('../docs/mutation-results.json', import.meta.url).pathname);
const doc = readFileSync(docPath, 'utf8');

test('the table of docs/mutation.md is the one docs/mutation-results.json gives', () => {
  expect(Object.keys(results).length).toBeGreaterThan(0);
  const block = /<!-- mutation-results -->\n([\s\S]*?)\n<!-- \/mutation-results -->/.exec(doc)?.[1];
  expect(block).toBe(resultsTable(results));
});

test("every survivor of every mutated module is classified in its module's section", () => {
  for (const [file, result] of Object.entries(results)) {
    const section = sectionOf(doc, file);
    expect(section, `docs/mutation.md has a section "## ${file} ..."`).toBeDefined();
    const classified = classifiedIds(section ?? '');
    const unclassified = result.survivors
      .filter((s) => !classified.has(s.id))
      .map((s) => `#${s.id} line ${s.line} ${s.mutator}: ${s.replacement}`);
    expect(unclassified, `survivors of ${file} not classified in docs/mutation.md`).toEqual([]);
  }
});

test('classification tables name single mutants and ranges, in their first column only', () => {
  const ids = classifiedIds(
    '| Mutants | What | Why |\n|---|---|---|\n| 4, 12–14, 20-21 | x | 99 is not an id here |\n',
  );
  expect([...ids].sort((a, b) => a - b)).toEqual([4, 12, 13, 14, 20, 21]);
});

test('a StrykerJS report is counted by status, survivors listed, and scored over the mutants that ran', () => {
  const mutant = (id: string, status: string) => ({
    id,
    status,
    mutatorName: 'ConditionalExpression',
    replacement: 'true',
    location: { start: { line: Number(id) } },
  });
  const report = {
    files: {
      'sandbox/x.ts': {
        mutants: [
          mutant('1', 'Killed'),
          mutant('2', 'Survived'),
          mutant('3', 'Timeout'),
          mutant('4', 'Ignored'),
          mutant('5', 'NoCoverage'),
        ],
      },
    },
  };
  const r = resultsOfReport(report, '2026-11-25T00:00:00Z')['sandbox/x.ts'];
  expect(r).toMatchObject({ mutants: 5, killed: 1, timedOut: 1, survived: 2, ignored: 1 });
  expect(r?.survivors.map((s) => s.id)).toEqual([2, 5]);
  expect(r && score(r)).toBe(0.5);
  expect(r?.lines, 'no range named').toBeUndefined();
  expect(
    resultsOfReport({ ...report, config: { mutate: ['sandbox/x.ts:198-271'] } }, '2026-11-25T00:00:00Z')[
      'sandbox/x.ts:198-271'
    ]?.lines,
  ).toBe('198-271');
});
