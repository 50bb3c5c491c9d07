import type { Network } from '../../kit/config/suite-config.ts';
import { userAgent } from '../http/user-agent.ts';
import { sendOnce } from '../http/wire.ts';
import type { RoundTrip } from './worker-count.ts';

/** How long the measurement may take in all, whatever the target: the run waits for it before it starts. */
export const MEASURE_BUDGET_MS = 2_000;
/** Requests per origin side by side: as many connections set up, then timed. */
export const SAMPLES = 3;

/**
 * The round trip of a request to each distinct origin of `urls`, as the run's requests will see it: a GET of the
 * origin's root (any answer will do, a 404 as well as a 429) on a kept-alive connection, through the target's proxy and
 * with TLS_CA_FILE's certificates. SAMPLES requests side by side set up as many connections (TCP, TLS, a tunnel) and
 * are not timed; then one request on each, side by side, is; the fastest counts, since a busy machine only adds to a
 * round trip. Side by side, the measurement costs two round trips, not four, as the run's workers send theirs. An
 * origin that does not answer within the budget gives its problem instead, for the caller to fall back on (the
 * preflight names it).
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
  const request = {
    method: 'GET',
    url: `${origin}/`,
    headers: [['user-agent', userAgent()]] as Array<[string, string]>,
  };
  const sideBySide = async (): Promise<{ times: number[]; problem?: unknown }> => {
    const left = Math.floor(deadline - performance.now());
    if (left <= 0) return { times: [] };
    const answers = await Promise.allSettled(Array.from({ length: SAMPLES }, () => sendOnce(request, left, network)));
    const times = answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value.durationMs] : []));
    const refused = answers.find((answer) => answer.status === 'rejected');
    return { times, ...(refused ? { problem: refused.reason } : {}) };
  };
  const setUp = await sideBySide();
  if (setUp.times.length === 0)
    return {
      origin,
      problem:
        setUp.problem instanceof Error
          ? setUp.problem.message.replace(/^GET \S+ got no answer: /, '')
          : setUp.problem === undefined
            ? 'no answer within the time given to the measurement'
            : String(setUp.problem),
    };
  const { times } = await sideBySide();
  // Only the set-up fitted in the budget: its time, set-up included, stands for a round trip that long.
  if (times.length === 0) return { origin, ms: Math.min(...setUp.times), samples: 1 };
  return { origin, ms: Math.min(...times), samples: times.length };
}
