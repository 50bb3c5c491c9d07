import type { RunCost } from './run-facts.ts';
import { costLines, SINCE_SHOWN, sinceLines, type NightsView } from './nights.ts';
import { blockedCause, isCertifying, isNotTried, warningsFail } from '../kit/verdict-marks.ts';
import { BLOCKED_REASON, idList, NOT_PRODUCED_WORDS, type RunVerdict } from './run-verdict.ts';
import type { RequirementVerdict } from './verdicts.ts';

export function costLine(cost: RunCost): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  return (
    `  Requests: ${cost.requests}; token endpoints asked ${cost.tokenRequests} times (${cost.tokenFetches} for the run's tokens, ` +
    `${cost.tokenRequests - cost.tokenFetches} by the token checks); waited ${seconds(cost.rateLimitWaitMs)} s on 429 answers ` +
    `(${cost.rateLimitWaits} waits, budget ${seconds(cost.rateLimitBudgetMs)} s); ${cost.rateLimitedAnswers} answers 429; ` +
    `requests in flight capped at ${cost.cap.initial} (TARGET_CONCURRENCY)${cost.cap.final < cost.cap.initial ? `, lowered to ${cost.cap.final} by the 429 answers` : ''}` +
    (cost.rounds
      ? `; concurrency: ${cost.rounds.tried} rounds of calls sent at once (${cost.rounds.rateLimited} discarded for a 429, ${cost.rounds.unanswered} for a call without an answer)`
      : '')
  );
}

/**
 * The preconditions the target broke, each once with how much stands on it: what a reader must fix first. A cause is
 * the blocked detail, the same whether the check was tried or blocked at once by the failure an earlier check met
 * (not tried: it was not waited for again), so that one broken precondition reads as one line.
 */
export function brokenPreconditions(verdicts: readonly RequirementVerdict[]): string[] {
  const byCause = new Map<string, { requirements: Set<string>; notTried: Set<string> }>();
  for (const v of verdicts) {
    for (const t of v.tests) {
      if (t.outcome !== 'blocked' || !t.detail) continue;
      const cause = blockedCause(t.detail);
      const entry = byCause.get(cause) ?? { requirements: new Set<string>(), notTried: new Set<string>() };
      entry.requirements.add(v.id);
      if (isNotTried(t.detail)) entry.notTried.add(`${t.project} ${t.location} ${t.title}`);
      byCause.set(cause, entry);
    }
  }
  const many = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return [...byCause]
    .sort((a, b) => b[1].requirements.size - a[1].requirements.size)
    .map(
      ([cause, { requirements, notTried }]) =>
        `${cause} (blocks ${many(requirements.size, 'requirement')}${notTried.size ? `; ${many(notTried.size, 'check')} not tried: blocked at once, not waited for again` : ''})`,
    );
}

/** How a requirement's outcome reads in every report: a not-configured one names what to set. */
export function outcomeLabel(v: Pick<RequirementVerdict, 'outcome' | 'configure'>): string {
  if (v.outcome === 'not-produced') return NOT_PRODUCED_WORDS;
  if (v.outcome === 'not-configured' && v.configure?.length) return `not configured (set ${v.configure.join(', ')})`;
  return v.outcome.replace('-', ' ');
}

/**
 * What a run leaves listed without failing it, or fails on, one line each after the verdict: the same lines in the
 * console, conformance.md and .html. Empty for a run where every MUST and SHOULD held.
 */
