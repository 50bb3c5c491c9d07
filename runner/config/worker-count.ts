import type { WorkerChoice } from '../../reporters/run-facts.ts';
/**
 * How many workers a run gets. Playwright fixes the count when it evaluates playwright.config.ts, before the global
 * setup, so the choice is made there from what is known then: CONFORMANCE_WORKERS, the embedded sandbox, or the round
 * trip measured to the target (runner/config/round-trip.ts). docs/performance.md explains the model.
 */

/** Workers of a run against the embedded sandbox or a near target: on 2 cores its cost is process starts, not waiting. */
export const DEFAULT_WORKERS = 2;
/** A round trip under this is a near target (loopback, a LAN): more workers would cost more starts than they save. */
export const NEAR_MS = 20;
/** About how many requests a full run sends (npm run bench, "Requests per run"). */
export const RUN_REQUESTS = 900;
/** The wall time one more worker costs on the 2-core machines: about 0.6 CPU-s to start, shared by 2 cores. */
export const WORKER_START_MS = 300;
/**
 * The most workers measured to shorten a run against a far target (docs/performance.md): 12 against 2 took 27 s
 * instead of 87.5 s; 16 against 12, since identity takes the workers the step-ups' projects leave
 * (runner/config/projects.ts), 18.1 to 18.2 s instead of 19.1 to 20.2 s (2026-11-27). The default TARGET_CONCURRENCY.
 */
export const MOST_USEFUL_WORKERS = 16;

/**
 * Workers of a run against the embedded sandbox when its reads trail its writes (the trailing flavor): each read
 * after a write waits for the replica, so more workers overlap the waits. Measured on 2 cores at the default lag of
 * 1 s (2026-12-03, by turns with the reference at 2 workers, 6.0 to 6.7 s): 2 workers 24 to 27 s, 4 17.8 s, 6 11.1 to
 * 12.3 s with identity second in the projects' order (13.3 to 14.9 s with the step-ups' projects first), 8 14.2 to
 * 14.8 s; at a lag of 3 s, 2 workers 47 s, 6 and 8 about 21 to 23 s. Then (2026-12-03, by turns on a busy machine,
 * three runs each) identity on 4 of the 6 and every other project on one worker (runner/config/projects.ts): 12.6 to
 * 12.7 s, against 13.8 to 15.1 s with identity on 3 and the others on 2.
 */
export const TRAILING_READS_WORKERS = 6;

export type RoundTrip = { ms: number; origin: string; samples: number } | { problem: string; origin: string };

/**
 * Workers for a target `ms` away: W workers wait about RUN_REQUESTS × ms / W in all, and each costs WORKER_START_MS, so
 * the run is shortest near W = √(RUN_REQUESTS × ms / WORKER_START_MS); beyond MOST_USEFUL_WORKERS the run's longest
 * chain of dependent requests, not their number, sets its length. Never fewer than DEFAULT_WORKERS, never more than
 * the cap.
 */
export function workersFor(ms: number, cap: number): number {
  const ceiling = Math.max(1, Math.min(cap, MOST_USEFUL_WORKERS));
  if (!(ms >= NEAR_MS)) return Math.min(DEFAULT_WORKERS, ceiling);
  const ideal = Math.round(Math.sqrt((RUN_REQUESTS * ms) / WORKER_START_MS));
  return Math.min(ceiling, Math.max(DEFAULT_WORKERS, ideal));
}

/**
 * The run's workers and why: CONFORMANCE_WORKERS as given; 2 against the embedded sandbox, TRAILING_READS_WORKERS when
 * its reads trail its writes; else from the slowest origin's round trip, or 2 when none could be measured (the
 * preflight then says what is wrong). Never more than TARGET_CONCURRENCY.
 */
export function chooseWorkers(input: {
  configured?: number;
  embedded: boolean;
  cap: number;
  roundTrips?: readonly RoundTrip[];
  /** The embedded sandbox's reads trail its writes by up to this (runner/config/run-config.ts embeddedReadLagMs). */
  readLagMs?: number;
}): WorkerChoice {
  const fallback = Math.min(DEFAULT_WORKERS, input.cap);
  const capped = input.cap < DEFAULT_WORKERS ? `, at most TARGET_CONCURRENCY=${input.cap}` : '';
  if (input.configured !== undefined) return { workers: input.configured, why: 'CONFORMANCE_WORKERS' };
  if (input.embedded && input.readLagMs !== undefined) {
    const workers = Math.min(TRAILING_READS_WORKERS, input.cap);
    const bound = workers < TRAILING_READS_WORKERS ? `, at most TARGET_CONCURRENCY=${input.cap}` : '';
    return {
      workers,
      why: `the embedded sandbox, whose reads trail its writes by up to ${input.readLagMs} ms${bound}; CONFORMANCE_WORKERS sets it`,
    };
  }
  if (input.embedded) return { workers: fallback, why: `the embedded sandbox${capped}; CONFORMANCE_WORKERS sets it` };
  const trips = input.roundTrips ?? [];
  const failed = trips.find((trip) => 'problem' in trip);
  const measured = trips.filter((trip): trip is Extract<RoundTrip, { ms: number }> => 'ms' in trip);
  if (failed || measured.length === 0) {
    const reason =
      failed && 'problem' in failed
        ? `round trip to ${failed.origin} not measured: ${failed.problem}`
        : 'no round trip measured';
    return { workers: fallback, why: `${reason}${capped}; CONFORMANCE_WORKERS sets it` };
  }
  const slowest = measured.reduce((a, b) => (b.ms > a.ms ? b : a));
  const workers = workersFor(slowest.ms, input.cap);
  const bound =
    workers === input.cap && workers < MOST_USEFUL_WORKERS ? `, at most TARGET_CONCURRENCY=${input.cap}` : '';
  return {
    workers,
    why: `round trip ${Math.round(slowest.ms)} ms to ${slowest.origin}${bound}; CONFORMANCE_WORKERS sets it`,
  };
}

/** The line the run prints before it starts. */
export const workersLine = (choice: WorkerChoice) =>
  `Workers: ${choice.workers} (${choice.why === 'CONFORMANCE_WORKERS' ? 'set by CONFORMANCE_WORKERS' : choice.why})`;
