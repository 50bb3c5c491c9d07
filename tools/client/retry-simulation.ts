import { createHash } from 'node:crypto';
import { judgeRetrySequence, retryStorm, stormTotalMs } from '../../kit/checks/client/retry-rule.ts';
import { mulberry32 } from '../../sandbox/seeded-random.ts';

/**
 * The false-failure rate of CLI-ORDER-RETRY's rule (kit/checks/client/retry-rule.ts) for correct clients: backoff with jitter as the AWS
 * Architecture Blog's "Exponential Backoff And Jitter" defines it, attempt counted from 0 for the first retry.
 *   full:          sleep = random(0, min(cap, base * 2^attempt))
 *   equal:         t = min(cap, base * 2^attempt); sleep = t/2 + random(0, t/2)
 *   decorrelated:  sleep = min(cap, random(base, previous sleep * 3)), the previous sleep starting at base
 * Each trial draws the delays of one request retried `retries` times and asks the rule; a trial it fails is a false
 * failure. Delays alone are simulated: a recorded gap is the delay plus the request's travel, never shorter, and the
 * rule never fails a longer gap that it passes shorter.
 */
export const strategies = ['full', 'equal', 'decorrelated'] as const;
export type Strategy = (typeof strategies)[number];

export interface Backoff {
  baseMs: number;
  capMs: number;
}

/** Bases from 50 ms to 1 s, with caps from 1 s to 20 s; 200 ms and 5 s are the suite's own (runner/http/retry.ts). */
export const backoffs: readonly Backoff[] = [
  { baseMs: 50, capMs: 5_000 },
  { baseMs: 100, capMs: 1_000 },
  { baseMs: 100, capMs: 20_000 },
  { baseMs: 200, capMs: 5_000 },
  { baseMs: 1_000, capMs: 20_000 },
];
export const retryCounts = [1, 2, 3, 4, 5, 6, 7, 8] as const;

/** One cell of the table: a strategy, a backoff and a number of retries. */
export interface Cell extends Backoff {
  strategy: Strategy;
  retries: number;
}

export const cells: readonly Cell[] = strategies.flatMap((strategy) =>
  backoffs.flatMap((backoff) => retryCounts.map((retries) => ({ strategy, ...backoff, retries }))),
);

export const cellKey = (cell: Cell): string => `${cell.strategy} ${cell.baseMs}/${cell.capMs} x${cell.retries}`;

/** Each cell its own stream, from the run's seed and the cell: a cell's first trials are the same whatever the count. */
const cellSeed = (seed: number, cell: Cell): number =>
  createHash('sha256')
    .update(`${seed}\n${cellKey(cell)}`)
    .digest()
    .readUInt32BE(0);

/** Fills `delays` with the sleeps before each retry of one request. */
export function drawDelays(cell: Cell, random: () => number, delays: Float64Array): void {
  const { baseMs, capMs } = cell;
  let previous = baseMs;
  for (let attempt = 0; attempt < delays.length; attempt += 1) {
    const step = Math.min(capMs, baseMs * 2 ** attempt);
    if (cell.strategy === 'full') delays[attempt] = random() * step;
    else if (cell.strategy === 'equal') delays[attempt] = step / 2 + (random() * step) / 2;
    else {
      previous = Math.min(capMs, baseMs + random() * (previous * 3 - baseMs));
      delays[attempt] = previous;
    }
  }
}

/** How many of `trials` seeded trials of the cell the rule fails. */
export function falseFailures(cell: Cell, trials: number, seed: number): number {
  const random = mulberry32(cellSeed(seed, cell));
  const delays = new Float64Array(cell.retries);
  let failed = 0;
  for (let trial = 0; trial < trials; trial += 1) {
    drawDelays(cell, random, delays);
    if (!judgeRetrySequence(delays).held) failed += 1;
  }
  return failed;
}

