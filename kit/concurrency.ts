import type { AtOnce } from './http/sender.ts';
import type { Exchange } from './http/exchange.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { retryAfterMs } from './http/retry-after.ts';
import { rateLimited } from './http/consequence.ts';

/** The longest a round waits out the Retry-After of a 429 before the next round. */
const MAX_ROUND_PAUSE_MS = 5_000;

/**
 * Rounds of calls sent truly at once (Api.callAtOnce), judged by the state they leave. A round in which a call was
 * answered 429 or not at all proves nothing about overlapping calls: it is discarded, counted apart, and another round
 * is tried, up to twice the rounds asked for. A concurrency check can prove a defect, never its absence: the report
 * says how many rounds were judged.
 */
export interface RoundsReport {
  asked: number;
  tried: number;
  judged: number;
  rateLimited: number;
  unanswered: number;
}

export async function concurrentRounds<T>(options: {
  rounds: number;
  /** Builds and sends one round; `context` is what its judgement needs (the bodies sent). */
  play: (index: number) => Promise<{ answers: AtOnce[]; context: T }>;
  /** Judges a round whose every call was answered, none 429: the exchanges in the order the calls were given. */
  judge: (exchanges: Exchange[], context: T, index: number) => Promise<void>;
}): Promise<RoundsReport> {
  const report: RoundsReport = { asked: options.rounds, tried: 0, judged: 0, rateLimited: 0, unanswered: 0 };
  while (report.judged < options.rounds && report.tried < options.rounds * 2) {
    const { answers, context } = await options.play(report.tried);
    report.tried += 1;
    const exchanges = answers.flatMap((a) => ('exchange' in a ? [a.exchange] : []));
    const limited = exchanges.filter(rateLimited);
    if (limited.length > 0) {
      report.rateLimited += 1;
      // The next round goes when the target said it may, as a real client's would.
      await sleep(
        Math.min(MAX_ROUND_PAUSE_MS, Math.max(0, ...limited.map((e) => retryAfterMs(e.headers['retry-after']) ?? 0))),
      );
    } else if (exchanges.length < answers.length) report.unanswered += 1;
    else {
      await options.judge(exchanges, context, report.tried - 1);
      report.judged += 1;
    }
  }
  return report;
}

export function roundsText(report: RoundsReport, calls: number): string {
  return `${report.judged} of ${report.asked} rounds of ${calls} calls at once judged (${report.tried} tried; ${report.rateLimited} discarded for a 429, ${report.unanswered} for a call without an answer)`;
}
