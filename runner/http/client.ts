import { isShellText, parseJson, type Attempt, type Exchange } from '../../kit/http/exchange.ts';
import { RateLimitedError, type RateLimitBudget } from './rate-limit.ts';
import { sendWithRetry, type RetryPolicy } from './retry.ts';
import { userAgent, withUserAgent } from './user-agent.ts';
import { NoAnswerError, sendOnce } from './wire.ts';
import type { AtOnce, SendOptions } from '../../kit/http/sender.ts';

export interface ClientStats {
  requests: number;
  retries: number;
  /** Requests to a token endpoint (label 'token'). */
  tokenRequests: number;
  /** Batches sent at once (rounds of the concurrency checks), and those with a 429 or a call without an answer. */
  roundsAtOnce: number;
  roundsRateLimited: number;
  roundsUnanswered: number;
  /** Answers 429 received, every attempt and every call sent at once counted. */
  rateLimitedAnswers: number;
  /** Requests sent again after a 503, after a dropped connection (no answer), and the time waited before them (ms). */
  retried503: number;
  retriedDropped: number;
  backoffMs: number;
  /** Per operation (the request's label): each call's latency (ms, its waits left out) and its retries. */
  operations: Record<string, OperationSamples>;
}

/** What a client saw of one operation: the latency of each call (its attempts' time, without waits) and its retries. */
export interface OperationSamples {
  latencies: number[];
  retries: number;
}

/** Adds one client's counts to another's (the broker sums its workers' as each ends). */
export function addClientStats(into: ClientStats, from: Partial<ClientStats>): void {
  for (const name of [
    'requests',
    'retries',
    'tokenRequests',
    'roundsAtOnce',
    'roundsRateLimited',
    'roundsUnanswered',
    'rateLimitedAnswers',
    'retried503',
    'retriedDropped',
    'backoffMs',
  ] as const)
    into[name] += Number(from[name]) || 0;
  for (const [operation, samples] of Object.entries(from.operations ?? {})) {
    const kept = (into.operations[operation] ??= { latencies: [], retries: 0 });
    kept.latencies.push(...(Array.isArray(samples.latencies) ? samples.latencies.filter(Number.isFinite) : []));
    kept.retries += Number(samples.retries) || 0;
  }
}

/** Counts of a client that has sent nothing yet. */
export function noClientStats(): ClientStats {
  return {
    requests: 0,
    retries: 0,
    tokenRequests: 0,
    roundsAtOnce: 0,
    roundsRateLimited: 0,
    roundsUnanswered: 0,
    rateLimitedAnswers: 0,
    retried503: 0,
    retriedDropped: 0,
    backoffMs: 0,
    operations: {},
  };
}

/** The exchange of a request as it was sent (its headers with the User-Agent, its body) and the answer it had. */
function exchangeOf(
  options: SendOptions,
  sent: { headers: SendOptions['headers']; body: Buffer | undefined },
  response: { status: number; headers: Exchange['headers']; rawHeaders: Exchange['rawHeaders']; body: Buffer },
  timing: { attempts: Exchange['attempts']; started: number },
): Exchange {
  const { headers, body } = sent;
  const text = response.body.toString('utf8');
  return {
    label: options.label,
    ...(options.note ? { note: options.note } : {}),
    request: {
      method: options.method,
      url: options.url,
      headers,
      ...(body ? { body: body.toString('utf8'), ...(isShellText(body) ? {} : { bytes: body }) } : {}),
    },
    status: response.status,
    headers: response.headers,
    rawHeaders: response.rawHeaders,
    text,
    ...parseJson(text),
    attempts: timing.attempts,
    durationMs: performance.now() - timing.started,
  };
}

/**
 * The one HTTP client of a worker: exact headers (and the suite's User-Agent when they carry none), a timeout, 503
 * retries with backoff, 429s waited out within the run's budget; counts what it sends. A request still rate-limited
 * when the budget is spent throws RateLimitedError.
 */
export class HttpClient {
  readonly stats: ClientStats = noClientStats();

  constructor(
    private readonly policy: RetryPolicy,
    private readonly budget?: RateLimitBudget,
  ) {}

  async send(options: SendOptions): Promise<Exchange> {
    const body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
    const policy = options.retry === false ? { ...this.policy, retries: 0 } : this.policy;
    const headers = withUserAgent(options.headers, userAgent());
    const started = performance.now();
    const { response, attempts, rateLimited } = await sendWithRetry(
      { method: options.method, url: options.url, headers, ...(body ? { body } : {}) },
      policy,
      undefined,
      this.budget,
    );
    this.stats.requests += attempts.length;
    this.stats.retries += attempts.length - 1;
    this.stats.rateLimitedAnswers += attempts.filter((attempt) => attempt.status === 429).length;
    if (options.label === 'token') this.stats.tokenRequests += attempts.length;
    this.count(options.label, attempts, performance.now() - started);
    if (rateLimited) throw new RateLimitedError(options, attempts.at(-1)?.note ?? '429');
    return exchangeOf(options, { headers, body }, response, { attempts, started });
  }

  /** A call's retries after a 503 or a dropped connection, its backoff, and its latency without the waits. */
  private count(label: string, attempts: readonly Attempt[], elapsedMs: number): void {
    let waited = 0;
    let retries = 0;
    attempts.forEach((attempt, index) => {
      waited += attempt.waitedMs ?? 0;
      if (index === attempts.length - 1 || attempt.status === 429) return;
      retries += 1;
      if (attempt.status === null) this.stats.retriedDropped += 1;
      else this.stats.retried503 += 1;
      this.stats.backoffMs += attempt.waitedMs ?? 0;
    });
    const samples = (this.stats.operations[label] ??= { latencies: [], retries: 0 });
    samples.latencies.push(Math.max(0, Math.round(elapsedMs - waited)));
    samples.retries += retries;
  }

  /**
   * Sends every request at the same moment: each on a connection of its own, written up to its last body byte, then
   * all released together, so that the target handles them overlapping. Nothing is retried (a 503, a reset or a 429
   * is the call's answer, for the caller to judge or discard); every call is counted, and the batch as one round.
   */
  async sendAtOnce(requests: readonly SendOptions[]): Promise<AtOnce[]> {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const waiting = new Set(requests.map((_, index) => index));
    const ready = (index: number) => () => {
      waiting.delete(index);
      if (waiting.size === 0) release();
    };
    const started = performance.now();
    const answers = await Promise.all(
      requests.map(async (options, index): Promise<AtOnce> => {
        const body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
        const headers = withUserAgent(options.headers, userAgent());
        const request = { method: options.method, url: options.url, headers, ...(body ? { body } : {}) };
        try {
          const response = await sendOnce(request, this.policy.timeoutMs, this.policy.network, {
            ownConnection: true,
            holdLastByte: { ready: ready(index), release: released },
          });
          const attempts = [
            { status: response.status, note: 'sent at once with other calls, on its own connection; not retried' },
          ];
          const exchange = exchangeOf(options, { headers, body }, response, { attempts, started });
          return { exchange };
        } catch (error) {
          ready(index)();
          if (!(error instanceof NoAnswerError)) throw error;
          return { noAnswer: error.reason, request: options };
        }
      }),
    );
    this.stats.requests += requests.length;
    this.stats.roundsAtOnce += 1;
    const limited = answers.filter((a) => 'exchange' in a && a.exchange.status === 429).length;
    this.stats.rateLimitedAnswers += limited;
    if (limited > 0) this.stats.roundsRateLimited += 1;
    if (answers.some((a) => 'noAnswer' in a)) this.stats.roundsUnanswered += 1;
    return answers;
  }
}
