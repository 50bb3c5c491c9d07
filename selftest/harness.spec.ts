import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { HttpClient } from '../runner/http/client.ts';
import { freePorts } from '../runner/http/free-port.ts';
import { backoffMs, sendWithRetry } from '../runner/http/retry.ts';
import { NoAnswerError } from '../runner/http/wire.ts';
import { Redactor } from '../kit/redact.ts';
import { requirements } from '../catalog/catalog.ts';
import { citeAnnotation, markAnnotation, type MarkKind } from '../kit/verdict-marks.ts';
import { settingsNamedIn } from '../schemas/variables.ts';
import { runVerdict } from '../reporters/run-verdict.ts';
import { verdictsFor, type TestRecord } from '../reporters/verdicts.ts';
import { retryAfterMs } from '../kit/http/retry-after.ts';
import { bareVerdict } from './bare-verdict.ts';

// The runner's units: retries and backoff, redaction, and how the tests behind a requirement make its outcome. The
// verdict of each profile (words, exit code) is the table of docs/verdicts.md, held by verdict-table.spec.ts.

/** A server answering each request with `handler`, closed when `body` ends. */
async function served<T>(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  body: (url: string) => Promise<T>,
) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const policy = { retries: 3, baseMs: 5, maxMs: 50, timeoutMs: 2000 };
const get = (url: string) => ({ method: 'GET', url, headers: [] as Array<[string, string]> });

