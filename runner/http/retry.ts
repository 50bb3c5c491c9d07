import type { Attempt } from '../../kit/http/exchange.ts';
import { retryAfterMs } from '../../kit/http/retry-after.ts';
import type { RateLimitBudget } from './rate-limit.ts';
import type { Network } from '../../kit/config/suite-config.ts';
import { NoAnswerError, sendOnce, type WireRequest, type WireResponse } from './wire.ts';

export interface RetryPolicy {
  /** Retries of a 503 or a dropped connection after the first attempt; 0 turns them off (checks that expect a 503). */
  retries: number;
  baseMs: number;
  maxMs: number;
  timeoutMs: number;
  /** TLS_CA_FILE and the target's proxy (runner/http/network.ts); absent: Node's roots, no proxy. */
  network?: Network;
}

/** The policy the configuration's HTTP settings give (HTTP_TIMEOUT_MS, HTTP_503_RETRIES, HTTP_BACKOFF_*, the network). */
export function retryPolicyOf(http: {
  retries503: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  timeoutMs: number;
  network?: Network;
}): RetryPolicy {
  return {
    retries: http.retries503,
    baseMs: http.backoffBaseMs,
    maxMs: http.backoffMaxMs,
    timeoutMs: http.timeoutMs,
    ...(http.network ? { network: http.network } : {}),
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Exponential backoff with equal jitter: half the step fixed, half random, capped at maxMs. */
export function backoffMs(
  attempt: number,
  policy: Pick<RetryPolicy, 'baseMs' | 'maxMs'>,
  random = Math.random,
): number {
  const step = Math.min(policy.maxMs, policy.baseMs * 2 ** attempt);
  return Math.round(step / 2 + (random() * step) / 2);
}

/** A 429 without Retry-After is waited out with backoff up to this step: rate limits usually reset within seconds. */
const RATE_LIMIT_MAX_STEP_MS = 30_000;

export interface SendResult {
  response: WireResponse;
  attempts: Attempt[];
  /** The last answer is a 429 that the budget could not wait out. */
  rateLimited: boolean;
}

/**
 * Sends, and sends again: after a 503 or a dropped connection (up to `retries` times, with backoff, honouring
 * Retry-After when it fits within maxMs; a longer one ends the retries and the caller sees the 503), and after every
 * 429 for as long as the budget grants the wait (Retry-After as asked, else backoff with jitter). Every attempt is
 * recorded for the report.
 */
export async function sendWithRetry(
  req: WireRequest,
  policy: RetryPolicy,
  wait: (ms: number) => Promise<void> = sleep,
  budget?: RateLimitBudget,
): Promise<SendResult> {
  const attempts: Attempt[] = [];
  let failures = 0;
  let limited = 0;
  for (;;) {
    let response: WireResponse | undefined;
    const place = budget?.place?.();
    const leave = place?.entered ? await place.entered : undefined;
    try {
      response = await sendOnce(req, policy.timeoutMs, policy.network);
    } catch (error) {
      leave?.();
      if (!(error instanceof NoAnswerError) || !error.retryable || failures >= policy.retries) throw error;
      const delay = backoffMs(failures, policy);
      failures += 1;
      attempts.push({ status: null, error: error.reason, waitedMs: delay });
      await wait(delay);
      continue;
    }
    leave?.();
    const record: Attempt = { status: response.status };
    attempts.push(record);
    const header = response.headers['retry-after'];
    if (header !== undefined && (response.status === 429 || response.status === 503)) record.retryAfter = header;
    const asked = retryAfterMs(header);

    if (response.status === 429) {
      if (!budget) return { response, attempts, rateLimited: false };
      const delay =
        asked ?? backoffMs(limited, { baseMs: policy.baseMs, maxMs: Math.max(policy.maxMs, RATE_LIMIT_MAX_STEP_MS) });
      limited += 1;
      if (!(await budget.grant(delay, place?.cap))) {
        record.note = `429: waiting ${delay} ms more would exceed the run's rate-limit budget`;
        return { response, attempts, rateLimited: true };
      }
      record.waitedMs = delay;
      await wait(delay);
      continue;
    }

    if (response.status !== 503 || failures >= policy.retries) return { response, attempts, rateLimited: false };
    if (asked !== undefined && asked > policy.maxMs) {
      record.note = `Retry-After ${header} exceeds the longest backoff (${policy.maxMs} ms): not retried`;
      return { response, attempts, rateLimited: false };
    }
    const delay = Math.max(backoffMs(failures, policy), asked ?? 0);
    failures += 1;
    record.waitedMs = delay;
    await wait(delay);
  }
}
