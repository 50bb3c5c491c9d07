import type { RunStats } from '../harness/run/broker.ts';
import type { RequirementVerdict } from './verdicts.ts';

/** What a run cost the target: requests, token requests and time spent waiting out 429s (from the run's broker). */
export interface RunCost {
  requests: number;
  tokenRequests: number;
  /** Of those, the ones the broker sent for the run's tokens (one per token endpoint and credential, unless renewed). */
  tokenFetches: number;
  rateLimitWaitMs: number;
  rateLimitWaits: number;
  rateLimitBudgetMs: number;
  /** Rounds of calls sent at once by the concurrency checks, and those discarded (a 429, a call without an answer). */
  rounds?: { tried: number; rateLimited: number; unanswered: number };
}

export function runCost(stats: RunStats): RunCost {
  return {
    requests: stats.workers.requests + stats.tokenFetches,
    tokenRequests: stats.workers.tokenRequests + stats.tokenFetches,
    tokenFetches: stats.tokenFetches,
    rateLimitWaitMs: stats.budget.waitedMs,
    rateLimitWaits: stats.budget.waits,
    rateLimitBudgetMs: stats.budget.budgetMs,
    ...(stats.workers.roundsAtOnce ? { rounds: { tried: stats.workers.roundsAtOnce, rateLimited: stats.workers.roundsRateLimited, unanswered: stats.workers.roundsUnanswered } } : {}),
  };
}

export function costLine(cost: RunCost): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  return (
    `  Requests: ${cost.requests}; token endpoints asked ${cost.tokenRequests} times (${cost.tokenFetches} for the run's tokens, ` +
    `${cost.tokenRequests - cost.tokenFetches} by the token checks); waited ${seconds(cost.rateLimitWaitMs)} s on 429 answers ` +
    `(${cost.rateLimitWaits} waits, budget ${seconds(cost.rateLimitBudgetMs)} s)` +
    (cost.rounds ? `; concurrency: ${cost.rounds.tried} rounds of calls sent at once (${cost.rounds.rateLimited} discarded for a 429, ${cost.rounds.unanswered} for a call without an answer)` : '')
  );
}

/**
 * The preconditions the target broke, each once with how much stands on it: what a reader must fix first. A cause is
 * the blocked detail without its evidence ("…; got …"), so that the same broken precondition reads as one line.
 */
export function brokenPreconditions(verdicts: readonly RequirementVerdict[]): string[] {
  const byCause = new Map<string, { requirements: Set<string>; tests: number }>();
  for (const v of verdicts) {
    for (const t of v.tests) {
      if (t.outcome !== 'blocked' || !t.detail) continue;
      const cause = t.detail;
      const entry = byCause.get(cause) ?? { requirements: new Set<string>(), tests: 0 };
      entry.requirements.add(v.id);
      entry.tests += 1;
      byCause.set(cause, entry);
    }
  }
  return [...byCause]
    .sort((a, b) => b[1].requirements.size - a[1].requirements.size)
    .map(([cause, { requirements }]) => `${cause} (blocks ${requirements.size} requirement${requirements.size === 1 ? '' : 's'})`);
}
