// What the runner hands the reporters at the end of a run: summary values, not the runner's modules. The reporters run in
// the runner's process; the runner fills this slot as the run goes (playwright.config.ts, runner/global-setup.ts) and
// the conformance reporter reads it when the run ends.

/** How many workers the run chose, and why. */
export interface WorkerChoice {
  workers: number;
  /** Why, in words the run prints: "round trip 152 ms to https://host; CONFORMANCE_WORKERS sets it". */
  why: string;
}

/** What a run cost the target: requests, token requests and time spent waiting out 429s (from the run's broker). */
export interface RunCost {
  requests: number;
  tokenRequests: number;
  /** Of those, the ones the broker sent for the run's tokens (one per token endpoint and credential, unless renewed). */
  tokenFetches: number;
  rateLimitWaitMs: number;
  rateLimitWaits: number;
  rateLimitBudgetMs: number;
  /** Answers 429 the run received (waited out or not, calls sent at once included). */
  rateLimitedAnswers: number;
  /** The cap on requests in flight to the target (TARGET_CONCURRENCY) at the start and at the end of the run. */
  cap: { initial: number; final: number; lowered: number };
  /** Rounds of calls sent at once by the concurrency checks, and those discarded (a 429, a call without an answer). */
  rounds?: { tried: number; rateLimited: number; unanswered: number };
}

/** What the run's flows waited for: how late their events came, and how soon after its event each wait ended. */
export interface EventWaits {
  /** Events a flow awaited and got (document results, step-up session events). */
  awaited: number;
  /** The latest of them, from its flow's request to its arrival (ms). */
  latestDelayMs: number;
  /** The longest time from an awaited event's arrival to the end of its flow's wait (ms). */
  longestLagMs: number;
  /** Every delivery the receiver got. */
  deliveries: number;
}

export interface RunFacts {
  workers?: WorkerChoice;
  /** What the run cost the target, from the run's broker; absent in a run without one. */
  cost?: () => RunCost;
  /** What the run's flows waited for, over all its receivers; absent in a run without one. */
  eventWaits?: () => EventWaits;
  /** What the preflight could not decide (npm run doctor's warnings), one line each: every report carries them. */
  preflightWarnings?: string[];
}

const KEY = Symbol.for('conformance.runFacts');

export function runFacts(): RunFacts {
  const slot = globalThis as Record<symbol, RunFacts | undefined>;
  return (slot[KEY] ??= {});
}
