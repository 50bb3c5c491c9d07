import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { retryStorm } from '../kit/checks/client/retry-rule.ts';
import {
  cellKey,
  cells,
  falseFailures,
  firstTrial,
  retryTable,
  upperBound,
  type SimulationResult,
} from '../tools/client/retry-simulation.ts';

// docs/client-retry.md's table is what npm run client-retry wrote from docs/client-retry.json, and those figures come
// from the judge's rule as it is now: each cell's first trials, counted again here from the same seeded stream, give
// the count the script recorded for them.
const docs = new URL('../docs/', import.meta.url);
const result = JSON.parse(readFileSync(new URL('client-retry.json', docs), 'utf8')) as SimulationResult;
const markdown = readFileSync(new URL('client-retry.md', docs), 'utf8');

test("the doc's table is the one the script renders from its figures", () => {
  const block = /<!-- retry-simulation -->\n([\s\S]*?)\n<!-- \/retry-simulation -->/.exec(markdown)?.[1];
  expect(block, 'docs/client-retry.md has the generated block').toBeDefined();
  expect(block).toBe(retryTable(result));
});

test('the figures are of the rule the judge applies, over every cell, and its first trials fail as recorded', () => {
  expect(result.rule).toEqual({ ...retryStorm });
  expect(result.cells.map((c) => cellKey(c))).toEqual(cells.map((c) => cellKey(c)));
  // Each cell's first trials, simulated again with the judge's rule, fail exactly as often as the script recorded.
  expect(
    cells.map((cell) => firstTrial(cell, result.seed)),
    'the same seeded draws, strategy by strategy',
  ).toEqual(result.cells.map((c) => c.firstDelays));
  const recounted = cells.map((cell) => falseFailures(cell, result.sampleTrials, result.seed));
  expect(recounted).toEqual(result.cells.map((c) => c.sampleFailures));
  for (const cell of result.cells)
    expect(cell.failures, `${cellKey(cell)}: its first trials are among all of them`).toBeGreaterThanOrEqual(
      cell.sampleFailures,
    );
});

test('every false-failure rate of the table is below 10^-4, the 95 % upper bound included, from at least 10^5 trials per cell', () => {
  expect(result.trials).toBeGreaterThanOrEqual(100_000);
  const above = result.cells
    .filter((c) => upperBound(c.failures, result.trials) >= 1e-4)
    .map((c) => `${cellKey(c)}: ${c.failures}`);
  expect(above).toEqual([]);
});
