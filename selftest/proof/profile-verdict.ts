import { requirements } from '../../catalog/catalog.ts';
import type { Profile } from '../../kit/verdict-marks.ts';
import { runVerdict } from '../../reporters/run-verdict.ts';
import { verdictsFor, type TestRecord } from '../../reporters/verdicts.ts';

/** How a run ends, whatever the words: every MUST exercised and held; held but some left out; or failed. */
export type VerdictOutcome = 'conformant' | 'passed-incomplete' | 'not-conformant';

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
  shouldWarned: string[];
}

/**
 * The verdict of one run's results under a profile: the marks are the profile's own business only here, so one run
 * is judged under gate and certify alike. The proof's one call of the verdict engine (reporters/run-verdict.ts).
 */
export function profileVerdict(records: readonly TestRecord[], profile: Profile): ProfileVerdict {
  const verdicts = verdictsFor(requirements, records);
  const run = runVerdict(verdicts, profile);
  const { reasons, words: result } = run;
  const must = verdicts.filter((v) => v.level === 'MUST');
  const ids = (outcome: string) => must.filter((v) => v.outcome === outcome).map((v) => v.id);
  return {
    outcome: run.exitCode !== 0 ? 'not-conformant' : run.conformant ? 'conformant' : 'passed-incomplete',
    result,
    reasons,
    mustFailed: ids('failed'),
    mustBlocked: ids('blocked'),
    mustNotConfigured: must
      .filter((v) => v.outcome === 'not-configured')
      .map((v) => ({ id: v.id, detail: v.tests.find((t) => t.outcome === 'not-configured')?.detail ?? '' })),
    shouldWarned: verdicts.filter((v) => v.level === 'SHOULD' && v.outcome === 'warning').map((v) => v.id),
  };
}