/** The delays of a cell's first trial, to the microsecond: the stream and the strategy, pinned. */
export function firstTrial(cell: Cell, seed: number): number[] {
  const delays = new Float64Array(cell.retries);
  drawDelays(cell, mulberry32(cellSeed(seed, cell)), delays);
  return [...delays].map((d) => Math.round(d * 1000) / 1000);
}

/** The one-sided 95 % upper bound of a rate from k of n (Wilson score). */
export function upperBound(failures: number, trials: number): number {
  const z = 1.6449;
  const p = failures / trials;
  const centre = p + (z * z) / (2 * trials);
  const spread = z * Math.sqrt((p * (1 - p)) / trials + (z * z) / (4 * trials * trials));
  return (centre + spread) / (1 + (z * z) / trials);
}

export interface SimulationResult {
  seed: number;
  trials: number;
  /** Trials of each cell counted again on their own, the self-test's sample: the same figure from the same stream. */
  sampleTrials: number;
  rule: typeof retryStorm;
  cells: Array<Cell & { failures: number; sampleFailures: number; firstDelays: number[] }>;
}

const ms = (value: number): string => (value >= 1000 ? `${value / 1000} s` : `${value} ms`);
const duration = (value: number): string =>
  value >= 1000
    ? `${(value / 1000).toFixed(2)} s`
    : value >= 1
      ? `${value.toFixed(1)} ms`
      : `${value.toPrecision(1)} ms`;
const superscript = (text: string): string =>
  [...text].map((c) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[Number(c)] ?? (c === '-' ? '⁻' : c)).join('');
/** 2.7 × 10⁻⁵ */
export const rate = (value: number): string =>
  value === 0 ? '0' : value.toExponential(1).replace(/e\+?(-?\d+)/, (_, exp: string) => ` × 10${superscript(exp)}`);

/** The Markdown table of docs/client-retry.md: one row per strategy and backoff, one column per number of retries. */
export function retryTable(result: SimulationResult): string {
  const head = `| Strategy | Base, cap | ${retryCounts.map((n) => `${n} ${n === 1 ? 'retry' : 'retries'}`).join(' | ')} | Highest rate (95 % bound) |`;
  const rule = `|---|---|${retryCounts.map(() => '---:').join('|')}|---:|`;
  const rows = strategies.flatMap((strategy) =>
    backoffs.map((backoff) => {
      const row = result.cells.filter(
        (c) => c.strategy === strategy && c.baseMs === backoff.baseMs && c.capMs === backoff.capMs,
      );
      const bound = Math.max(...row.map((c) => upperBound(c.failures, result.trials)));
      return `| ${strategy} jitter | ${ms(backoff.baseMs)}, ${ms(backoff.capMs)} | ${row.map((c) => String(c.failures)).join(' | ')} | ${rate(bound)} |`;
    }),
  );
  const worst = Math.max(...result.cells.map((c) => upperBound(c.failures, result.trials)));
  const storm = [1, 2, 3, 4, 5, 6, 7, 8, 10, 20, 50];
  return [
    `The storm's floor: n retries fail when they took less than T(n) altogether, T(n) being the total that full jitter from a ${ms(result.rule.quickestBaseMs)} base, capped at ${ms(result.rule.quickestCapMs)}, stays under with a chance of ${rate(result.rule.chance)}:`,
    '',
    `| n | ${storm.join(' | ')} |`,
    `|---|${storm.map(() => '---:').join('|')}|`,
    `| T(n) | ${storm.map((n) => duration(stormTotalMs(n))).join(' | ')} |`,
    '',
    `Seed ${result.seed}, ${result.trials.toLocaleString('en-US')} trials per cell. Each cell counts the trials the rule failed (false failures); the last column is the one-sided 95 % upper bound of the false-failure rate of the row's worst cell. Highest bound of the table: ${rate(worst)}.`,
    '',
    head,
    rule,
    ...rows,
  ].join('\n');
}
