import { operation, placesOf, type Level, type Requirement } from '../../catalog/catalog.ts';
import {
  bodyOperations,
  requiredRows,
  requiredTitleStart,
  unjudgedTypes,
  wrongTypeRows,
  wrongTypeTitleStart,
} from '../../kit/builders/request-members.ts';
import { fieldsOf, type FieldShape } from '../../schemas/fields.ts';
import { schemaDocument, schemaIdFor } from '../../schemas/registry.ts';

/** One statement of the interface document with a rule in it (catalog/statements.json, or generated from schemas/). */
export interface Statement {
  part: string;
  statement: string;
  requirements: string[];
  /** Only the tests of the requirement whose title includes this check the statement (one row of a table). */
  testTitleIncludes?: string;
  /** Why no server-side check can observe the statement. */
  notCheckable?: string;
  /** Generated from a schema of schemas/, not listed in catalog/statements.json. */
  generated?: boolean;
}

/** A test of the conformance suite as a listing shows it: its title, project, the requirement tags and the places it checks. */
export interface ListedTest {
  title: string;
  project: string;
  ids: string[];
  places: string[];
}

export interface CoverageFault {
  id: string;
  requirement: string;
  place?: string;
  /** The kind of traffic that shows it (sandbox/faults.ts faultClasses). */
  class?: string;
}

export interface StatementRow {
  statement: Statement;
  checks: Array<{ id: string; level: Level | '?'; tests: number; faults: string[] }>;
  problem?: string;
}

/** One requirement on one place it names: the tests that check it there and the faults that break it there. */
export interface PlaceCell {
  requirement: string;
  level: Level;
  place: string;
  tests: number;
  faults: string[];
}

export interface Coverage {
  rows: StatementRow[];
  cells: PlaceCell[];
  /** The faults' ids by their class (sandbox/faults.ts faultClasses). */
  faultsByClass: Record<string, string[]>;
  /** Problems that fail the coverage: statements without a check, MUST requirements without a fault, empty cells... */
  problems: string[];
}

const typeWords = (field: FieldShape) =>
  `${field.types.join(' or ')}${field.items ? ` of ${field.items.join(' or ')}` : ''}${field.enumName ? ` (${field.enumName})` : ''}`;

/**
 * The statements of each member's type and requiredness in the tables of part 2 and 6, generated from schemas/ and the
 * requirements that claim them: requests (wrongTypes, requiredOf), answers and events (checksSchema, checksDefinition).
 */
export function generatedStatements(requirements: readonly Requirement[]): Statement[] {
  const statements: Statement[] = [];
  for (const op of bodyOperations) {
    const title = String(schemaDocument(operation(op).requestSchema as string)['title']);
    for (const row of wrongTypeRows(op)) {
      const field = fieldsOf(operation(op).requestSchema as string).find((f) => f.name === row.field) as FieldShape;
      statements.push({
        part: requirementPart(requirements, row.requirement),
        statement: `${title}: ${row.field} is ${typeWords(field)} (wrong: ${row.variants.map((v) => v.key).join(', ')})`,
        requirements: [row.requirement],
        testTitleIncludes: wrongTypeTitleStart(op, row.field),
        generated: true,
      });
    }
    for (const row of requiredRows(op)) {
      statements.push({
        part: requirementPart(requirements, row.requirement),
        statement: `${title}: ${row.field} is required`,
        requirements: [row.requirement],
        testTitleIncludes: requiredTitleStart(op, row.field),
        generated: true,
      });
    }
  }
  const byDefinition = new Map(
    requirements.filter((r) => r.checksDefinition).map((r) => [r.checksDefinition as string, r]),
  );
  for (const req of requirements.filter((r) => r.checksSchema)) {
    const schemaId = schemaIdFor(req.checksSchema as string);
    const title = String(schemaDocument(schemaId)['title']);
    for (const field of fieldsOf(schemaId)) {
      const refs = JSON.stringify((schemaDocument(schemaId)['properties'] as Record<string, unknown>)[field.name]);
      const special = [...byDefinition.entries()].find(([definition]) => refs.includes(`/$defs/${definition}"`))?.[1];
      const judge = special ?? req;
      statements.push({
        part: judge.part,
        statement: `${title}: ${field.name} is ${typeWords(field)}${field.required ? ', required' : ''}`,
        requirements: [judge.id],
        generated: true,
      });
    }
  }
  return statements;
}

function requirementPart(requirements: readonly Requirement[], id: string): string {
  return requirements.find((r) => r.id === id)?.part ?? '?';
}

/**
 * Joins the document's statements with the requirements, the tests that cite them and the sandbox faults that violate
 * them. A statement is covered when one of its requirements has a test (narrowed by testTitleIncludes); every MUST
 * requirement needs a fault, every requirement a statement and a test; and every requirement on every place it names
 * (an operation, an event) needs a test that checks it there and, unless INFO, a fault that breaks it there.
 */
