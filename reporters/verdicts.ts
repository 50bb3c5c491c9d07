import type { Level, Requirement } from '../catalog/catalog.ts';
import { settingsNamedIn } from '../schemas/variables.ts';
import { citedIds, isNotTried, marksOf, type MarkKind } from '../kit/verdict-marks.ts';

export type { Profile } from '../kit/verdict-marks.ts';

/**
 * What became of a requirement, worst first. blocked: the target prevented the check (a precondition failed, a control
 * request was refused, an expected event never came); not-exercised: the test ended without checking it (or the run
 * was interrupted); not-configured: the configuration left the check out; not-produced: the target never produced
 * what the check judges and nothing required it to (listed, never failed); uncovered: no test of this run cites it;
 * known: a failure, block or warning that conformance-ledger.json lists (reporters/ledger.ts), which does not fail the
 * gate. What each outcome makes of a run, per profile, is reporters/run-verdict.ts (docs/verdicts.md).
 */
export const OUTCOMES = [
  'failed',
  'blocked',
  'warning',
  'known',
  'passed',
  'observed',
  'not-exercised',
  'not-configured',
  'not-produced',
  'uncovered',
] as const;
export type RequirementOutcome = (typeof OUTCOMES)[number];

/** What the reporter keeps of one test's final result. */
export interface TestRecord {
  title: string;
  project: string;
  location: string;
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
  annotations: Array<{ type: string; description?: string }>;
  error?: string;
  errorName?: string;
  durationMs?: number;
}

export interface TestOutcome {
  title: string;
  project: string;
  location: string;
  outcome: RequirementOutcome;
  detail?: string;
}

export interface RequirementVerdict {
  id: string;
  level: Level;
  part: string;
  statement: string;
  outcome: RequirementOutcome;
  /** "3 checks held; 2 tests not configured" when the tests behind it did not all end the same way. */
  breakdown: string;
  /** Tests that cite the requirement, each with its outcome for it and, when not passed, why. */
  tests: TestOutcome[];
  observations: string[];
  /** When not configured: the variables (or options) that would configure it, as its tests' reasons name them. */
  configure?: string[];
}

const MARK_OUTCOME: Record<MarkKind, RequirementOutcome> = {
  fail: 'failed',
  blocked: 'blocked',
  warn: 'warning',
  pass: 'passed',
  observed: 'observed',
  'not-exercised': 'not-exercised',
  'not-produced': 'not-produced',
  'not-configured': 'not-configured',
};

const worst = (outcomes: readonly RequirementOutcome[]) => OUTCOMES.find((o) => outcomes.includes(o));

/** The outcome of one requirement in one test: the worst of its marks, or what the test's end says when it has none. */
export function outcomeInTest(
  req: Pick<Requirement, 'id' | 'level'>,
  test: TestRecord,
): { outcome: RequirementOutcome; detail?: string } {
  const marks = marksOf(test.annotations, req.id);
  const crashed =
    (test.status === 'failed' || test.status === 'timedOut') &&
    test.errorName !== 'RequirementFailure' &&
    test.errorName !== 'PreconditionFailure';
  if (marks.length > 0) {
    const outcome = worst(marks.map((m) => MARK_OUTCOME[m.kind])) ?? 'passed';
    const detail = marks.find((m) => MARK_OUTCOME[m.kind] === outcome && m.detail)?.detail;
    return { outcome, ...(detail ? { detail } : {}) };
  }
  if (crashed) return crashedOutcome(req, test);
  // A precondition that failed outside the Verdict's own checks (a helper threw it).
  if (test.errorName === 'PreconditionFailure')
    return { outcome: 'blocked', detail: test.error ?? 'a precondition failed' };
  if (test.status === 'skipped') return { outcome: 'not-configured', detail: skipReason(test) };
  if (test.status === 'interrupted') return { outcome: 'not-exercised', detail: 'the run was interrupted' };
  return { outcome: 'not-exercised', detail: 'the test ended without checking it' };
}