test.describe('HTTP layer', () => {
  test('a 503 is retried with backoff until it succeeds; a Retry-After that fits is honoured, a longer one ends the retries', async () => {
    let calls = 0;
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    await served(
      (req, res) => {
        calls += 1;
        if (req.url === '/') return res.writeHead(calls < 3 ? 503 : 200).end('{}');
        res.writeHead(503, { 'retry-after': req.url === '/short' ? '0' : '3600' }).end();
      },
      async (url) => {
        const { response, attempts } = await sendWithRetry(get(url), policy, sleep);
        expect([response.status, attempts.map((a) => a.status), waits.length]).toEqual([200, [503, 503, 200], 2]);
        expect(waits[1]).toBeGreaterThanOrEqual(5);
        const long = await sendWithRetry(get(`${url}/long`), policy, sleep);
        expect(long.attempts).toHaveLength(1);
        expect(long.attempts[0]?.note).toContain('exceeds the longest backoff');
        const short = await sendWithRetry(get(`${url}/short`), policy, sleep);
        expect(short.attempts).toHaveLength(4);
        expect(short.response.status, 'after the last retry the 503 is returned').toBe(503);
      },
    );
  });

  test("the client counts each operation's retries, the backoff before them and one latency per call; retry: false sends once", async () => {
    let answered = 0;
    await served(
      (req, res) => res.writeHead(req.url === '/never' || (answered += 1) <= 2 ? 503 : 200).end(),
      async (url) => {
        const client = new HttpClient({ ...policy, baseMs: 1, maxMs: 4 });
        await client.send({ label: 'createOrder', ...get(url) });
        await client.send({ label: 'createOrder', ...get(url) });
        const once = await client.send({ label: 't', ...get(`${url}/never`), retry: false });
        expect(once.attempts).toHaveLength(1);
        expect(client.stats).toMatchObject({ requests: 5, retries: 2, retried503: 2, retriedDropped: 0 });
        expect(client.stats.backoffMs).toBeGreaterThan(0);
        expect(client.stats.operations).toEqual({
          createOrder: { latencies: [expect.any(Number), expect.any(Number)], retries: 2 },
          t: { latencies: [expect.any(Number)], retries: 0 },
        });
      },
    );
  });

  test('a silent server is reported as no answer within the timeout', async () => {
    const error = await served(
      () => undefined,
      (url) => new HttpClient({ ...policy, timeoutMs: 150 }).send({ label: 't', ...get(url) }).catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(NoAnswerError);
    expect(String(error)).toContain('no answer within 150 ms');
  });

  test('backoff grows exponentially within the cap, with jitter; Retry-After is read in seconds or as a date', () => {
    const of = (attempt: number, jitter: number) => backoffMs(attempt, { baseMs: 100, maxMs: 1000 }, () => jitter);
    expect([of(0, 0), of(0, 1), of(3, 1), of(10, 1)]).toEqual([50, 100, 800, 1000]);
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });

  test('a free port is handed out once: asked again before anything listens on it, the next one comes', async () => {
    const from = 20_000 + Math.floor(Math.random() * 7_000);
    const [first] = await freePorts(1, from);
    expect(first).toBeDefined();
    expect((await freePorts(1, from))[0], 'the port reserved by the first call').not.toBe(first);
  });
});

test('redaction: registered secrets, credentials after a scheme, Authorization headers and token fields are removed', () => {
  const redactor = new Redactor(['registered-api-key-123']);
  const prose = 'refuses a tampered bearer token or non-Basic credentials';
  for (const [text, redacted] of [
    ['key registered-api-key-123 here', 'key [REDACTED] here'],
    ['Authorization: Bearer eyJhbGciOi.payload.sig', 'Authorization: Bearer [REDACTED]'],
    ['basic dXNlcjpwYXNz', 'basic [REDACTED]'],
    ['Bearer abc123', 'Bearer [REDACTED]'],
    [prose, prose],
  ])
    expect(redactor.text(text as string), text).toBe(redacted);
  expect(redactor.header('Authorization', 'Token abc.def')).toBe('Token [REDACTED]');
  expect(redactor.header('authorization', 'rawvalue')).toBe('[REDACTED]');
  expect(redactor.header('authorization', ''), 'an empty header stays visibly empty').toBe('');
  expect(
    redactor.json({ access_token: 'abc', nested: [{ refresh_token: 'x' }], note: 'registered-api-key-123' }),
  ).toEqual({ access_token: '[REDACTED]', nested: [{ refresh_token: '[REDACTED]' }], note: '[REDACTED]' });
});

test.describe('verdict aggregation', () => {
  const cite = (...ids: string[]) => ids.map(citeAnnotation);
  const mark = (kind: MarkKind, id: string, detail = '') => markAnnotation({ kind, id, detail });
  const record = (status: TestRecord['status'], annotations: TestRecord['annotations'], extra = {}): TestRecord => ({
    title: 't',
    project: 'p',
    location: 'x.spec.ts:1',
    status,
    annotations,
    ...extra,
  });
  const outcome = (tests: TestRecord[], id: string) =>
    verdictsFor(requirements, tests).find((v) => v.id === id)?.outcome;
  const precondition = { errorName: 'PreconditionFailure' };

  test('the worst outcome of the tests behind a requirement wins; blocked ranks above passed; an unexpected error fails the MUSTs not yet passed', () => {
    const pass = (title = 't') => ({
      ...record('passed', [...cite('CU-TAGS-APPEND'), mark('pass', 'CU-TAGS-APPEND')]),
      title,
    });
    const fail = record('failed', [...cite('CU-TAGS-APPEND'), mark('fail', 'CU-TAGS-APPEND')]);
    const blocked = record(
      'failed',
      [...cite('CU-TAGS-APPEND'), mark('blocked', 'CU-TAGS-APPEND', 'no case')],
      precondition,
    );
    expect([outcome([pass()], 'CU-TAGS-APPEND'), outcome([pass(), fail], 'CU-TAGS-APPEND')]).toEqual([
      'passed',
      'failed',
    ]);
    expect([outcome([pass(), blocked], 'CU-TAGS-APPEND'), outcome([], 'CU-TAGS-APPEND')]).toEqual([
      'blocked',
      'uncovered',
    ]);
    const crashed = record('failed', [...cite('ORD-409', 'ORD-ERR-PAIR'), mark('pass', 'ORD-ERR-PAIR')], {
      error: 'TypeError: x',
      errorName: 'TypeError',
    });
    expect([outcome([crashed], 'ORD-409'), outcome([crashed], 'ORD-ERR-PAIR')]).toEqual(['failed', 'passed']);
    const notConfigured = record('skipped', [...cite('CU-TAGS-APPEND'), mark('not-configured', 'CU-TAGS-APPEND', 'x')]);
    const [mixed] = verdictsFor(requirements, [pass('a'), pass('b'), pass('c'), notConfigured, notConfigured]).filter(
      (v) => v.id === 'CU-TAGS-APPEND',
    );
    expect(mixed).toMatchObject({ outcome: 'passed', breakdown: '3 checks held; 2 tests not configured' });
    const gate = runVerdict(
      verdictsFor(requirements, [
        { ...blocked, annotations: [...cite('TOK-ISSUED'), mark('blocked', 'TOK-ISSUED', 'answered 201')] },
      ]),
      'gate',
    );
    expect(gate.reasons).toEqual(['MUST requirements blocked by the target: TOK-ISSUED (blocked by: answered 201)']);
  });

  test('a skipped test is not configured, bare or marked, never passed; its reason must name the variable that configures it, which the reports read from there', () => {
    expect(outcome([record('skipped', cite('ORD-403'))], 'ORD-403')).toBe('not-configured');
    expect(settingsNamedIn('WEBHOOK_PUBLIC_URL is not set (set it, or WEBHOOK_MODE=passive)')).toEqual([
      'WEBHOOK_PUBLIC_URL',
      'WEBHOOK_MODE',
    ]);
    expect(settingsNamedIn('IDENTITY_API_KEY and API_KEY, not MY_API_KEY_X')).toEqual(['IDENTITY_API_KEY', 'API_KEY']);
    expect(settingsNamedIn('not configured: --inject-503 0')).toEqual(['--inject-503']);
    const { verdict, annotations, skipped } = bareVerdict(['ORD-403']);
    const reason = 'no client without the entitlements is configured';
    expect(() => verdict.notConfigured(reason)).toThrow(/names none of schemas\/config\.schema\.json/);
    expect(() => verdict.notConfigured(`${reason} (ORDERS_NO_ENTITLEMENT_API_KEY)`)).toThrow('skipped');
    expect(skipped).toEqual([`not configured: ${reason} (ORDERS_NO_ENTITLEMENT_API_KEY)`]);
    const [verdictOf] = verdictsFor(requirements, [record('skipped', annotations)]).filter((v) => v.id === 'ORD-403');
    expect(verdictOf).toMatchObject({ outcome: 'not-configured', configure: ['ORDERS_NO_ENTITLEMENT_API_KEY'] });
  });

  test('a requirement the target never produced reads "not exercised: the target never produced it" and fails no profile', () => {
    const { verdict, annotations } = bareVerdict(['ORD-403'], { profile: 'certify' });
    verdict.notProduced('ORD-403', 'no event carried it');
    const verdicts = verdictsFor(requirements, [record('passed', annotations)]);
    expect(verdicts.find((v) => v.id === 'ORD-403')?.outcome).toBe('not-produced');
    for (const profile of ['gate', 'nightly', 'certify', 'certify-strict'] as const)
      expect(runVerdict(verdicts, profile).notProduced).toEqual(['ORD-403']);
    expect(runVerdict(verdicts, 'certify').reasons.join('\n')).not.toContain('ORD-403');
  });
});
