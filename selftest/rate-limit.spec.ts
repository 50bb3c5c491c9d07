import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { HttpClient } from '../runner/http/client.ts';
import { LocalBudget, RateLimitedError, RunBudget } from '../runner/http/rate-limit.ts';
import { sendWithRetry } from '../runner/http/retry.ts';
import { Redactor } from '../kit/redact.ts';
import { BrokerClient } from '../runner/broker-client.ts';
import { runCost, startBroker } from '../runner/broker.ts';
import { TargetCap } from '../runner/target-cap.ts';
import { costLine } from '../reporters/run-summary.ts';
import { TokenProvider } from '../kit/tokens.ts';
import { TokenCache } from '../runner/tokens.ts';

// Part 8 leaves rate limits "not shown": a 429 is waited out and sent again within the run's budget, never judged; the
// run's cap on requests in flight to the target (TARGET_CONCURRENCY) is halved run-wide when 429s come, free before.

const servers: Server[] = [];
test.afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A server on a free port, closed when the test ends; its URL. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Answers 429 `times` times (with the given headers), then 200. */
async function limitedServer(times: number, headers: Record<string, string> = {}) {
  let calls = 0;
  const url = await serve((_req, res) => {
    calls += 1;
    if (calls <= times) res.writeHead(429, headers).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return { url, calls: () => calls };
}

const policy = { retries: 0, baseMs: 5, maxMs: 50, timeoutMs: 2000 };
const get = (url: string) => ({ method: 'GET', url, headers: [] as Array<[string, string]> });

test.describe('429 answers', () => {
  // Retry-After as an HTTP-date is read by retryAfterMs (harness.spec.ts's backoff unit); waiting it out is the same.
  test('a 429 is waited out and the request sent again, even with 503 retries off: as Retry-After asks in seconds, and without it with growing backoff and jitter', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    const budget = new LocalBudget(60_000);
    const asked = await limitedServer(2, { 'retry-after': '3' });
    const { response, attempts, rateLimited } = await sendWithRetry(get(asked.url), policy, sleep, budget);
    expect(response.status).toBe(200);
    expect(rateLimited).toBe(false);
    expect(attempts.map((a) => a.status)).toEqual([429, 429, 200]);
    expect(waits.splice(0)).toEqual([3000, 3000]);
    expect(budget.stats).toMatchObject({ waitedMs: 6000, waits: 2, refused: 0 });

    const unasked = await limitedServer(4);
    await sendWithRetry(get(unasked.url), { ...policy, baseMs: 100 }, sleep, new LocalBudget(60_000));
    expect(waits).toHaveLength(4);
    waits.forEach((ms, i) => {
      expect(ms, `wait ${i}`).toBeGreaterThanOrEqual((100 * 2 ** i) / 2);
      expect(ms, `wait ${i}`).toBeLessThanOrEqual(100 * 2 ** i);
    });
  });

  test('when the budget cannot cover the wait, the request ends rate-limited: the client throws RateLimitedError, and the waits are counted', async () => {
    const target = await limitedServer(100, { 'retry-after': '1' });
    const budget = new LocalBudget(2_500);
    const client = new HttpClient({ ...policy, retries: 3 }, budget);
    const started = Date.now();
    const error = await client
      .send({ label: 'op', method: 'GET', url: target.url, headers: [] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(String(error)).toMatch(
      /^RateLimitedError: rate-limited: GET http:\/\/127\.0\.0\.1:\d+ was still answered 429/,
    );
    expect(budget.stats).toMatchObject({ waitedMs: 2000, waits: 2, refused: 1 });
    expect(target.calls()).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  });
});

test.describe("the run's tokens", () => {
  /** A token endpoint that counts what it issues, answering `status`; `expiresIn` undefined leaves expires_in out. */
  async function tokenEndpoint(expiresIn?: number, status = 200) {
    let issued = 0;
    const url = await serve((_req, res) => {
      issued += 1;
      res.writeHead(status, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          access_token: `token-number-${issued}`,
          token_type: 'Bearer',
          ...(expiresIn ? { expires_in: expiresIn } : {}),
        }),
      );
    });
    return { url, issued: () => issued };
  }
  const credentialAt = (tokenUrl: string) => ({ tokenUrl, apiKey: 'a2V5OnNlY3JldA==' });
  const cacheOf = () => new TokenCache(new HttpClient(policy, new LocalBudget(0)), new Redactor());

  test('workers asking the broker at once share one token per token endpoint and API key, fetched once', async () => {
    const endpoint = await tokenEndpoint(1200);
    const broker = await startBroker({ policy, rateLimitBudgetMs: 1000, secrets: [] });
    const credential = credentialAt(`${endpoint.url}/v1/token`);
    const workers = [1, 2, 3].map(() => new TokenProvider(new BrokerClient(broker.url, broker.secret), new Redactor()));
    const tokens = await Promise.all(workers.flatMap((w) => [w.token(credential), w.token(credential)]));
    const other = await workers[0]!.token({ ...credential, apiKey: 'b3RoZXI6c2VjcmV0' });
    await broker.close();
    expect(new Set(tokens)).toEqual(new Set(['token-number-1']));
    expect(other).toBe('token-number-2');
    expect(endpoint.issued()).toBe(2);
    expect(broker.stats().tokenFetches).toBe(2);
  });

  test('a token without expires_in is reused until a 401, then fetched again once, and never a third time', async () => {
    const endpoint = await tokenEndpoint();
    const provider = new TokenProvider(cacheOf(), new Redactor());
    const credential = credentialAt(endpoint.url);
    const first = await provider.token(credential);
    expect(await provider.token(credential)).toBe(first);
    const renewed = await provider.renewAfter401(credential, first);
    expect(renewed).toBe('token-number-2');
    expect(await provider.token(credential)).toBe('token-number-2');
    expect(
      await provider.renewAfter401(credential, 'token-number-2'),
      'a second 401 stands: the token is not fetched a third time',
    ).toBeUndefined();
    expect(endpoint.issued()).toBe(2);
  });

  test('a token is not handed out past expires_in minus a margin, and a stale 401 does not fetch again when a newer token exists', async () => {
    const endpoint = await tokenEndpoint(1);
    const cache = cacheOf();
    const credential = credentialAt(endpoint.url);
    const first = await cache.get(credential);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const second = await cache.get(credential);
    const afterStale = await cache.renew(credential, 'token-number-1');
    expect(first).toMatchObject({ ok: true, token: 'token-number-1' });
    expect(second).toMatchObject({ ok: true, token: 'token-number-2' });
    expect(afterStale).toMatchObject({ ok: true, token: 'token-number-2' });
    expect(endpoint.issued()).toBe(2);
  });

  test('a refused token request is remembered: every check standing on it ends at once with the same account, and no more requests go out', async () => {
    const endpoint = await tokenEndpoint(undefined, 500);
    const cache = cacheOf();
    const outcomes = await Promise.all([1, 2, 3].map(() => cache.get(credentialAt(endpoint.url))));
    expect(endpoint.issued()).toBe(1);
    for (const outcome of outcomes) expect(outcome).toMatchObject({ ok: false, failure: { kind: 'answer' } });
    const message = outcomes[0]?.ok === false ? outcomes[0].failure.message : '';
    expect(message).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+ was answered 500/);
    expect(message, 'a token in a wrong answer is still a secret').not.toContain('token-number-1');
  });
});

