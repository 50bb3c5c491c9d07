/**
 * The rule CLI-ORDER-RETRY applies to one order request the sandbox answered 503: part 7 says clients "retry after a
 * short delay with backoff", and gives no numbers. The rule judges the whole sequence of a request's retries, never a
 * pair of them, so that jittered backoff (whose delays may shrink from one retry to the next, and whose first delay
 * may be close to nothing) passes. It fails a request never sent again, and a storm: retries that all together took
 * less time than the quickest backoff the rule allows for would take, but for a chance of at most 10⁻⁵. `npm run
 * client-retry` measures its false-failure rate for full, equal and decorrelated jitter by simulation
 * (docs/client-retry.md), calling this very function.
 */
export const retryStorm = {
  /** The quickest backoff allowed for: full jitter from this base, doubling up to this cap. */
  quickestBaseMs: 50,
  quickestCapMs: 1_000,
  /** How unlikely a storm is for that backoff. */
  chance: 1e-5,
} as const;

/**
 * The total below which `retries` retries are a storm. For full jitter the delays are independent and uniform on
 * [0, b_i], b_i = min(cap, base * 2^i), so their sum is under T with a probability of at most T^n / (n! * prod b_i), the
 * volume of a simplex over the volume of the box: T(n) = (chance * n! * prod b_i)^(1/n). Any larger base or cap, and
 * equal jitter (each delay at least half of full jitter's range), make the storm less likely still.
 */
export function stormTotalMs(retries: number): number {
  let log = Math.log(retryStorm.chance);
  for (let i = 0; i < retries; i += 1)
    log += Math.log(i + 1) + Math.log(Math.min(retryStorm.quickestCapMs, retryStorm.quickestBaseMs * 2 ** i));
  return Math.exp(log / retries);
}

export type RetryVerdict = { held: true } | { held: false; reason: string };

/**
 * Judges the gaps between the attempts of one request (gap i: from the 503 answer to the next attempt of the same
 * request, in milliseconds). A gap as the sandbox records it is the client's delay plus the time its next request took
 * to arrive, never less than the delay: the simulation of delays alone is the worst case for the client.
 */
export function judgeRetrySequence(gapsMs: ArrayLike<number>): RetryVerdict {
  const retries = gapsMs.length;
  if (retries === 0) return { held: false, reason: 'answered 503 and never sent again' };
  let total = 0;
  for (let i = 0; i < retries; i += 1) total += gapsMs[i] as number;
  const floor = stormTotalMs(retries);
  if (total < floor)
    return {
      held: false,
      reason: `${retries} retries within ${Math.round(total)} ms altogether, under the ${Math.round(floor)} ms that even full jitter from a ${retryStorm.quickestBaseMs} ms base takes but once in ${Math.round(1 / retryStorm.chance).toLocaleString('en-US')}: no delay between them`,
    };
  return { held: true };
}

/** What CLI-RETRY-DELAYS records of one retried request: the delays, the shortest, and whether they grew. */
export function describeRetrySequence(gapsMs: readonly number[]): string {
  if (gapsMs.length === 0) return 'no retry';
  const shortest = Math.min(...gapsMs);
  const grew = gapsMs.every((gap, i) => i === 0 || gap >= (gapsMs[i - 1] as number));
  const trend =
    gapsMs.length < 2
      ? ''
      : grew
        ? '; each delay at least the one before'
        : (gapsMs.at(-1) as number) > (gapsMs[0] as number)
          ? '; delays grew overall, not each time (jitter)'
          : '; delays did not grow';
  return `${gapsMs.length} ${gapsMs.length === 1 ? 'retry' : 'retries'} after ${gapsMs.map((g) => `${Math.round(g)} ms`).join(', ')}; shortest ${Math.round(shortest)} ms${shortest < 100 ? ' (under 100 ms)' : ''}${trend}`;
}
