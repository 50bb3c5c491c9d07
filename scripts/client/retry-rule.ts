/**
 * The rule CLI-ORDER-RETRY applies to one order request the sandbox answered 503: part 7 says clients "retry after a
 * short delay with backoff", and gives no numbers. The rule judges the whole sequence of a request's retries, never a
 * pair of them, so that jittered backoff (whose delays may shrink from one retry to the next, and whose first delay
 * may be close to nothing) passes: it fails a request never sent again, and a storm, many retries sent with no delay
 * between them at all. `npm run client-retry` measures its false-failure rate for full, equal and decorrelated jitter
 * by simulation (docs/client-retry.md), calling this very function.
 */
export const retryStorm = {
  /** Fewer retries than this are never judged a storm: a full-jitter first delay can be as short as no delay. */
  minRetries: 6,
  /** A storm: the retries of one request are, on average, less than this far apart. */
  meanGapMs: 25,
} as const;

export type RetryVerdict = { held: true } | { held: false; reason: string };

/**
 * Judges the gaps between the attempts of one request (gap i: from the attempt answered 503 to the next attempt of
 * the same request, in milliseconds). A gap as the sandbox records it is the client's delay plus the time its request
 * took to arrive, never less than the delay: the simulation of delays alone is the worst case for the client.
 */
export function judgeRetrySequence(gapsMs: ArrayLike<number>): RetryVerdict {
  const retries = gapsMs.length;
  if (retries === 0) return { held: false, reason: 'answered 503 and never sent again' };
  if (retries < retryStorm.minRetries) return { held: true };
  let total = 0;
  for (let i = 0; i < retries; i += 1) total += gapsMs[i] as number;
  if (total < retryStorm.meanGapMs * retries) return { held: false, reason: `${retries} retries within ${Math.round(total)} ms altogether (under ${retryStorm.meanGapMs} ms apart on average): no delay between them` };
  return { held: true };
}

/** What CLI-RETRY-DELAYS records of one retried request: the delays, the shortest, and whether they grew. */
export function describeRetrySequence(gapsMs: readonly number[]): string {
  if (gapsMs.length === 0) return 'no retry';
  const shortest = Math.min(...gapsMs);
  const grew = gapsMs.every((gap, i) => i === 0 || gap >= (gapsMs[i - 1] as number));
  const trend = gapsMs.length < 2 ? '' : grew ? '; each delay at least the one before' : (gapsMs.at(-1) as number) > (gapsMs[0] as number) ? '; delays grew overall, not each time (jitter)' : '; delays did not grow';
  return `${gapsMs.length} ${gapsMs.length === 1 ? 'retry' : 'retries'} after ${gapsMs.map((g) => `${Math.round(g)} ms`).join(', ')}; shortest ${Math.round(shortest)} ms${shortest < 100 ? ' (under 100 ms)' : ''}${trend}`;
}