export function analyseCoverage(input: {
  statements: readonly Statement[];
  requirements: readonly Requirement[];
  tests: readonly ListedTest[];
  faults: readonly CoverageFault[];
}): Coverage {
  const problems: string[] = [];
  const byId = new Map(input.requirements.map((r) => [r.id, r]));
  const testsOf = (id: string, titleIncludes?: string) =>
    input.tests.filter((t) => t.ids.includes(id) && (titleIncludes === undefined || t.title.includes(titleIncludes)));
  const faultsOf = (id: string) => input.faults.filter((f) => f.requirement === id).map((f) => f.id);

  const rows = input.statements.map((statement): StatementRow => {
    const checks = statement.requirements.map((id) => ({
      id,
      level: byId.get(id)?.level ?? ('?' as const),
      tests: testsOf(id, statement.testTitleIncludes).length,
      faults: faultsOf(id),
    }));
    const where = `part ${statement.part}: "${statement.statement}"`;
    let problem: string | undefined;
    const unknown = checks.filter((c) => c.level === '?').map((c) => c.id);
    if (unknown.length) problem = `names requirements the catalog does not have: ${unknown.join(', ')}`;
    else if (statement.requirements.length === 0 && !statement.notCheckable)
      problem = 'has no requirement and no reason why it cannot be checked';
    else if (statement.requirements.length > 0 && !checks.some((c) => c.tests > 0)) {
      problem = `has no check: no test cites ${statement.requirements.join(' or ')}${statement.testTitleIncludes ? ` with "${statement.testTitleIncludes}" in its title` : ''}`;
    }
    if (problem) problems.push(`Statement of ${where} ${problem}`);
    return { statement, checks, ...(problem ? { problem } : {}) };
  });

  const stated = new Set(input.statements.flatMap((s) => s.requirements));
  for (const req of input.requirements) {
    if (!stated.has(req.id)) problems.push(`${req.id} (${req.level}) checks no statement of the document`);
    if (testsOf(req.id).length === 0) problems.push(`${req.id} (${req.level}) has no test`);
    if (req.level === 'MUST' && faultsOf(req.id).length === 0)
      problems.push(`${req.id} (MUST) has no sandbox fault: nothing proves its checks can fail`);
  }
  for (const fault of input.faults) {
    const req = byId.get(fault.requirement);
    if (!req) problems.push(`Fault ${fault.id} names ${fault.requirement}, which the catalog does not have`);
    else if (fault.place && !placesOf(req).includes(fault.place as never))
      problems.push(
        `Fault ${fault.id} breaks ${fault.requirement} on ${fault.place}, a place the requirement does not name`,
      );
  }

  const cells: PlaceCell[] = input.requirements.flatMap((req) =>
    placesOf(req).map((place) => ({
      requirement: req.id,
      level: req.level,
      place,
      tests: input.tests.filter((t) => t.ids.includes(req.id) && t.places.includes(place)).length,
      faults: input.faults.filter((f) => f.requirement === req.id && f.place === place).map((f) => f.id),
    })),
  );
  for (const cell of cells) {
    if (cell.tests === 0)
      problems.push(
        `${cell.requirement} (${cell.level}) has no check on ${cell.place}: no test cites it with the tag @on:${cell.place}`,
      );
    if (cell.level !== 'INFO' && cell.faults.length === 0)
      problems.push(
        `${cell.requirement} (${cell.level}) has no sandbox fault on ${cell.place}: nothing proves its check there can fail`,
      );
  }
  for (const test of input.tests) {
    const placed = test.ids.filter((id) => placesOf(byId.get(id) ?? ({} as Requirement)).length > 0);
    if (placed.length > 0 && test.places.length === 0)
      problems.push(
        `Test "${test.title}" (${test.project}) cites ${placed.join(', ')}, which name places, but tags none (@on:<place>)`,
      );
  }
  const faultsByClass: Record<string, string[]> = {};
  for (const fault of input.faults) (faultsByClass[fault.class ?? 'request'] ??= []).push(fault.id);
  return { rows, cells, problems, faultsByClass };
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The coverage: statements, the requirement × place table and the member × wrong-type table. */
export function coverageMarkdown(coverage: Coverage): string {
  const lines = [
    '# Coverage of the interface document',
    '',
    `${coverage.rows.length} statements (${coverage.rows.filter((r) => r.statement.generated).length} generated from schemas/), ${coverage.cells.length} requirement × place cells; ${coverage.problems.length === 0 ? 'every statement and every cell has a check, and every MUST and every cell above INFO a fault.' : `${coverage.problems.length} problems:`}`,
    ...coverage.problems.map((p) => `- ${p}`),
    '',
    '## Requirement × operation or event',
    '',
    '| Requirement | Level | Place | Checks | Faults |',
    '|---|---|---|---|---|',
    ...coverage.cells.map(
      (c) => `| ${c.requirement} | ${c.level} | ${c.place} | ${c.tests} | ${c.faults.join(', ') || '—'} |`,
    ),
    '',
    '## Faults by class',
    '',
    '| Class | Faults | Ids |',
    '|---|---|---|',
    ...Object.entries(coverage.faultsByClass).map(
      ([name, ids]) => `| ${name} | ${ids.length} | ${name === 'request' ? '(every other fault)' : ids.join(', ')} |`,
    ),
    '',
    '## Request member × wrong JSON type',
    '',
    '| Operation | Member | Wrong types sent | Requirement |',
    '|---|---|---|---|',
    ...bodyOperations.flatMap((op) => [
      ...wrongTypeRows(op).map(
        (row) => `| ${op} | ${row.field} | ${row.variants.map((v) => v.key).join(', ')} | ${row.requirement} |`,
      ),
      ...unjudgedTypes(op).map(
        (row) =>
          `| ${op} | ${row.field} | ${row.keys.join(', ')} | left open (see the claims' exceptions in the catalog) |`,
      ),
    ]),
    '',
    '## Statements',
    '',
    '| Part | Statement | Requirement | Level | Checks | Faults |',
    '|---|---|---|---|---|---|',
  ];
  for (const row of coverage.rows) {
    const { part, statement, notCheckable } = row.statement;
    if (row.checks.length === 0)
      lines.push(`| ${part} | ${cell(statement)} | — | — | not checkable: ${cell(notCheckable ?? '')} | — |`);
    for (const check of row.checks)
      lines.push(
        `| ${part} | ${cell(statement)} | ${check.id} | ${check.level} | ${check.tests} | ${check.faults.join(', ') || '—'} |`,
      );
  }
  return `${lines.join('\n')}\n`;
}
