import { operationCosts, type RunCost } from '../reporters/run-facts.ts';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addClientStats, HttpClient, noClientStats, type ClientStats } from './http/client.ts';
import { RunBudget, type BudgetStats } from './http/rate-limit.ts';
import type { RetryPolicy } from './http/retry.ts';
import { Redactor } from '../kit/redact.ts';
import { type Credential } from '../kit/tokens.ts';
import { isObject } from '../schemas/json-value.ts';
import { within } from './long-poll.ts';
import { TargetCap, type CapStats } from './target-cap.ts';
import { TokenCache } from './tokens.ts';
import { PreconditionMemo } from './precondition-memo.ts';
import type { FailedPrecondition } from '../kit/shared-preconditions.ts';

/**
 * The run's token broker: one HTTP server on loopback in the Playwright runner process, started by the global setup
 * before any worker. Workers get the run's tokens from it (one token per token endpoint and API key for the whole run,
 * not one per worker or test), ask it before waiting out a 429, so that the waiting budget is run-wide, and keep in it
 * the preconditions their checks share (runner/precondition-memo.ts), so that one that failed is waited for once in
 * the run, whichever worker meets it. Workers find it through BROKER_ENV; a secret keeps other processes on the
 * machine out.
 */

export interface RunStats {
  /** Token requests the broker sent for the run's tokens. */
  tokenFetches: number;
  budget: BudgetStats;
  /** What the workers sent, summed as each worker ends. */
  workers: ClientStats;
  /** The cap on requests in flight to the target (TARGET_CONCURRENCY): at the start, at the end, halvings. */
  cap: CapStats;
  /** Answers 429 the run received: the workers' and the broker's own token requests'. */
  rateLimitedAnswers: number;
}

export interface RunningBroker {
  url: string;
  secret: string;
  cache: TokenCache;
  /** The preconditions the run's checks share (kit/shared-preconditions.ts). */
  preconditions: PreconditionMemo;
  http: HttpClient;
  stats(): RunStats;
  /** Serves more routes to the workers (the run's webhook receiver: runner/webhooks/event-hub.ts). */
  serve(routes: Record<string, (body: Record<string, unknown>) => Promise<unknown>>): void;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  return isObject(parsed) ? parsed : {};
}

function credentialOf(body: Record<string, unknown>): Credential {
  if (typeof body.tokenUrl !== 'string' || typeof body.apiKey !== 'string')
    throw new Error('tokenUrl and apiKey are required');
  return { tokenUrl: body.tokenUrl, apiKey: body.apiKey };
}

const sameSecret = (given: string | undefined, secret: string) =>
  given !== undefined && given.length === secret.length && timingSafeEqual(Buffer.from(given), Buffer.from(secret));

/** How long a worker's watch of the cap is held open before it is answered with the cap unchanged and asked again. */
const WATCH_MS = 30_000;
/** How long a worker's claim of a precondition another worker holds waits here before it is asked again. */
const CLAIM_POLL_MS = 25_000;

const keyOf = (body: Record<string, unknown>): string => {
  if (typeof body.key !== 'string' || body.key === '') throw new Error('key is required');
  return body.key;
};
const leaseOf = (body: Record<string, unknown>): string => String(body.lease ?? '');
const failureOf = (body: Record<string, unknown>): FailedPrecondition => {
  const failure = body.failure as FailedPrecondition | undefined;
  if (!isObject(failure) || typeof failure.what !== 'string' || !isObject(failure.evidence))
    throw new Error('failure must carry what and evidence');
  return failure;
};

/** A number sent by a worker; null or absent: undefined. */
const numberIn = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

