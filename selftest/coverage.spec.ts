import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { placesOf, requirements } from '../catalog/catalog.ts';
import { faults } from '../sandbox/faults.ts';
import { wrongTypeTitleStart } from '../kit/builders/request-members.ts';
import { analyseCoverage, generatedStatements, type ListedTest, type Statement } from '../scripts/coverage/analyse.ts';

const listed = (
  JSON.parse(readFileSync(new URL('../catalog/statements.json', import.meta.url), 'utf8')) as {
    statements: Statement[];
  }
).statements;
const statements = [...listed, ...generatedStatements(requirements)];

/** A listing in which every requirement has one test, titled so that every statement's title filter matches. */
function fullListing(): ListedTest[] {
  return requirements.map((r) => ({
    title: statements
      .filter((s) => s.requirements.includes(r.id) && s.testTitleIncludes)
      .map((s) => s.testTitleIncludes)
      .join(' '),
    project: r.area,
    ids: [r.id],
    places: placesOf(r),
  }));
}

test.describe('coverage of the interface document (npm run coverage)', () => {
  test('with a test for every requirement and a fault for every MUST, there is no problem', () => {
    expect(analyseCoverage({ statements, requirements, tests: fullListing(), faults }).problems).toEqual([]);
  });

  test('a statement whose requirement has no test is reported as having no check', () => {
    const tests = fullListing().filter((t) => !t.ids.includes('CU-TAGS-APPEND'));
    const { problems } = analyseCoverage({ statements, requirements, tests, faults });
    expect(problems).toContain(
      'Statement of part 2.5: "Case update: tags are appended to the case; not validated against existing tags" has no check: no test cites CU-TAGS-APPEND',
    );
    expect(problems).toContain('CU-TAGS-APPEND (MUST) has no test');
  });

  test('a table row whose own test is missing is reported even when other rows of the requirement have tests', () => {
    const row = wrongTypeTitleStart('caseUpdate', 'documents');
    const tests = fullListing().map((t) =>
      t.ids.includes('CU-REQ-TYPES') ? { ...t, title: t.title.replace(row, '') } : t,
    );
    const { problems } = analyseCoverage({ statements, requirements, tests, faults });
    expect(problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Statement of part 2\\.5: "Case update request: documents is array of object \\(wrong: .*\\)" has no check: no test cites CU-REQ-TYPES with "${row}" in its title$`,
        ),
      ),
    ]);
  });

  test('a MUST requirement without a sandbox fault, and a requirement no statement names, are reported', () => {
    const withoutFault = faults.filter((f) => f.requirement !== 'ORD-409');
    expect(analyseCoverage({ statements, requirements, tests: fullListing(), faults: withoutFault }).problems).toEqual([
      'ORD-409 (MUST) has no sandbox fault: nothing proves its checks can fail',
    ]);
    const unstated = statements.filter((s) => !s.requirements.includes('VER-NO-VERSION-HEADER'));
    expect(analyseCoverage({ statements: unstated, requirements, tests: fullListing(), faults }).problems).toEqual([
      'VER-NO-VERSION-HEADER (INFO) checks no statement of the document',
    ]);
  });

  test('a requirement on a place it names without a check there, or without a fault there, is reported; so is a test of it that names no place', () => {
    const tests = fullListing().map((t) =>
      t.ids.includes('HDR-CLIENT-ID') ? { ...t, places: t.places.filter((p) => p !== 'stepUp') } : t,
    );
    const withoutFault = faults.filter((f) => f.id !== 'client-id-optional-on-step-up');
    expect(analyseCoverage({ statements, requirements, tests, faults: withoutFault }).problems).toEqual([
      'HDR-CLIENT-ID (MUST) has no check on stepUp: no test cites it with the tag @on:stepUp',
      'HDR-CLIENT-ID (MUST) has no sandbox fault on stepUp: nothing proves its check there can fail',
    ]);
    const placeless = fullListing().map((t) => (t.ids.includes('BEARER-EXPIRED') ? { ...t, places: [] } : t));
    expect(analyseCoverage({ statements, requirements, tests: placeless, faults }).problems).toContainEqual(
      expect.stringMatching(/^Test ".*" \(auth\) cites BEARER-EXPIRED, which name places, but tags none/),
    );
  });

  test('a statement without requirements must say why it cannot be checked', () => {
    const bare: Statement = { part: '2.1', statement: 'a rule', requirements: [] };
    const { problems } = analyseCoverage({
      statements: [...statements, bare],
      requirements,
      tests: fullListing(),
      faults,
    });
    expect(problems).toEqual([
      'Statement of part 2.1: "a rule" has no requirement and no reason why it cannot be checked',
    ]);
  });
});
