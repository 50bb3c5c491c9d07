import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { requirements } from '../catalog/catalog.ts';
import { faults } from '../sandbox/faults.ts';
import { analyseCoverage, type ListedTest, type Statement } from '../scripts/coverage/analyse.ts';

const { statements } = JSON.parse(readFileSync(new URL('../catalog/statements.json', import.meta.url), 'utf8')) as { statements: Statement[] };

/** A listing in which every requirement has one test, titled so that every statement's title filter matches. */
function fullListing(): ListedTest[] {
  return requirements.map((r) => ({
    title: statements.filter((s) => s.requirements.includes(r.id) && s.testTitleIncludes).map((s) => s.testTitleIncludes).join(' '),
    project: r.area,
    ids: [r.id],
  }));
}

test.describe('coverage of the interface document (npm run coverage)', () => {
  test('with a test for every requirement and a fault for every MUST, there is no problem', () => {
    expect(analyseCoverage({ statements, requirements, tests: fullListing(), faults }).problems).toEqual([]);
  });

  test('a statement whose requirement has no test is reported as having no check', () => {
    const tests = fullListing().filter((t) => !t.ids.includes('CU-TAGS-APPEND'));
    const { problems } = analyseCoverage({ statements, requirements, tests, faults });
    expect(problems).toContain('Statement of part 2.5: "Case update: tags are appended to the case; not validated against existing tags" has no check: no test cites CU-TAGS-APPEND');
    expect(problems).toContain('CU-TAGS-APPEND (MUST) has no test');
  });

  test('a table row whose own test is missing is reported even when other rows of the requirement have tests', () => {
    const tests = fullListing().map((t) => (t.ids.includes('CU-REQ-TYPES') ? { ...t, title: t.title.replace('with documents as ', '') } : t));
    const { problems } = analyseCoverage({ statements, requirements, tests, faults });
    expect(problems).toEqual(['Statement of part 2.5: "Case update: documents is an array of objects" has no check: no test cites CU-REQ-TYPES with "with documents as " in its title']);
  });

  test('a MUST requirement without a sandbox fault, and a requirement no statement names, are reported', () => {
    const withoutFault = faults.filter((f) => f.requirement !== 'ORD-409');
    expect(analyseCoverage({ statements, requirements, tests: fullListing(), faults: withoutFault }).problems).toEqual([
      'ORD-409 (MUST) has no sandbox fault: nothing proves its checks can fail',
    ]);
    const unstated = statements.filter((s) => !s.requirements.includes('VER-NO-VERSION-HEADER'));
    expect(analyseCoverage({ statements: unstated, requirements, tests: fullListing(), faults }).problems).toEqual([
      'VER-NO-VERSION-HEADER (INFO) checks no statement of catalog/statements.json',
    ]);
  });

  test('a statement without requirements must say why it cannot be checked', () => {
    const bare: Statement = { part: '2.1', statement: 'a rule', requirements: [] };
    const { problems } = analyseCoverage({ statements: [...statements, bare], requirements, tests: fullListing(), faults });
    expect(problems).toEqual(['Statement of part 2.1: "a rule" has no requirement and no reason why it cannot be checked']);
  });
});