export async function startBroker(options: {
  policy: RetryPolicy;
  rateLimitBudgetMs: number;
  secrets: readonly string[];
  targetConcurrency?: number;
}): Promise<RunningBroker> {
  const budget = new RunBudget(options.rateLimitBudgetMs);
  const http = new HttpClient(options.policy, budget);
  const preconditions = new PreconditionMemo();
  const cache = new TokenCache(http, new Redactor(options.secrets), preconditions);
  const workers: ClientStats = noClientStats();
  // A place not given back within one request's longest time (a worker that ended mid-request) returns by itself.
  const cap = new TargetCap(options.targetConcurrency ?? Number.MAX_SAFE_INTEGER, options.policy.timeoutMs + 5_000);
  const secret = randomBytes(24).toString('hex');

  /** Each route gets the request's body and a way to hear that the worker hung up (a wait it no longer needs). */
  const routes: Record<
    string,
    (body: Record<string, unknown>, onClose: (drop: () => void) => void) => Promise<unknown>
  > = {
    '/token': (body) => cache.get(credentialOf(body)),
    '/renew': (body) => cache.renew(credentialOf(body), String(body.stale ?? '')),
    '/grant': async (body) => {
      const granted = budget.grantNow(Number(body.ms));
      return { granted, cap: cap.rateLimited(numberIn(body.cap) ?? Number.POSITIVE_INFINITY) };
    },
    '/cap': async (body, onClose) => {
      const watch = cap.watch(numberIn(body.known) ?? -1);
      onClose(watch.cancel);
      const current = await within(watch.cap, WATCH_MS, undefined);
      watch.cancel();
      return { cap: current ?? cap.cap, initial: cap.initial };
    },
    '/enter': async (_body, onClose) => {
      const entry = cap.enter();
      onClose(() => {
        entry.cancel();
        // Given after the worker hung up: nobody will give it back.
        void entry.place.then((place) => cap.leave(place));
      });
      return { place: await entry.place };
    },
    '/precondition/claim': (body, onClose) =>
      preconditions.claimOnce(keyOf(body), Math.max(1, Number(body.leaseMs) || 0), CLAIM_POLL_MS, onClose),
    '/precondition/settle': async (body) => {
      await preconditions.settle(
        keyOf(body),
        leaseOf(body),
        'failure' in body ? { failure: failureOf(body) } : { value: body.value },
      );
      return {};
    },
    '/precondition/release': async (body) => {
      await preconditions.release(keyOf(body), leaseOf(body));
      return {};
    },
    '/precondition/offer': async (body) => {
      await preconditions.offer(keyOf(body), body.headStart);
      return {};
    },
    '/precondition/failure': async (body) => ({ failure: (await preconditions.failure(keyOf(body))) ?? null }),
    '/precondition/fail': async (body) => {
      await preconditions.fail(keyOf(body), failureOf(body));
      return {};
    },
    '/leave': async (body) => {
      cap.leave(Number(body.place));
      return {};
    },
    '/report': async (body) => {
      addClientStats(workers, body as Partial<ClientStats>);
      return {};
    },
  };

  const server: Server = createServer((req, res) => {
    const route = routes[req.url ?? ''];
    if (req.method !== 'POST' || !route || !sameSecret(req.headers['x-broker-secret'] as string | undefined, secret)) {
      res.writeHead(404).end();
      return;
    }
    const onClose = (drop: () => void) => res.once('close', () => !res.writableFinished && drop());
    readJson(req)
      .then((body) => route(body, onClose))
      .then(
        (answer) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)),
        (error: unknown) =>
          res
            .writeHead(400, { 'content-type': 'text/plain' })
            .end(error instanceof Error ? error.message : String(error)),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    secret,
    cache,
    preconditions,
    http,
    stats: () => ({
      tokenFetches: cache.fetched,
      budget: { ...budget.stats },
      workers: sumOf(workers, http.stats),
      cap: cap.stats(),
      rateLimitedAnswers: workers.rateLimitedAnswers + http.stats.rateLimitedAnswers,
    }),
    serve: (more) => void Object.assign(routes, more),
    close: () =>
      new Promise<void>((resolve) => {
        cap.close();
        preconditions.close();
        server.close(() => resolve());
        // Workers' watches of the cap and long polls of the receiver are held open; the run is over.
        server.closeAllConnections();
      }),
  };
}

/** The workers' counts with the broker's own (its token requests), for the cost of the run. */
function sumOf(workers: ClientStats, own: ClientStats): ClientStats {
  const sum = noClientStats();
  addClientStats(sum, workers);
  for (const name of ['retried503', 'retriedDropped', 'backoffMs', 'operations'] as const)
    addClientStats(sum, { [name]: own[name] });
  return sum;
}

/** The run's cost as the summary shows it. */
export function runCost(stats: RunStats): RunCost {
  return {
    requests: stats.workers.requests + stats.tokenFetches,
    tokenRequests: stats.workers.tokenRequests + stats.tokenFetches,
    tokenFetches: stats.tokenFetches,
    rateLimitWaitMs: stats.budget.waitedMs,
    rateLimitWaits: stats.budget.waits,
    rateLimitBudgetMs: stats.budget.budgetMs,
    rateLimitedAnswers: stats.rateLimitedAnswers,
    retried503: stats.workers.retried503,
    retriedDropped: stats.workers.retriedDropped,
    backoffMs: stats.workers.backoffMs,
    operations: operationCosts(stats.workers.operations),
    cap: stats.cap,
    ...(stats.workers.roundsAtOnce
      ? {
          rounds: {
            tried: stats.workers.roundsAtOnce,
            rateLimited: stats.workers.roundsRateLimited,
            unanswered: stats.workers.roundsUnanswered,
          },
        }
      : {}),
  };
}
