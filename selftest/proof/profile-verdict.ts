import { requirements, type Level } from '../../catalog/catalog.ts';
import type { Profile } from '../../kit/verdict-marks.ts';
import { judgeRun } from '../../reporters/run-verdict.ts';
import { outcomeLabel } from '../../reporters/run-summary.ts';
import type { TestRecord } from '../../reporters/verdicts.ts';
import { unlocksByRequirement } from '../../runner/config/optional-settings.ts';

/** How a run ends, whatever the words: every MUST exercised and held; held but some left out; or failed. */
export type VerdictOutcome = 'conformant' | 'passed-incomplete' | 'not-conformant';

/** A row the configuration left out, as the run's reports show it. */
export interface NotConfiguredRow {
  id: string;
  level: Level;
  /** The variables the row names (conformance.json's `configure`), the doctor's table's first. */
  configure: string[];
  /** Its outcome in the matrix (conformance.md and .html): "not configured (set …)". */
  label: string;
  /** The reasons of its tests, each naming what to set. */
  details: string[];
}

/** A run's verdict under one profile, as the verdict engine gives it, with the rows behind it. */
export interface ProfileVerdict {
  outcome: VerdictOutcome;
  /** The engine's own words for the run, and why it fails under the profile. */
  result: string;
  reasons: string[];
  mustFailed: string[];
  mustBlocked: string[];
  /** MUST rows the configuration left out, each with the test's reason (it names the variable to set). */
  mustNotConfigured: Array<{ id: string; detail: string }>;
  /** Every row the configuration left out, whatever its level. */
  notConfigured: NotConfiguredRow[];
  shouldWarned: string[];
}

/**
 * The verdict of one run's results under a profile: the marks are the profile's own business only here, so one run
 * is judged under gate and certify alike. The conformance reporter's own judgement (reporters/run-verdict.ts
 * judgeRun, with the optional settings' table of the variables that unlock each requirement), without a ledger.
 */
export function profileVerdict(records: readonly TestRecord[], profile: Profile): ProfileVerdict {
  const { verdicts, run } = judgeRun(requirements, records, profile, { unlocks: unlocksByRequirement() });
  const { reasons, words: result } = run;
  const must = verdicts.filter((v) => v.level === 'MUST');
  const ids = (outcome: string) => must.filter((v) => v.outcome === outcome).map((v) => v.id);
  const notConfigured = verdicts.filter((v) => v.outcome === 'not-configured');
  const detailsOf = (v: (typeof verdicts)[number]) =>
    v.tests.filter((t) => t.outcome === 'not-configured').map((t) => t.detail ?? '');
  return {
    outcome: run.exitCode !== 0 ? 'not-conformant' : run.conformant ? 'conformant' : 'passed-incomplete',
    result,
    reasons,
    mustFailed: ids('failed'),
    mustBlocked: ids('blocked'),
    mustNotConfigured: notConfigured
      .filter((v) => v.level === 'MUST')
      .map((v) => ({ id: v.id, detail: detailsOf(v)[0] ?? '' })),
    notConfigured: notConfigured.map((v) => ({
      id: v.id,
      level: v.level,
      configure: v.configure ?? [],
      label: outcomeLabel(v),
      details: detailsOf(v),
    })),
    shouldWarned: verdicts.filter((v) => v.level === 'SHOULD' && v.outcome === 'warning').map((v) => v.id),
  };
}
