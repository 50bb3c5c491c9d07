import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { HttpClient } from '../runner/http/client.ts';
import { RunBudget } from '../runner/http/rate-limit.ts';
import { BrokerClient } from '../runner/broker-client.ts';
import { startBroker, runCost } from '../runner/broker.ts';
import { TargetCap } from '../runner/target-cap.ts';
import { costLine } from '../reporters/run-summary.ts';

// TARGET_CONCURRENCY: the run's cap on requests in flight to the target, halved run-wide when 429s come, free before.

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

/** A target answering 429 (Retry-After: 0) to the first `times` requests, then 200; counts what it is sent. */
async function limitedTarget(times: number) {
  let calls = 0;
  const server = createServer((_req, res) => {
    calls += 1;
    if (calls <= times) res.writeHead(429, { 'retry-after': '0' }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    close: () => (server.closeAllConnections(), server.close()),
  };
}

const policy = { retries: 0, baseMs: 5, maxMs: 50, timeoutMs: 5_000 };
const get = (url: string) => ({ label: 'probe', method: 'GET', url, headers: [] as Array<[string, string]> });

test.describe('the cap across workers (broker and its clients)', () => {
  test('before any 429 a request asks the broker for nothing; a 429 halves the cap run-wide, every worker hears it, and the summary says so', async () => {
    const target = await limitedTarget(1);
    const broker = await startBroker({ policy, rateLimitBudgetMs: 10_000, secrets: [], targetConcurrency: 8 });
    const workerA = new BrokerClient(broker.url, broker.secret);
    const workerB = new BrokerClient(broker.url, broker.secret);
    try {
      // Worker B hears the cap (its first answer), and while it is not lowered its requests wait for no place.
      workerB.place();
      await expect.poll(() => workerB.place().cap).toBe(8);
      expect(workerB.place().entered, 'no place asked of the broker before a 429').toBeUndefined();

      const clientA = new HttpClient(policy, workerA);
      const answer = await clientA.send(get(target.url));
      expect(answer.status).toBe(200);
      expect(answer.attempts.map((a) => a.status)).toEqual([429, 200]);
      expect(clientA.stats.rateLimitedAnswers).toBe(1);
      expect(broker.stats().cap).toEqual({ initial: 8, final: 4, lowered: 1 });

      // Worker B never met the 429: it hears of the halving, and from then on its requests take a place first.
      await expect.poll(() => workerB.place().cap).toBe(4);
      const clientB = new HttpClient(policy, workerB);
      const answers = await Promise.all([1, 2, 3, 4, 5, 6].map(() => clientB.send(get(target.url))));
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
      target.close();
    }
  });
});