export function verdictNotes(run: RunVerdict): string[] {
  const notes: string[] = [];
  // What already fails the run is in its reasons; the notes list the rest.
  const failing = isCertifying(run.profile);
  if (run.notConfigured.requirements.length && !failing) {
    notes.push(
      `Not configured: ${run.notConfigured.requirements.length} MUST (${idList(run.notConfigured.requirements)})${run.notConfigured.set.length ? `; set ${run.notConfigured.set.join(', ')}` : ''}`,
    );
  }
  if (run.notExercised.length && !failing)
    notes.push(`Not exercised: ${run.notExercised.length} MUST ended without a check (${idList(run.notExercised)})`);
  if (run.uncovered.length && !failing)
    notes.push(
      `Not in this run: ${run.uncovered.length} MUST without a test (a --grep or --project filter; ${idList(run.uncovered)})`,
    );
  if (run.notProduced.length)
    notes.push(
      `${NOT_PRODUCED_WORDS[0]?.toUpperCase()}${NOT_PRODUCED_WORDS.slice(1)}: ${run.notProduced.length} MUST (${idList(run.notProduced)})`,
    );
  if (run.warnings.length && !warningsFail(run.profile))
    notes.push(`Warnings: ${run.warnings.length} SHOULD (${idList(run.warnings)}), listed, not failed`);
  if (run.known.length) notes.push(`Known failures (ledger): ${idList(run.known)}`);
  for (const notice of run.notices) notes.push(`Notice: ${notice}`);
  return notes;
}

/** What the console prints at the end of a run, in this order; its layout is defined here only. */
export interface ConsoleSummary {
  run: RunVerdict;
  table: string;
  broken: readonly string[];
  cost?: RunCost;
  /** What the flows waited for (reporters/event-waits.ts). */
  eventsLine?: string;
  /** A nightly run's history and what changed since the night before. */
  nights?: NightsView;
  /** "293 tests on 2 workers (CONFORMANCE_WORKERS)". */
  concurrency: string;
  matrixPath: string;
}

/**
 * The reasons the console prints after the table: not those the verdict line below says in full (a list of ids it
 * names every one of), nor the blocked ones when the broken preconditions above name their causes. The matrix has all.
 */
function consoleReasons(run: RunVerdict, brokenListed: boolean): string[] {
  const named = (id: string) => new RegExp(`(^|[^A-Z0-9-])${id}([^A-Z0-9-]|$)`).test(run.words);
  return run.reasons.filter((reason) => {
    if (brokenListed && reason.startsWith(BLOCKED_REASON)) return false;
    const ids = /^[^:]+: ([A-Z][A-Z0-9-]*(?:, [A-Z][A-Z0-9-]*)*)$/.exec(reason)?.[1];
    return !(ids && ids.split(', ').every(named));
  });
}

/** Causes of blocked checks printed in the console; the matrix lists all of them. */
export const BROKEN_SHOWN = 8;

export function summaryLines(summary: ConsoleSummary): string[] {
  const { run, broken } = summary;
  const lines = [''];
  if (broken.length) {
    lines.push('Broken preconditions: what kept checks from running (fix these first)');
    for (const line of broken.slice(0, BROKEN_SHOWN)) lines.push(`  - ${line}`);
    if (broken.length > BROKEN_SHOWN) lines.push(`  - … ${broken.length - BROKEN_SHOWN} more in ${summary.matrixPath}`);
  }
  lines.push(summary.table);
  for (const reason of consoleReasons(run, broken.length > 0)) lines.push(`  Fails: ${reason}`);
  for (const note of verdictNotes(run)) lines.push(`  ${note}`);
  lines.push(`  Run: ${summary.concurrency}`);
  if (summary.cost) lines.push(costLine(summary.cost), ...costLines(summary.cost));
  if (summary.eventsLine) lines.push(summary.eventsLine);
  if (summary.nights) {
    const { nights, since } = summary.nights;
    lines.push(`  History: ${nights.length} night${nights.length === 1 ? '' : 's'} of this target and catalog`);
    if (since) {
      const [head = '', ...changes] = sinceLines(since);
      lines.push(`  ${head}`, ...changes.slice(0, SINCE_SHOWN).map((line) => `    - ${line}`));
      if (changes.length > SINCE_SHOWN)
        lines.push(`    - … ${changes.length - SINCE_SHOWN} more in ${summary.matrixPath}`);
    }
  }
  lines.push(`  Verdict (${run.profile} profile): ${run.words}. Matrix: ${summary.matrixPath}`, '');
  return lines;
}
