import type { Level } from '../catalog/catalog.ts';
import type { LedgerEntry } from '../schemas/ledger.ts';
import { blockedByTarget, blockedCause, isCertifying, warningsFail, type Profile } from '../kit/verdict-marks.ts';
import { applyLedger } from './ledger.ts';
import {
  verdictsFor,
  type JudgedRequirement,
  type RequirementOutcome,
  type RequirementVerdict,
  type TestRecord,
} from './verdicts.ts';

export type { Profile } from '../kit/verdict-marks.ts';

/**
 * The first words of a run's verdict. "not conformant" (a requirement fails the profile) and "failed" (the run itself
 * failed: no test ran, an error outside the tests, a ledger problem) come with exit 1, the others with exit 0.
 */
export type VerdictWord = 'conformant' | 'passed' | 'partial run' | 'not conformant' | 'failed';

/**
 * What a run's requirement outcomes make of it under a profile: the words every output prints, the exit code, and the
 * reasons. The one place this is decided; docs/verdicts.md is generated from it (scripts/verdict-table.ts).
 */
export interface RunVerdict {
  profile: Profile;
  word: VerdictWord;
  /** The verdict line: "conformant, with 2 warnings (TOK-NO-STORE, ...)", "passed; incomplete: ...", "not conformant: ...". */
  words: string;
  exitCode: 0 | 1;
  /** Every MUST exercised (or never produced by the target) and held, nothing failed: what a certification states. */
  conformant: boolean;
  /** Why the run fails under the profile, one line each; empty exactly when the exit code is 0. */
  reasons: string[];
  /** Listed, never failing (but under certify-strict): SHOULD requirements that warned, failed or were blocked. */
  warnings: string[];
  /** MUST requirements the target never produced anything for (listed; they never fail a run). */
  notProduced: string[];
  /** MUST requirements the configuration left out, and the variables that would configure them. */
  notConfigured: { requirements: string[]; set: string[] };
  /** MUST requirements whose tests ended without checking them. */
  notExercised: string[];
  /** MUST requirements no test of this run cites (a --grep or --project filter). */
  uncovered: string[];
  /** Failures the ledger lists as known (gate and nightly only). */
  known: string[];
  /** What a reader should know and that fails nothing (ledger entries whose requirement changed level). */
  notices: string[];
  must: { total: number; held: number };
}

/** What a run can be told besides its requirement outcomes. */
export interface RunContext {
  /** Problems of the run itself that fail it whatever the profile: no test ran, an error outside the tests, the ledger's. */
  problems?: readonly string[];
  /** Notices printed with the verdict; they fail nothing. */
  notices?: readonly string[];
}

const MUST_COVERAGE = new Set<RequirementOutcome>(['not-exercised', 'not-configured', 'uncovered']);
const WARNED = new Set<RequirementOutcome>(['warning', 'failed', 'blocked']);

/** Whether one requirement's outcome fails a run under the profile (and the JUnit test case behind it). */
export function failsRun(level: Level, outcome: RequirementOutcome, profile: Profile): boolean {
  if (level === 'MUST')
    return outcome === 'failed' || outcome === 'blocked' || (isCertifying(profile) && MUST_COVERAGE.has(outcome));
  if (level === 'SHOULD') return warningsFail(profile) && WARNED.has(outcome);
  return false;
}