/** A test that ended with an error no check raised (a timeout, a TypeError): its unchecked MUST requirements failed. */
function crashedOutcome(
  req: Pick<Requirement, 'level'>,
  test: TestRecord,
): { outcome: RequirementOutcome; detail: string } {
  const detail = `the check did not complete: ${test.error ?? test.status}`;
  return { outcome: req.level === 'MUST' ? 'failed' : req.level === 'SHOULD' ? 'warning' : 'not-exercised', detail };
}

function skipReason(test: TestRecord): string {
  return test.annotations.find((a) => a.type === 'skip')?.description ?? 'skipped';
}

/** How many tests ended so, in words that say what was checked: "3 checks held", "33 tests did not reach it". */
function testsEnded(outcome: RequirementOutcome, n: number): string {
  const s = n === 1 ? '' : 's';
  switch (outcome) {
    case 'passed':
      return `${n} check${s} held`;
    case 'failed':
      return `${n} check${s} failed`;
    case 'blocked':
      return `${n} check${s} blocked by the target`;
    case 'warning':
      return `${n} check${s} warned`;
    case 'known':
      return `${n} known failure${s}`;
    case 'observed':
      return `${n} observation${s} recorded`;
    case 'not-exercised':
      return `${n} test${s} did not reach it`;
    case 'not-configured':
      return `${n} test${s} not configured`;
    case 'not-produced':
      return `${n} test${s} waited for what the target never produced`;
    default:
      return `${n} ${outcome.replace('-', ' ')}`;
  }
}

/**
 * "3 checks held; 2 tests not configured", or "" when every test ended the same way: the requirement's own outcome
 * first; with "; N not tried" when blocked tests were blocked at once by a precondition that had already failed for
 * an earlier check (Verdict.notTried).
 */
function breakdownOf(outcome: RequirementOutcome, rows: readonly TestOutcome[]): string {
  const counts = OUTCOMES.map((o) => [o, rows.filter((r) => r.outcome === o).length] as const).filter(([, n]) => n > 0);
  const notTried = rows.filter((r) => r.outcome === 'blocked' && isNotTried(r.detail ?? '')).length;
  if (counts.length <= 1 && notTried === 0) return '';
  const own = rows.filter((r) => r.outcome === outcome).length;
  return [
    testsEnded(outcome, own),
    ...counts.filter(([o]) => o !== outcome).map(([o, n]) => testsEnded(o, n)),
    ...(notTried ? [`${notTried} not tried`] : []),
  ].join('; ');
}

/** What the engine needs of a requirement: the server catalog's and the client catalog's both have it. */
export type JudgedRequirement = Pick<Requirement, 'id' | 'level' | 'part' | 'statement'>;

/** Joins test results with the catalog: one verdict per requirement, the worst outcome of the tests behind it. */
export function verdictsFor(catalog: readonly JudgedRequirement[], tests: readonly TestRecord[]): RequirementVerdict[] {
  return catalog.map((req) => {
    const citing = tests.filter((t) => citedIds(t.annotations).includes(req.id));
    const rows = citing.map((t) => ({
      title: t.title,
      project: t.project,
      location: t.location,
      ...outcomeInTest(req, t),
    }));
    const outcome = worst(rows.map((r) => r.outcome)) ?? 'uncovered';
    const observations = citing.flatMap((t) =>
      marksOf(t.annotations, req.id)
        .filter((m) => m.kind === 'observed')
        .map((m) => m.detail),
    );
    const configure =
      outcome === 'not-configured'
        ? [
            ...new Set(
              rows.filter((r) => r.outcome === 'not-configured').flatMap((r) => settingsNamedIn(r.detail ?? '')),
            ),
          ]
        : [];
    return {
      id: req.id,
      level: req.level,
      part: req.part,
      statement: req.statement,
      outcome,
      breakdown: breakdownOf(outcome, rows),
      tests: rows,
      observations: [...new Set(observations)],
      ...(configure.length ? { configure } : {}),
    };
  });
}
