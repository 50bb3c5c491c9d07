import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { HttpClient } from '../runner/http/client.ts';
import { LocalBudget, RateLimitedError } from '../runner/http/rate-limit.ts';
import { sendWithRetry } from '../runner/http/retry.ts';
import { Redactor } from '../kit/redact.ts';
import { BrokerClient } from '../runner/broker-client.ts';
import { startBroker } from '../runner/broker.ts';
import { TokenProvider } from '../kit/tokens.ts';
import { TokenCache } from '../runner/tokens.ts';

// Part 8 leaves rate limits "not shown": a 429 is waited out and sent again within the run's budget, never judged.

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; server: Server; close: () => void }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, server, close: () => (server.closeAllConnections(), server.close()) };
}

/** Answers 429 `times` times (with the given headers), then 200. */
async function limitedServer(times: number, headers: Record<string, string> = {}) {
  let calls = 0;
  const served = await serve((_req, res) => {
    calls += 1;
    if (calls <= times) res.writeHead(429, headers).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return { ...served, calls: () => calls };
}

const policy = { retries: 0, baseMs: 5, maxMs: 50, timeoutMs: 2000 };
const get = (url: string) => ({ method: 'GET', url, headers: [] as Array<[string, string]> });

test.describe('429 answers', () => {
  test('a 429 with Retry-After in seconds is waited out as asked and the request sent again, even with 503 retries off', async () => {
    const target = await limitedServer(2, { 'retry-after': '3' });
    const waits: number[] = [];
    const budget = new LocalBudget(60_000);
    const { response, attempts, rateLimited } = await sendWithRetry(
      get(target.url),
      policy,
      async (ms) => void waits.push(ms),
      budget,
    );
    target.close();
    expect(response.status).toBe(200);
    expect(rateLimited).toBe(false);
    expect(attempts.map((a) => a.status)).toEqual([429, 429, 200]);
    expect(waits).toEqual([3000, 3000]);
    expect(budget.stats).toMatchObject({ waitedMs: 6000, waits: 2, refused: 0 });
  });

  test('a 429 with Retry-After as an HTTP-date is waited out until that date', async () => {
    const until = Date.now() + 20_000;
    const target = await limitedServer(1, { 'retry-after': new Date(until).toUTCString() });
    const waits: number[] = [];
    const asked = Date.now();
    await sendWithRetry(get(target.url), policy, async (ms) => void waits.push(ms), new LocalBudget(60_000));
    target.close();
    expect(waits).toHaveLength(1);
    // The date has whole seconds; the wait is measured from when the answer came, some time after `asked`.
    expect(waits[0]).toBeGreaterThan(Math.floor(until / 1000) * 1000 - Date.now() - 1);
    expect(waits[0]).toBeLessThanOrEqual(until - asked);
  });

  test('a 429 without Retry-After is waited out with growing backoff and jitter', async () => {
    const target = await limitedServer(4);
    const waits: number[] = [];
    await sendWithRetry(
      get(target.url),
      { ...policy, baseMs: 100 },
      async (ms) => void waits.push(ms),
      new LocalBudget(60_000),
    );
    target.close();
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
    target.close();
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
  /** A token endpoint that counts what it issues; `expiresIn` undefined leaves expires_in out. */
  async function tokenEndpoint(expiresIn?: number) {
    let issued = 0;
    const served = await serve((_req, res) => {
      issued += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          access_token: `token-number-${issued}`,
          token_type: 'Bearer',
          ...(expiresIn ? { expires_in: expiresIn } : {}),
        }),
      );
    });
    return { ...served, issued: () => issued };
  }

  test('workers asking the broker at once share one token per token endpoint and API key, fetched once', async () => {
    const endpoint = await tokenEndpoint(1200);
    const broker = await startBroker({ policy, rateLimitBudgetMs: 1000, secrets: [] });
    const credential = { tokenUrl: `${endpoint.url}/v1/token`, apiKey: 'a2V5OnNlY3JldA==' };
    const workers = [1, 2, 3].map(() => new TokenProvider(new BrokerClient(broker.url, broker.secret), new Redactor()));
    const tokens = await Promise.all(workers.flatMap((w) => [w.token(credential), w.token(credential)]));
    const other = await workers[0]!.token({ ...credential, apiKey: 'b3RoZXI6c2VjcmV0' });
    await broker.close();
    endpoint.close();
    expect(new Set(tokens)).toEqual(new Set(['token-number-1']));
    expect(other).toBe('token-number-2');
    expect(endpoint.issued()).toBe(2);
    expect(broker.stats().tokenFetches).toBe(2);
  });

  test('a token without expires_in is reused until a 401, then fetched again once, and never a third time', async () => {
    const endpoint = await tokenEndpoint();
    const cache = new TokenCache(new HttpClient(policy, new LocalBudget(0)), new Redactor());
    const provider = new TokenProvider(cache, new Redactor());
    const credential = { tokenUrl: endpoint.url, apiKey: 'a2V5OnNlY3JldA==' };
    const first = await provider.token(credential);
    expect(await provider.token(credential)).toBe(first);
    const renewed = await provider.renewAfter401(credential, first);
    expect(renewed).toBe('token-number-2');
    expect(await provider.token(credential)).toBe('token-number-2');
    expect(
      await provider.renewAfter401(credential, 'token-number-2'),
      'a second 401 stands: the token is not fetched a third time',
    ).toBeUndefined();
    endpoint.close();
    expect(endpoint.issued()).toBe(2);
  });

  test('a token is not handed out past expires_in minus a margin, and a stale 401 does not fetch again when a newer token exists', async () => {
    const endpoint = await tokenEndpoint(1);
    const cache = new TokenCache(new HttpClient(policy, new LocalBudget(0)), new Redactor());
    const credential = { tokenUrl: endpoint.url, apiKey: 'a2V5OnNlY3JldA==' };
    const first = await cache.get(credential);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const second = await cache.get(credential);
    const afterStale = await cache.renew(credential, 'token-number-1');
    endpoint.close();
    expect(first).toMatchObject({ ok: true, token: 'token-number-1' });
    expect(second).toMatchObject({ ok: true, token: 'token-number-2' });
    expect(afterStale).toMatchObject({ ok: true, token: 'token-number-2' });
    expect(endpoint.issued()).toBe(2);
  });

  test('a refused token request is remembered: every check standing on it ends at once with the same account, and no more requests go out', async () => {
    let calls = 0;
    const endpoint = await serve((_req, res) => {
      calls += 1;
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end('{"access_token":"issued-with-500","token_type":"Bearer"}');
    });
    const redactor = new Redactor();
    const cache = new TokenCache(new HttpClient(policy, new LocalBudget(0)), redactor);
    const outcomes = await Promise.all(
      [1, 2, 3].map(() => cache.get({ tokenUrl: endpoint.url, apiKey: 'a2V5OnNlY3JldA==' })),
    );
    endpoint.close();
    expect(calls).toBe(1);
    for (const outcome of outcomes) expect(outcome).toMatchObject({ ok: false, failure: { kind: 'answer' } });
    const message = outcomes[0]?.ok === false ? outcomes[0].failure.message : '';
    expect(message).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+ was answered 500/);
    expect(message, 'a token in a wrong answer is still a secret').not.toContain('issued-with-500');
  });
});