/** Ids in a line: all of them up to eight, then how many more. */
export function idList(ids: readonly string[], max = 8): string {
  return ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')}, … ${ids.length - max} more`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * What blocked a requirement: the first cause of its blocked tests that is the target's, else the first cause, whether
 * its checks were tried or not.
 */
function blockCause(v: RequirementVerdict): string {
  const causes = v.tests.filter((t) => t.outcome === 'blocked').map((t) => blockedCause(t.detail ?? 'unknown'));
  return causes.find(blockedByTarget) ?? causes[0] ?? 'unknown';
}

/** "ID, ID (blocked by: what kept the check from running)", one group per cause. */
function blockedList(verdicts: readonly RequirementVerdict[]): string {
  const byCause = new Map<string, string[]>();
  for (const v of verdicts) {
    const cause = blockCause(v);
    byCause.set(cause, [...(byCause.get(cause) ?? []), v.id]);
  }
  return [...byCause].map(([cause, ids]) => `${ids.join(', ')} (blocked by: ${cause})`).join('; ');
}

/** How the reasons a run fails for begin, for readers that list them apart (the console). */
export const BLOCKED_REASON = 'MUST requirements blocked';

export const NOT_PRODUCED_WORDS = 'not exercised: the target never produced it';

/**
 * The verdict of a run: words, exit code and reasons from its requirement outcomes and the profile (docs/verdicts.md).
 * gate and nightly fail on a MUST failed or blocked; certify also on a MUST not exercised, not configured or
 * uncovered, and lists SHOULD warnings; certify-strict also fails on those warnings. A MUST the target never produced
 * anything for is listed and fails no profile. No exit 0 reads "not conformant".
 */
export function runVerdict(
  verdicts: readonly RequirementVerdict[],
  profile: Profile,
  context: RunContext = {},
): RunVerdict {
  const must = verdicts.filter((v) => v.level === 'MUST');
  const ids = (outcome: RequirementOutcome, level: Level = 'MUST') =>
    verdicts.filter((v) => v.level === level && v.outcome === outcome).map((v) => v.id);
  const failed = ids('failed');
  const blocked = must.filter((v) => v.outcome === 'blocked');
  // Blocked because nothing at all reached the receiver: the target's doing, or the tester's public URL's.
  const undecided = blocked.filter((v) => !blockedByTarget(blockCause(v)));
  const byTarget = blocked.filter((v) => !undecided.includes(v));
  const notConfiguredRows = must.filter((v) => v.outcome === 'not-configured');
  const notConfigured = {
    requirements: notConfiguredRows.map((v) => v.id),
    set: [...new Set(notConfiguredRows.flatMap((v) => v.configure ?? []))],
  };
  const notExercised = ids('not-exercised');
  const uncovered = ids('uncovered');
  const notProduced = ids('not-produced');
  const warnings = verdicts.filter((v) => v.level === 'SHOULD' && WARNED.has(v.outcome)).map((v) => v.id);
  const known = verdicts.filter((v) => v.outcome === 'known').map((v) => v.id);
  const certifying = isCertifying(profile);
  const setList = notConfigured.set.length ? ` (set ${idList(notConfigured.set)})` : '';

  // One reason per line, and a short form of each for the verdict line.
  const reasons: string[] = [...(context.problems ?? [])];
  const short: string[] = (context.problems ?? []).map((p) => p.split(':')[0] ?? p);
  const add = (long: string, brief: string) => {
    reasons.push(long);
    short.push(brief);
  };
  if (failed.length)
    add(`MUST requirements failed: ${failed.join(', ')}`, `${failed.length} MUST failed (${idList(failed, 4)})`);
  if (byTarget.length)
    add(
      `${BLOCKED_REASON} by the target: ${blockedList(byTarget)}`,
      `${byTarget.length} MUST blocked by the target (${idList(
        byTarget.map((v) => v.id),
        4,
      )})`,
    );
  if (undecided.length)
    add(
      `${BLOCKED_REASON}: ${blockedList(undecided)}`,
      `${undecided.length} MUST blocked, no webhook reached the receiver (${idList(
        undecided.map((v) => v.id),
        4,
      )})`,
    );
  if (certifying && notConfigured.requirements.length) {
    add(
      `MUST requirements not configured (${profile} profile): ${notConfigured.requirements.join(', ')}${setList}`,
      `${notConfigured.requirements.length} MUST not configured${setList}`,
    );
  }
  if (certifying && notExercised.length)
    add(
      `MUST requirements not exercised (${profile} profile): ${notExercised.join(', ')}`,
      `${notExercised.length} MUST not exercised (${idList(notExercised, 4)})`,
    );
  if (certifying && uncovered.length) {
    add(
      `partial run: ${plural(uncovered.length, 'MUST requirement')} without a test in this run (${idList(uncovered, 4)}); a certification covers the whole suite`,
      `partial run (${must.length - uncovered.length} of ${must.length} MUST in this run)`,
    );
  }
  if (warningsFail(profile) && warnings.length)
    add(
      `SHOULD requirements warned (${profile} profile): ${warnings.join(', ')}`,
      `${plural(warnings.length, 'SHOULD warning')} (${idList(warnings, 4)})`,
    );

  const held = must.filter((v) => v.outcome === 'passed' || v.outcome === 'not-produced').length;
  const warningWords = warnings.length ? `, with ${plural(warnings.length, 'warning')} (${idList(warnings, 4)})` : '';
  const notProducedWords = notProduced.length
    ? `; ${notProduced.length} MUST ${NOT_PRODUCED_WORDS} (${idList(notProduced, 4)})`
    : '';
  const base = {
    profile,
    reasons,
    warnings,
    notProduced,
    notConfigured,
    notExercised,
    uncovered,
    known,
    notices: [...(context.notices ?? [])],
    must: { total: must.length, held },
  };

  if (reasons.length > 0) {
    const word: VerdictWord = reasons.length > (context.problems?.length ?? 0) ? 'not conformant' : 'failed';
    return { ...base, word, words: `${word}: ${short.join('; ')}`, exitCode: 1, conformant: false };
  }
  const incomplete = [
    ...(notConfigured.requirements.length
      ? [`${notConfigured.requirements.length} MUST not configured${setList}`]
      : []),
    ...(notExercised.length ? [`${notExercised.length} MUST not exercised (${idList(notExercised, 4)})`] : []),
  ];
  const knownWords = known.length
    ? `; ${plural(known.length, 'known failure')} listed in the ledger (${idList(known, 4)})`
    : '';
  const incompleteWords = incomplete.length ? `; incomplete: ${incomplete.join(', ')}` : '';
  if (uncovered.length > 0) {
    return {
      ...base,
      word: 'partial run',
      words: `partial run: ${held} of ${must.length} MUST exercised, no failures${warningWords}${incompleteWords}${knownWords}${notProducedWords}`,
      exitCode: 0,
      conformant: false,
    };
  }
  if (incomplete.length > 0 || known.length > 0) {
    return {
      ...base,
      word: 'passed',
      words: `passed${warningWords}${incompleteWords}${knownWords}${notProducedWords}`,
      exitCode: 0,
      conformant: false,
    };
  }
  return {
    ...base,
    word: 'conformant',
    words: `conformant${warningWords}${notProducedWords}`,
    exitCode: 0,
    conformant: true,
  };
}

/** The reasons a run fails under the profile (runVerdict's), for callers that need only them. */
export function failureReasons(verdicts: readonly RequirementVerdict[], profile: Profile): string[] {
  return runVerdict(verdicts, profile).reasons;
}

/** A run that checked nothing, or broke outside its tests, proves nothing: it is never conformant. */
export function runProblems(testCount: number, globalErrors: readonly string[]): string[] {
  return [
    ...(testCount === 0 ? ['No test ran: check the --grep and --project filters'] : []),
    ...(globalErrors.length > 0
      ? [
          `The run broke outside the tests (${globalErrors.length} error${globalErrors.length === 1 ? '' : 's'}): ${globalErrors[0]?.split('\n')[0] ?? ''}`,
        ]
      : []),
  ];
}

/**
 * A whole run judged, as the conformance reporter does it: the tests joined with the catalog, the ledger applied
 * (never under a certify profile: a certification is not granted on promises), then runVerdict.
 */
export function judgeRun(
  catalog: readonly JudgedRequirement[],
  tests: readonly TestRecord[],
  profile: Profile,
  options: {
    ledger?: readonly LedgerEntry[];
    today?: string;
    globalErrors?: readonly string[];
    /** Listed with the verdict, failing nothing: what the preflight could not decide. */
    notices?: readonly string[];
    /**
     * The variables that unlock each requirement (runner/config/optional-settings.ts, the doctor's table): a row not
     * configured names every one of them, then any other its tests' reasons name.
     */
    unlocks?: Readonly<Record<string, readonly string[]>>;
  } = {},
): { verdicts: RequirementVerdict[]; run: RunVerdict } {
  const judged = verdictsFor(catalog, tests).map((v) => {
    const unlock = options.unlocks?.[v.id];
    if (v.outcome !== 'not-configured' || !unlock?.length) return v;
    return { ...v, configure: [...new Set([...unlock, ...(v.configure ?? [])])] };
  });
  const ledger = isCertifying(profile)
    ? { verdicts: judged, problems: [], notices: [] }
    : applyLedger(judged, options.ledger ?? [], options.today ?? new Date().toISOString().slice(0, 10));
  const run = runVerdict(ledger.verdicts, profile, {
    problems: [...runProblems(tests.length, options.globalErrors ?? []), ...ledger.problems],
    notices: [...(options.notices ?? []), ...ledger.notices],
  });
  return { verdicts: ledger.verdicts, run };
}
