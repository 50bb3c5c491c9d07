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
  /** Requests sent again after a 503 and after a dropped connection (no answer), and the backoff waited before them. */
  retried503?: number;
  retriedDropped?: number;
  backoffMs?: number;
  /** Per operation: its calls, their latency (ms, each call's attempts without the waits between them) and retries. */
  operations?: OperationCost[];
}

/** What one operation cost: calls, latency (median, 95th percentile, max, in ms) and retries after 503 or no answer. */
export interface OperationCost {
  operation: string;
  calls: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
  retries: number;
}

/** The value at a quantile of sorted samples (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

/** Each operation's latencies and retries as the reports show them, by operation name. */
export function operationCosts(
  operations: Record<string, { latencies: readonly number[]; retries: number }>,
): OperationCost[] {
  return Object.entries(operations)
    .filter(([, samples]) => samples.latencies.length > 0)
    .map(([operation, samples]) => {
      const sorted = [...samples.latencies].sort((a, b) => a - b);
      return {
        operation,
        calls: sorted.length,
        medianMs: quantile(sorted, 0.5),
        p95Ms: quantile(sorted, 0.95),
        maxMs: sorted.at(-1) ?? 0,
        retries: samples.retries,
      };
    })
    .sort((a, b) => a.operation.localeCompare(b.operation));
}

/** One delivery that reached the receiver while a wait ran which then ended on its window, and why it did not end it. */
export interface WindowArrival {
  seq: number;
  /** When it arrived, in ms after the wait began. */
  afterMs: number;
  /** Its kind by its fields (session, results, onboarding), or "unknown". */
  kind: string;
  sessionId?: string;
  inquiryId?: string;
  /** A verification session event's docVerification, when true. */
  docVerification?: boolean;
  /** Whether no delivery before it carried its session (false: a redelivery, or a session seen before). */
  firstOfSession: boolean;
  /** Whether its session is a document verification's (a document event carried its sessionId, or it was given to one). */
  documentSession?: boolean;
  /** The flow it was given to, when it was given to one. */
  givenTo?: string;
  /** Why it did not answer this wait, in words. */
  why: string;
}

/** What a wait that ended on its window waited for. */
export type WaitKind = 'step-up' | 'count' | 'results' | 'onboarding' | 'run-end';

/** A wait that ended on its window rather than on an event. */
export interface WindowEnd {
  kind: WaitKind;
  /** The flow that waited, in words: "step-up by phone with images (stepup › a step-up by email …)". */
  flow: string;
  /** A step-up's: whether it carried images (a document verification session's event may answer it). */
  images?: boolean;
  /** What the wait was for, when an id names it: the inquiry of a results event, the session of an onboarding event. */
  awaits?: string;
  /** When the wait began and ended (ms since the epoch), and its window (ms). */
  startedAt: number;
  endedAt: number;
  windowMs: number;
  /** What happened, in words: "no event arrived within 60 s". */
  what: string;
  /** What reached the receiver meanwhile that could bear on it, each with why it did not end the wait. */
  arrived: WindowArrival[];
}

/** What the run's flows waited for: how late their events came, how soon after its event each wait ended, and which ended on their window. */
export interface EventWaits {
  /** WEBHOOK_MODE: active (flows run and wait for their events) or passive (the run only listens). */
  mode: 'active' | 'passive';
  /** WEBHOOK_WAIT_MS, the event window. */
  windowMs: number;
  /** Events a flow awaited and got (document results, step-up session events). */
  awaited: number;
  /** The latest of them, from its flow's request to its arrival (ms). */
  latestDelayMs: number;
  /** The longest time from an awaited event's arrival to the end of its flow's wait (ms). */
  longestLagMs: number;
  /** Every wait that ended on its window rather than on an event, the run-end's and every re-send's included. */
  windowEnds: WindowEnd[];
  /** Passive mode: how long the run listened (WEBHOOK_PASSIVE_WINDOW_MS), once it has. */
  listenedMs?: number;
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
