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
import { served } from './served.ts';

// The runner's units: retries and backoff, redaction, and how the tests behind a requirement make its outcome. The
// verdict of each profile (words, exit code) is the table of docs/verdicts.md, held by verdict-table.spec.ts.

const policy = { retries: 3, baseMs: 5, maxMs: 50, timeoutMs: 2000 };
const get = (url: string) => ({ method: 'GET', url, headers: [] as Array<[string, string]> });

test("a 503 is retried with backoff until it succeeds, a Retry-After that fits honoured, a longer one ending the retries; the client counts each operation's retries, the backoff before them and one latency per call; retry: false sends once; a silent server is no answer within the timeout", async () => {
  const calls = new Map<string, number>();
  const waits: number[] = [];
  const sleep = async (ms: number) => void waits.push(ms);
  await served(
    (req, res) => {
      const path = req.url ?? '';
      calls.set(path, (calls.get(path) ?? 0) + 1);
      if (path === '/short' || path === '/long')
        return res.writeHead(503, { 'retry-after': path === '/short' ? '0' : '3600' }).end();
      if (path !== '/silent') res.writeHead(path === '/never' || (calls.get(path) ?? 0) < 3 ? 503 : 200).end('{}');
    },
    async (url) => {
      const { response, attempts } = await sendWithRetry(get(`${url}/flaky`), policy, sleep);
      expect([response.status, attempts.map((a) => a.status), waits.length]).toEqual([200, [503, 503, 200], 2]);
      expect(waits[1]).toBeGreaterThanOrEqual(5);
      const long = await sendWithRetry(get(`${url}/long`), policy, sleep);
      expect(long.attempts).toHaveLength(1);
      expect(long.attempts[0]?.note).toContain('exceeds the longest backoff');
      const short = await sendWithRetry(get(`${url}/short`), policy, sleep);
      expect([short.attempts.length, short.response.status], 'after the last retry the 503 is returned').toEqual([
        4, 503,
      ]);

      const client = new HttpClient({ ...policy, baseMs: 1, maxMs: 4 });
      await client.send({ label: 'createOrder', ...get(`${url}/counted`) });
      await client.send({ label: 'createOrder', ...get(`${url}/counted`) });
      const once = await client.send({ label: 't', ...get(`${url}/never`), retry: false });
      expect(once.attempts).toHaveLength(1);
      expect(client.stats).toMatchObject({ requests: 5, retries: 2, retried503: 2, retriedDropped: 0 });
      expect(client.stats.backoffMs).toBeGreaterThan(0);
      expect(client.stats.operations).toEqual({
        createOrder: { latencies: [expect.any(Number), expect.any(Number)], retries: 2 },
        t: { latencies: [expect.any(Number)], retries: 0 },
      });
      const silent = new HttpClient({ ...policy, timeoutMs: 150 }).send({ label: 't', ...get(`${url}/silent`) });
      const error = await silent.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NoAnswerError);
      expect(String(error)).toContain('no answer within 150 ms');
    },
  );
});

test('backoff grows exponentially within the cap, with jitter; Retry-After is read in seconds or as a date; a free port is handed out once', async () => {
  const of = (attempt: number, jitter: number) => backoffMs(attempt, { baseMs: 100, maxMs: 1000 }, () => jitter);
  expect([of(0, 0), of(0, 1), of(3, 1), of(10, 1)]).toEqual([50, 100, 800, 1000]);
  expect([retryAfterMs('2'), retryAfterMs('soon')]).toEqual([2000, undefined]);
  expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
  const from = 20_000 + Math.floor(Math.random() * 7_000);
  const [first] = await freePorts(1, from);
  expect(first).toBeDefined();
  expect((await freePorts(1, from))[0], 'asked again before anything listens on it, the next one').not.toBe(first);
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
  const json = { access_token: 'abc', nested: [{ refresh_token: 'x' }], note: 'registered-api-key-123' };
  const R = '[REDACTED]';
  expect(redactor.json(json)).toEqual({ access_token: R, nested: [{ refresh_token: R }], note: R });
});