const settled = async <T>(promise: Promise<T>) => {
  let done = false;
  void promise.then(() => (done = true));
  // Every reaction already queued runs before this resolves.
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

test.describe('the cap (broker side)', () => {
  test('a 429 halves the cap once per cap, however many requests met it, and never below 1', () => {
    const cap = new TargetCap(16, 60_000);
    expect(cap.rateLimited(16)).toBe(8);
    expect(cap.rateLimited(16), 'a request sent under the old cap does not halve it again').toBe(8);
    expect(cap.rateLimited(8)).toBe(4);
    expect(
      cap.rateLimited(Number.POSITIVE_INFINITY),
      'a request whose cap is unknown counts as sent under the current one',
    ).toBe(2);
    expect(cap.rateLimited(2)).toBe(1);
    expect(cap.rateLimited(1)).toBe(1);
    expect(cap.stats()).toEqual({ initial: 16, final: 1, lowered: 4 });
    cap.close();
  });

  test('places: no more than the cap in flight, the next one given when one is given back, in order', async () => {
    const cap = new TargetCap(2, 60_000);
    const first = cap.enter();
    const second = cap.enter();
    const third = cap.enter();
    const fourth = cap.enter();
    const [one, two] = await Promise.all([first.place, second.place]);
    expect(await settled(third.place), 'a third waits while two are in flight').toBe(false);
    cap.leave(one);
    const three = await third.place;
    expect(await settled(fourth.place)).toBe(false);
    fourth.cancel();
    cap.leave(two);
    cap.leave(three);
    expect(await settled(cap.enter().place), 'a cancelled wait took no place').toBe(true);
    cap.close();
  });

  test('a place not given back returns when its lease ends (a worker that ended mid-request)', async () => {
    const cap = new TargetCap(1, 50);
    await cap.enter().place;
    const next = cap.enter();
    // Waits for the lease's end, an event of the cap itself, not a time the test guesses.
    await expect(next.place).resolves.toEqual(expect.any(Number));
    cap.close();
  });

  test('a watch hears of a halving at once, and is answered at once when its cap is already out of date', async () => {
    const cap = new TargetCap(8, 60_000);
    const watch = cap.watch(8);
    expect(await settled(watch.cap)).toBe(false);
    cap.rateLimited(8);
    await expect(watch.cap).resolves.toBe(4);
    await expect(cap.watch(8).cap).resolves.toBe(4);
    cap.close();
  });
});

test("the run's budget counts the time the run spends waiting: waits that overlap count once", () => {
  let now = 0;
  const budget = new RunBudget(10_000, () => now);
  expect(budget.grantNow(4_000)).toBe(true);
  now = 1_000;
  expect(budget.grantNow(4_000), 'a second worker waiting meanwhile adds only what outlasts the first wait').toBe(true);
  expect(budget.stats).toMatchObject({ waitedMs: 5_000, waits: 2 });
  now = 2_000;
  expect(budget.grantNow(1_000), 'within a wait already counted: nothing added').toBe(true);
  now = 20_000;
  expect(budget.grantNow(5_000)).toBe(true);
  expect(budget.grantNow(5_001), 'beyond the budget: refused').toBe(false);
  expect(budget.stats).toEqual({ budgetMs: 10_000, waitedMs: 10_000, waits: 4, refused: 1 });
});

const capPolicy = { ...policy, timeoutMs: 5_000 };

test.describe('the cap across workers (broker and its clients)', () => {
  test('before any 429 a request asks the broker for nothing; a 429 halves the cap run-wide, every worker hears it, and the summary says so', async () => {
    const target = await limitedServer(1, { 'retry-after': '0' });
    const broker = await startBroker({
      policy: capPolicy,
      rateLimitBudgetMs: 10_000,
      secrets: [],
      targetConcurrency: 8,
    });
    const workerA = new BrokerClient(broker.url, broker.secret);
    const workerB = new BrokerClient(broker.url, broker.secret);
    try {
      // Worker B hears the cap (its first answer), and while it is not lowered its requests wait for no place.
      workerB.place();
      await expect.poll(() => workerB.place().cap).toBe(8);
      expect(workerB.place().entered, 'no place asked of the broker before a 429').toBeUndefined();

      const clientA = new HttpClient(capPolicy, workerA);
      const answer = await clientA.send({ label: 'probe', ...get(target.url) });
      expect(answer.status).toBe(200);
      expect(answer.attempts.map((a) => a.status)).toEqual([429, 200]);
      expect(clientA.stats.rateLimitedAnswers).toBe(1);
      expect(broker.stats().cap).toEqual({ initial: 8, final: 4, lowered: 1 });

      // Worker B never met the 429: it hears of the halving, and from then on its requests take a place first.
      await expect.poll(() => workerB.place().cap).toBe(4);
      const clientB = new HttpClient(capPolicy, workerB);
      const answers = await Promise.all(
        [1, 2, 3, 4, 5, 6].map(() => clientB.send({ label: 'probe', ...get(target.url) })),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);

      await workerA.report(clientA.stats);
      await workerB.report(clientB.stats);
      const cost = runCost(broker.stats());
      expect(cost).toMatchObject({ rateLimitedAnswers: 1, cap: { initial: 8, final: 4 } });
      expect(costLine(cost)).toContain(
        '1 answers 429; requests in flight capped at 8 (TARGET_CONCURRENCY), lowered to 4 by the 429 answers',
      );
    } finally {
      await broker.close();
    }
  });
});
