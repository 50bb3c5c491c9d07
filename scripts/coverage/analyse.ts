import type { Level, Requirement } from '../../catalog/catalog.ts';

/** One statement of the interface document with a rule in it (catalog/statements.json). */
export interface Statement {
  part: string;
  statement: string;
  requirements: string[];
  /** Only the tests of the requirement whose title includes this check the statement (one row of a table). */
  testTitleIncludes?: string;
  /** Why no server-side check can observe the statement. */
  notCheckable?: string;
}

/** A test of the conformance suite as a listing shows it: its title, project and the requirement tags it carries. */
export interface ListedTest {
  title: string;
  project: string;
  ids: string[];
}

export interface StatementRow {
  statement: Statement;
  checks: Array<{ id: string; level: Level | '?'; tests: number; faults: string[] }>;
  problem?: string;
}

export interface Coverage {
  rows: StatementRow[];
  /** Problems that fail the coverage: statements without a check, MUST requirements without a fault, and so on. */
  problems: string[];
}

/**
 * Joins the document's statements with the requirements, the tests that cite them and the sandbox faults that
 * violate them. A statement is covered when one of its requirements has a test (narrowed by testTitleIncludes);
 * every MUST requirement needs a fault, every requirement a statement and a test.
 */
export function analyseCoverage(input: {
  statements: readonly Statement[];
  requirements: readonly Requirement[];
  tests: readonly ListedTest[];
  faults: ReadonlyArray<{ id: string; requirement: string }>;
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
    else if (statement.requirements.length === 0 && !statement.notCheckable) problem = 'has no requirement and no reason why it cannot be checked';
    else if (statement.requirements.length > 0 && !checks.some((c) => c.tests > 0)) {
      problem = `has no check: no test cites ${statement.requirements.join(' or ')}${statement.testTitleIncludes ? ` with "${statement.testTitleIncludes}" in its title` : ''}`;
    }
    if (problem) problems.push(`Statement of ${where} ${problem}`);
    return { statement, checks, ...(problem ? { problem } : {}) };
  });

  const stated = new Set(input.statements.flatMap((s) => s.requirements));
  for (const req of input.requirements) {
    if (!stated.has(req.id)) problems.push(`${req.id} (${req.level}) checks no statement of catalog/statements.json`);
    if (testsOf(req.id).length === 0) problems.push(`${req.id} (${req.level}) has no test`);
    if (req.level === 'MUST' && faultsOf(req.id).length === 0) problems.push(`${req.id} (MUST) has no sandbox fault: nothing proves its checks can fail`);
  }
  for (const fault of input.faults) {
    if (!byId.has(fault.requirement)) problems.push(`Fault ${fault.id} names ${fault.requirement}, which the catalog does not have`);
  }
  return { rows, problems };
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The coverage table: statement, requirement and level, how many checks, which faults. */
export function coverageMarkdown(coverage: Coverage): string {
  const lines = [
    '# Coverage of the interface document',
    '',
    `${coverage.rows.length} statements; ${coverage.problems.length === 0 ? 'every one has a check, and every MUST a fault.' : `${coverage.problems.length} problems:`}`,
    ...coverage.problems.map((p) => `- ${p}`),
    '',
    '| Part | Statement | Requirement | Level | Checks | Faults |',
    '|---|---|---|---|---|---|',
  ];
  for (const row of coverage.rows) {
    const { part, statement, notCheckable } = row.statement;
    if (row.checks.length === 0) lines.push(`| ${part} | ${cell(statement)} | — | — | not checkable: ${cell(notCheckable ?? '')} | — |`);
    for (const check of row.checks) {
      lines.push(`| ${part} | ${cell(statement)} | ${check.id} | ${check.level} | ${check.tests} | ${check.faults.join(', ') || '—'} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