test.describe('verdict aggregation', () => {
  const ID = 'CU-TAGS-APPEND';
  const record = (status: TestRecord['status'], annotations: TestRecord['annotations'], more = {}): TestRecord => ({
    ...{ title: 't', project: 'p', location: 'x.spec.ts:1', status, annotations },
    ...more,
  });
  const marked = (kind: MarkKind, id = ID, detail = '') => [citeAnnotation(id), markAnnotation({ kind, id, detail })];
  const verdictOf = (tests: TestRecord[], id = ID) => verdictsFor(requirements, tests).find((v) => v.id === id);
  const precondition = { errorName: 'PreconditionFailure' };

  test('the worst outcome of the tests behind a requirement wins; blocked ranks above passed; an unexpected error fails the MUSTs not yet passed; a bare skip is not configured', () => {
    const pass = (title = 't') => record('passed', marked('pass'), { title });
    const crashed = record('failed', [citeAnnotation('ORD-409'), ...marked('pass', 'ORD-ERR-PAIR')], {
      error: 'TypeError: x',
      errorName: 'TypeError',
    });
    const cases: Array<[string, TestRecord[], string, string?]> = [
      ['a pass', [pass()], 'passed'],
      ['a pass and a fail', [pass(), record('failed', marked('fail'))], 'failed'],
      ['a pass and a block', [pass(), record('failed', marked('blocked', ID, 'no case'), precondition)], 'blocked'],
      ['no test', [], 'uncovered'],
      ['a crash', [crashed], 'failed', 'ORD-409'],
      ['a crash after its pass', [crashed], 'passed', 'ORD-ERR-PAIR'],
      ['a bare skip', [record('skipped', [citeAnnotation('ORD-403')])], 'not-configured', 'ORD-403'],
    ];
    const outcomes = cases.map(([name, tests, , id]) => `${name}: ${verdictOf(tests, id)?.outcome}`);
    expect(outcomes).toEqual(cases.map(([name, , outcome]) => `${name}: ${outcome}`));
    const notConfigured = record('skipped', marked('not-configured', ID, 'x'));
    expect(verdictOf([pass('a'), pass('b'), pass('c'), notConfigured, notConfigured])).toMatchObject({
      outcome: 'passed',
      breakdown: '3 checks held; 2 tests not configured',
    });
    const tokenBlocked = record('failed', marked('blocked', 'TOK-ISSUED', 'answered 201'), precondition);
    expect(runVerdict(verdictsFor(requirements, [tokenBlocked]), 'gate').reasons).toEqual([
      'MUST requirements blocked by the target: TOK-ISSUED (blocked by: answered 201)',
    ]);
  });

  test('a not-configured reason must name the variable that configures it, which the reports read from there', () => {
    for (const [reason, named] of [
      ['WEBHOOK_PUBLIC_URL is not set (set it, or WEBHOOK_MODE=passive)', ['WEBHOOK_PUBLIC_URL', 'WEBHOOK_MODE']],
      ['IDENTITY_API_KEY and API_KEY, not MY_API_KEY_X', ['IDENTITY_API_KEY', 'API_KEY']],
      ['not configured: --inject-503 0', ['--inject-503']],
    ] as const)
      expect(settingsNamedIn(reason), reason).toEqual(named);
    const { verdict, annotations, skipped } = bareVerdict(['ORD-403']);
    const reason = 'no client without the entitlements is configured (ORDERS_NO_ENTITLEMENT_API_KEY)';
    expect(() => verdict.notConfigured(reason.split(' (')[0] as string)).toThrow(
      /names none of schemas\/config\.schema/,
    );
    expect(() => verdict.notConfigured(reason)).toThrow('skipped');
    expect(skipped).toEqual([`not configured: ${reason}`]);
    expect(verdictOf([record('skipped', annotations)], 'ORD-403')).toMatchObject({
      outcome: 'not-configured',
      configure: ['ORDERS_NO_ENTITLEMENT_API_KEY'],
    });
  });
});
