import type { Network } from '../../kit/config/suite-config.ts';
import { userAgent } from '../http/user-agent.ts';
import { sendOnce } from '../http/wire.ts';
import type { RoundTrip } from './worker-count.ts';

/** How long the measurement may take in all, whatever the target: the run waits for it before it starts. */
export const MEASURE_BUDGET_MS = 2_000;
/** Timed requests per origin, after one that sets up the connection. */
export const SAMPLES = 3;

/**
 * The round trip of a request to each distinct origin of `urls`, as the run's requests will see it: a GET of the
 * origin's root (any answer will do, a 404 as well as a 429) on a kept-alive connection, through the target's proxy and
 * with TLS_CA_FILE's certificates. A first request sets the connection up (TCP, TLS, a tunnel) and is not timed; the
 * fastest of the next ones counts, since a busy machine only adds to a round trip. An origin that does not answer
 * within the budget gives its problem instead, for the caller to fall back on (the preflight names it).
 */
export async function measureRoundTrips(
  urls: readonly string[],
  network: Network | undefined,
  budgetMs = MEASURE_BUDGET_MS,
): Promise<RoundTrip[]> {
  const deadline = performance.now() + budgetMs;
  const origins = [...new Set(urls.map((url) => new URL(url).origin))];
  return Promise.all(origins.map((origin) => measureOne(origin, network, deadline)));
}

async function measureOne(origin: string, network: Network | undefined, deadline: number): Promise<RoundTrip> {
  const times: number[] = [];
  let setUp: number | undefined;
  const request = {
    method: 'GET',
    url: `${origin}/`,
    headers: [['user-agent', userAgent()]] as Array<[string, string]>,
  };
  for (let attempt = 0; attempt <= SAMPLES; attempt += 1) {
    const left = Math.floor(deadline - performance.now());
    if (left <= 0) break;
    try {
      const answer = await sendOnce(request, left, network);
      if (attempt === 0) setUp = answer.durationMs;
      else times.push(answer.durationMs);
    } catch (error) {
      if (setUp !== undefined) break;
      return {
        origin,
        problem: error instanceof Error ? error.message.replace(/^GET \S+ got no answer: /, '') : String(error),
      };
    }
  }
  // Only the first request fitted in the budget: its time, set-up included, stands for a round trip that long.
  if (times.length === 0 && setUp !== undefined) return { origin, ms: setUp, samples: 1 };
  if (times.length === 0) return { origin, problem: 'no answer within the time given to the measurement' };
  return { origin, ms: Math.min(...times), samples: times.length };
}
