import type { Level, Requirement } from '../catalog/catalog.ts';
import { ANNOTATION } from '../fixtures/verdict.ts';

export type RequirementOutcome = 'failed' | 'warning' | 'passed' | 'observed' | 'not-exercised' | 'uncovered';

/** What the reporter keeps of one test's final result. */
export interface TestRecord {
  title: string;
  project: string;
  location: string;
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
  annotations: Array<{ type: string; description?: string }>;
  error?: string;
  errorName?: string;
}

export interface RequirementVerdict {
  id: string;
  level: Level;
  part: string;
  statement: string;
  outcome: RequirementOutcome;
  /** Tests that cite the requirement, each with its outcome for it and, when not passed, why. */
  tests: Array<{ title: string; project: string; location: string; outcome: RequirementOutcome; detail?: string }>;
  observations: string[];
}

const RANK: RequirementOutcome[] = ['failed', 'warning', 'passed', 'observed', 'not-exercised', 'uncovered'];

const idOf = (description: string | undefined) => (description ?? '').split(' ')[0] ?? '';
const detailOf = (description: string | undefined) => (description ?? '').split(' ').slice(1).join(' ');

/** The outcome of one requirement in one test, from the verdict annotations and the test's status. */
export function outcomeInTest(req: Pick<Requirement, 'id' | 'level'>, test: TestRecord): { outcome: RequirementOutcome; detail?: string } {
  const about = (type: string) => test.annotations.filter((a) => a.type === type && idOf(a.description) === req.id);
  const first = (type: string) => about(type)[0];
  if (first(ANNOTATION.fail)) return { outcome: 'failed', ...(test.error ? { detail: test.error } : {}) };
  if (first(ANNOTATION.warn)) return { outcome: 'warning', detail: detailOf(first(ANNOTATION.warn)?.description) };
  const unattributedError = (test.status === 'failed' || test.status === 'timedOut') && test.errorName !== 'PreconditionFailure' && !test.annotations.some((a) => a.type === ANNOTATION.fail);
  if (unattributedError && about(ANNOTATION.pass).length === 0) {
    if (req.level === 'MUST') return { outcome: 'failed', detail: `the check did not complete: ${test.error ?? test.status}` };
    if (req.level === 'SHOULD') return { outcome: 'warning', detail: `the check did not complete: ${test.error ?? test.status}` };
  }
  if (first(ANNOTATION.pass)) return { outcome: 'passed' };
  if (first(ANNOTATION.observed)) return { outcome: 'observed', detail: detailOf(first(ANNOTATION.observed)?.description) };
  const reason = first(ANNOTATION.notExercised) ?? first(ANNOTATION.blocked);
  if (reason) return { outcome: 'not-exercised', detail: detailOf(reason.description) };
  if (test.status === 'skipped') return { outcome: 'not-exercised', detail: 'skipped' };
  if (test.errorName === 'PreconditionFailure') return { outcome: 'not-exercised', detail: test.error ?? 'a precondition failed' };
  return { outcome: 'not-exercised', detail: 'the test ended before checking it' };
}

/** Joins test results with the catalog: one verdict per requirement, the worst outcome of the tests behind it. */
export function verdictsFor(catalog: readonly Requirement[], tests: readonly TestRecord[]): RequirementVerdict[] {
  return catalog.map((req) => {
    const citing = tests.filter((t) => t.annotations.some((a) => a.type === ANNOTATION.cites && a.description === req.id));
    const rows = citing.map((t) => ({ title: t.title, project: t.project, location: t.location, ...outcomeInTest(req, t) }));
    const outcome = rows.length === 0 ? 'uncovered' : RANK.find((candidate) => rows.some((r) => r.outcome === candidate)) ?? 'not-exercised';
    const observations = citing.flatMap((t) =>
      t.annotations.filter((a) => a.type === ANNOTATION.observed && idOf(a.description) === req.id).map((a) => detailOf(a.description)),
    );
    return { id: req.id, level: req.level, part: req.part, statement: req.statement, outcome, tests: rows, observations: [...new Set(observations)] };
  });
}

export type Profile = 'gate' | 'certify' | 'nightly';

/** Why the run fails under the profile; empty when it passes. */
export function failureReasons(verdicts: readonly RequirementVerdict[], profile: Profile): string[] {
  const reasons: string[] = [];
  const listed = (filter: (v: RequirementVerdict) => boolean) => verdicts.filter(filter).map((v) => v.id);
  const mustFailed = listed((v) => v.level === 'MUST' && v.outcome === 'failed');
  if (mustFailed.length) reasons.push(`MUST requirements failed: ${mustFailed.join(', ')}`);
  if (profile === 'certify') {
    const shouldFailed = listed((v) => v.level === 'SHOULD' && (v.outcome === 'warning' || v.outcome === 'failed'));
    if (shouldFailed.length) reasons.push(`SHOULD requirements failed (certify profile): ${shouldFailed.join(', ')}`);
    const unexercised = listed((v) => v.level === 'MUST' && (v.outcome === 'not-exercised' || v.outcome === 'uncovered'));
    if (unexercised.length) reasons.push(`MUST requirements not exercised (certify profile): ${unexercised.join(', ')}`);
  }
  return reasons;
}
