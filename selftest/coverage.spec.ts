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

type Input = Parameters<typeof analyseCoverage>[0];
const testsWith = (id: string, change: (t: ListedTest) => ListedTest) =>
  fullListing().map((t) => (t.ids.includes(id) ? change(t) : t));
const row = wrongTypeTitleStart('caseUpdate', 'documents');

/** Each kind of gap npm run coverage reports, made in an otherwise complete input: the problems it gives. */
const gaps: Array<{ gap: string; input: Partial<Input>; problems: unknown[]; among?: true }> = [
  { gap: 'none: a test for every requirement and a fault for every MUST', input: {}, problems: [] },
  {
    gap: 'a statement whose requirement has no test',
    input: { tests: fullListing().filter((t) => !t.ids.includes('CU-TAGS-APPEND')) },
    problems: [
      'Statement of part 2.5: "Case update: tags are appended to the case; not validated against existing tags" has no check: no test cites CU-TAGS-APPEND',
      'CU-TAGS-APPEND (MUST) has no test',
    ],
    among: true,
  },
  {
    gap: "a table row whose own test is missing, though the requirement's other rows have tests",
    input: { tests: testsWith('CU-REQ-TYPES', (t) => ({ ...t, title: t.title.replace(row, '') })) },
    problems: [
      expect.stringMatching(
        new RegExp(
          `^Statement of part 2\\.5: "Case update request: documents is array of object \\(wrong: .*\\)" has no check: no test cites CU-REQ-TYPES with "${row}" in its title$`,
        ),
      ),
    ],
  },
  {
    gap: 'a MUST without a sandbox fault',
    input: { faults: faults.filter((f) => f.requirement !== 'ORD-409') },
    problems: ['ORD-409 (MUST) has no sandbox fault: nothing proves its checks can fail'],
  },
  {
    gap: 'a requirement no statement names',
    input: { statements: statements.filter((s) => !s.requirements.includes('VER-NO-VERSION-HEADER')) },
    problems: ['VER-NO-VERSION-HEADER (INFO) checks no statement of the document'],
  },
  {
    gap: 'a place a requirement names without a check there, nor a fault there',
    input: {
      tests: testsWith('HDR-CLIENT-ID', (t) => ({ ...t, places: t.places.filter((p) => p !== 'stepUp') })),
      faults: faults.filter((f) => f.id !== 'client-id-optional-on-step-up'),
    },
    problems: [
      'HDR-CLIENT-ID (MUST) has no check on stepUp: no test cites it with the tag @on:stepUp',
      'HDR-CLIENT-ID (MUST) has no sandbox fault on stepUp: nothing proves its check there can fail',
    ],
  },
  {
    gap: 'a test of a requirement that names places, tagging none',
    input: { tests: testsWith('BEARER-EXPIRED', (t) => ({ ...t, places: [] })) },
    problems: [expect.stringMatching(/^Test ".*" \(auth\) cites BEARER-EXPIRED, which name places, but tags none/)],
    among: true,
  },
  {
    gap: 'a statement without requirements that does not say why it cannot be checked',
    input: { statements: [...statements, { part: '2.1', statement: 'a rule', requirements: [] }] },
    problems: ['Statement of part 2.1: "a rule" has no requirement and no reason why it cannot be checked'],
  },
];

for (const { gap, input, problems, among } of gaps)
  test(`npm run coverage reports each gap of the interface document's coverage: ${gap}`, () => {
    const found = analyseCoverage({ statements, requirements, tests: fullListing(), faults, ...input }).problems;
    expect(found).toEqual(among ? expect.arrayContaining(problems) : problems);
  });
