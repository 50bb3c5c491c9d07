import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { clientRequirements } from '../catalog/client-catalog.ts';
import { clientChecks } from '../kit/checks/client/checks.ts';
import { checksIndex, fixturesIndex, writingChecksPage } from '../scripts/writing-checks.ts';

// docs/writing-checks.md lists every check of the kit and every fixture a test can take, read from the code: the page
// cannot drift from it.
const page = readFileSync(writingChecksPage, 'utf8');
const block = (name: string) => new RegExp(`<!-- ${name} -->\\n([\\s\\S]*?)\\n<!-- /${name} -->`).exec(page)?.[1];

test('the checks of docs/writing-checks.md are those of kit/checks/, by area', () => {
  expect(block('checks'), 'regenerate with npm run writing-checks').toBe(checksIndex());
});

test('the fixtures of docs/writing-checks.md are those the modules of fixtures/ define', () => {
  expect(block('fixtures'), 'regenerate with npm run writing-checks').toBe(fixturesIndex());
});

test('every check of the list says what it judges', () => {
  expect(
    checksIndex()
      .split('\n')
      .filter((line) => /^\| `\w+` \|\s*\|$/.test(line)),
  ).toEqual([]);
});

test('every client requirement has its one check, and every check a requirement', () => {
  expect(Object.keys(clientChecks).sort()).toEqual(clientRequirements.map((r) => r.id).sort());
});
