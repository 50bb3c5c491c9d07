import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { requirements, rfcClauses, type RfcClause } from '../catalog/catalog.ts';
import { clientRequirements, type ClientRequirement } from '../catalog/client-catalog.ts';

/** What a level rests on, for one row of either catalog. */
type SourcedRow = Pick<ClientRequirement, 'id' | 'level' | 'source' | 'sourceNote' | 'procedure'>;

const statementIds = (
  JSON.parse(readFileSync(new URL('../catalog/statements.json', import.meta.url), 'utf8')) as {
    statements: Array<{ id?: string }>;
  }
).statements.map((s) => s.id);
const strongKeywords: ReadonlyArray<RfcClause['keyword']> = ['MUST', 'SHOULD', 'REQUIRED', 'RECOMMENDED'];

/**
 * Why a row's level does not follow from its sources: a MUST rests on a sentence of the document (a statement); a
 * SHOULD on an RFC clause whose keyword is MUST, SHOULD, REQUIRED or RECOMMENDED, or, with a note saying why, on a
 * statement; a row resting only on MAY clauses is INFO; every source exists; a procedure row has none.
 */
function levelProblems(rows: readonly SourcedRow[], statements: Set<string>, clauses: readonly RfcClause[]): string[] {
  const problems: string[] = [];
  const clauseOf = new Map(clauses.map((c) => [c.id, c]));
  for (const row of rows) {
    const source = row.source ?? [];
    const unknown = source.filter((id) => !statements.has(id) && !clauseOf.has(id));
    if (unknown.length > 0)
      problems.push(
        `${row.id}: source ${unknown.join(', ')} is neither a statement of catalog/statements.json nor a clause of catalog/rfc-clauses.json`,
      );
    const stated = source.filter((id) => statements.has(id));
    const rfc = source.map((id) => clauseOf.get(id)).filter((c): c is RfcClause => c !== undefined);
    if (row.procedure) {
      if (source.length > 0) problems.push(`${row.id}: a procedure row rests on no source`);
      continue;
    }
    if (row.level === 'MUST' && stated.length === 0)
      problems.push(`${row.id} (MUST): no sentence of the document (a statement id) among its sources`);
    const justified =
      rfc.some((c) => strongKeywords.includes(c.keyword)) || (!!row.sourceNote?.trim() && stated.length > 0);
    if (row.level === 'SHOULD' && !justified)
      problems.push(
        `${row.id} (SHOULD): no RFC clause of keyword ${strongKeywords.join(', ')} among its sources, and no sourceNote justifying a statement`,
      );
    if (row.level !== 'INFO' && source.length > 0 && stated.length === 0 && rfc.every((c) => c.keyword === 'MAY'))
      problems.push(`${row.id} (${row.level}): rests only on MAY clauses, so it is INFO`);
  }
  return problems;
}

test.describe('levels by source (catalog/requirements.json, catalog/client-requirements.json)', () => {
  test('statement ids and RFC clause ids are unique and well-formed', () => {
    const malformed = statementIds.filter((id) => typeof id !== 'string' || !/^ST-[0-9.]+-[A-Z0-9-]+$/.test(id));
    expect(malformed, 'every statement has an id ST-<part>-<WORDS>').toEqual([]);
    expect(new Set(statementIds).size).toBe(statementIds.length);
    expect(new Set(rfcClauses.map((c) => c.id)).size).toBe(rfcClauses.length);
    expect(rfcClauses.filter((c) => ![...strongKeywords, 'MAY'].includes(c.keyword)).map((c) => c.id)).toEqual([]);
  });

  // A MUST or SHOULD with no source at all is one of these problems too.
  test('every MUST rests on a statement of the document, every SHOULD on an RFC clause that says MUST, SHOULD, REQUIRED or RECOMMENDED, and every source exists', () => {
    const statements = new Set(statementIds.filter((id): id is string => id !== undefined));
    expect(levelProblems([...requirements, ...clientRequirements], statements, rfcClauses)).toEqual([]);
  });

  const statements = new Set(['ST-2.5-TAGS-APPEND']);
  const clauses: RfcClause[] = [
    { id: 'RFC-MAY', rfc: 'RFC 0', section: '1', keyword: 'MAY', statement: 'may' },
    { id: 'RFC-SHOULD', rfc: 'RFC 0', section: '2', keyword: 'SHOULD', statement: 'should' },
  ];
  // Each row, then how each problem found with it starts.
  const cases: Array<[SourcedRow, ...string[]]> = [
    [{ id: 'OK-MUST', level: 'MUST', source: ['ST-2.5-TAGS-APPEND'] }],
    [{ id: 'OK-SHOULD', level: 'SHOULD', source: ['RFC-SHOULD'] }],
    [{ id: 'OK-PROC', level: 'MUST', procedure: true }],
    [{ id: 'BAD-MUST', level: 'MUST', source: ['RFC-SHOULD'] }, ' (MUST): no sentence of the document'],
    [{ id: 'BAD-SHOULD', level: 'SHOULD', source: ['ST-2.5-TAGS-APPEND'] }, ' (SHOULD): no RFC clause'],
    [
      { id: 'MAY-ONLY', level: 'SHOULD', source: ['RFC-MAY'] },
      ' (SHOULD): no RFC clause',
      ' (SHOULD): rests only on MAY clauses, so it is INFO',
    ],
    [{ id: 'GONE', level: 'INFO', source: ['ST-NOWHERE'] }, ': source ST-NOWHERE is neither'],
  ];
  for (const [row, ...problems] of cases)
    test(`the rules hold a level to its sources: ${row.id} (${row.level}${row.procedure ? ', a procedure' : ` on ${row.source?.join(', ')}`})`, () => {
      const expected = problems.map((p) => expect.stringContaining(row.id + p));
      expect(levelProblems([row], statements, clauses)).toEqual(expected);
    });
});
