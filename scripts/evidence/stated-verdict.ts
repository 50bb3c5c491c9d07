import { isCertifying, type Profile } from '../../kit/verdict-marks.ts';
import type { RunVerdict } from '../../reporters/run-verdict.ts';

/** The verdict fields of a signed statement (docs/verdicts.md), as reporters/run-verdict.ts decided them. */
export type StatedVerdict = Pick<
  RunVerdict,
  | 'word'
  | 'words'
  | 'exitCode'
  | 'conformant'
  | 'warnings'
  | 'notProduced'
  | 'notConfigured'
  | 'notExercised'
  | 'uncovered'
>;

/** The statement's verdict from the run's conformance.json; a run that wrote none states no verdict. */
export function statedVerdict(
  verdict: StatedVerdict | undefined,
  exitCode: number,
): StatedVerdict | { word: 'no verdict'; exitCode: number; conformant: false } {
  if (!verdict) return { word: 'no verdict', exitCode, conformant: false };
  const { word, words, conformant, warnings, notProduced, notConfigured, notExercised, uncovered } = verdict;
  return {
    word,
    words,
    exitCode: verdict.exitCode,
    conformant,
    warnings,
    notProduced,
    notConfigured,
    notExercised,
    uncovered,
  };
}

/** What a bundle's signed statement says of its run's verdict. */
export interface StatedRun {
  profile?: string;
  result?: string;
  verdict?: { word?: string; words?: string; conformant?: boolean; exitCode?: number; warnings?: string[] };
}

/** The verdict line verify-bundle prints: "<profile> profile: <words>". */
export function statedVerdictLine(predicate: StatedRun): string {
  return `${predicate.verdict?.words ?? predicate.result ?? '(none stated)'} (${predicate.profile ?? 'profile not stated'} profile)`;
}

/**
 * Why a verified bundle does not certify what was asked: `conformant`, a run of a certify profile that ended
 * conformant (SHOULD warnings allowed); `noWarnings`, that and no SHOULD warning. Empty when it does.
 */
export function verdictProblems(
  predicate: StatedRun,
  required: { conformant?: boolean; noWarnings?: boolean },
): string[] {
  if (!required.conformant && !required.noWarnings) return [];
  const problems: string[] = [];
  const profile = predicate.profile ?? '';
  if (!isCertifying(profile as Profile))
    problems.push(
      `the run's profile is ${profile || 'not stated'}, not certify or certify-strict: only a certification run certifies`,
    );
  if (predicate.verdict?.conformant !== true || predicate.verdict.exitCode !== 0)
    problems.push(
      `the run did not end conformant: ${predicate.verdict?.words ?? predicate.result ?? 'the statement states no verdict'}`,
    );
  const warnings = predicate.verdict?.warnings ?? [];
  if (required.noWarnings && warnings.length > 0)
    problems.push(
      `the run has ${warnings.length} SHOULD warning${warnings.length === 1 ? '' : 's'} (${warnings.join(', ')}); --require-no-warnings allows none`,
    );
  return problems;
}
