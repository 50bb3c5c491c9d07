import { readWaitsOf } from '../kit/verdict-marks.ts';
import type { TestRecord } from './verdicts.ts';

/** What the run's reads waited for their writes (kit/reads-after-writes.ts): how many, the longest, how many never. */
export interface ReadWaits {
  /** Reads sent again until they showed the run's write, and how many of them never did within the bound. */
  waits: number;
  neverShown: number;
  /** The longest wait of a read that showed its write (ms): the lag the target's reads were observed to trail by. */
  longestShownMs: number;
  /** Every read sent again, the first reads included. */
  reads: number;
  /** The waits added up (ms): they overlap one another and other tests' work, so the run's wall time grew by less. */
  waitedMs: number;
  /** READ_AFTER_WRITE_TIMEOUT_MS. */
  boundMs: number;
}

export function readWaitsOfRun(tests: readonly TestRecord[]): ReadWaits | undefined {
  const all = tests.flatMap((t) => readWaitsOf(t.annotations));
  if (all.length === 0) return undefined;
  return {
    waits: all.length,
    neverShown: all.filter((w) => !w.shown).length,
    longestShownMs: Math.max(0, ...all.filter((w) => w.shown).map((w) => w.waitedMs)),
    reads: all.reduce((sum, w) => sum + w.reads, 0),
    waitedMs: all.reduce((sum, w) => sum + w.waitedMs, 0),
    boundMs: Math.max(...all.map((w) => w.boundMs)),
  };
}

/**
 * "Reads: 12 trailed their writes, by up to 840 ms, 6.1 s waited in all (43 reads, bound 5 s,
 * READ_AFTER_WRITE_TIMEOUT_MS); 1 never showed its write". Absent when no read had to be sent again.
 */
export function readWaitsSummary(waits: ReadWaits): string {
  const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
  const shown = waits.waits - waits.neverShown;
  const trailed =
    shown === 0
      ? 'no read sent again showed its write'
      : `${shown} trailed their writes, by up to ${waits.longestShownMs} ms`;
  const never =
    waits.neverShown === 0
      ? ''
      : `; ${waits.neverShown} never showed ${waits.neverShown === 1 ? 'its write' : 'their writes'}`;
  return `Reads: ${trailed}, ${seconds(waits.waitedMs)} waited in all (${waits.reads} reads, bound ${seconds(waits.boundMs)}, READ_AFTER_WRITE_TIMEOUT_MS)${never}`;
}
