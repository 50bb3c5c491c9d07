import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const policy = { retries: 3, baseMs: 5, maxMs: 50, timeoutMs: 2000 };

test.describe('HTTP layer', () => {
  test('a 503 is retried with backoff until it succeeds, and every attempt is recorded', async () => {
    let calls = 0;
    const { url, server } = await serve((_req, res) => {
      calls += 1;
      res.writeHead(calls < 3 ? 503 : 200, { 'content-type': 'application/json' }).end('{}');
    });
    const waits: number[] = [];
    const { response, attempts } = await sendWithRetry(
      { method: 'GET', url, headers: [] },
      policy,
      async (ms) => void waits.push(ms),
    );
    server.close();
    expect(response.status).toBe(200);
    expect(attempts.map((a) => a.status)).toEqual([503, 503, 200]);
    expect(waits).toHaveLength(2);
    expect(waits[1]! >= 5).toBe(true);
  });

  test('Retry-After is honoured when it fits, and ends the retries when it is longer than the longest backoff', async () => {
    const { url, server } = await serve((req, res) => {
      res.writeHead(503, { 'retry-after': req.url === '/short' ? '0' : '3600' }).end();
    });
    const waits: number[] = [];
    const long = await sendWithRetry(
      { method: 'GET', url: `${url}/long`, headers: [] },
      policy,
      async (ms) => void waits.push(ms),
    );
    expect(long.attempts).toHaveLength(1);
    expect(long.attempts[0]?.note).toContain('exceeds the longest backoff');
    const short = await sendWithRetry(
      { method: 'GET', url: `${url}/short`, headers: [] },
      policy,
      async (ms) => void waits.push(ms),
    );
    server.close();
    expect(short.attempts).toHaveLength(4);
    expect(short.response.status, 'after the last retry the 503 is returned').toBe(503);
  });

  test('retrying can be turned off for checks that expect a 503', async () => {
    const { url, server } = await serve((_req, res) => res.writeHead(503).end());
    const client = new HttpClient(policy);
    const exchange = await client.send({ label: 't', method: 'GET', url, headers: [], retry: false });
    server.close();
    expect(exchange.attempts).toHaveLength(1);
    expect(client.stats).toEqual({
      requests: 1,
      retries: 0,
      tokenRequests: 0,
      roundsAtOnce: 0,
      roundsRateLimited: 0,
      roundsUnanswered: 0,
      rateLimitedAnswers: 0,
      retried503: 0,
      retriedDropped: 0,
      backoffMs: 0,
      operations: { t: { latencies: [expect.any(Number)], retries: 0 } },
    });
  });

  test("the client counts each operation's retries after a 503, the backoff before them, and one latency per call", async () => {
    let answered = 0;
    const { url, server } = await serve((_req, res) => {
      answered += 1;
      res.writeHead(answered <= 2 ? 503 : 200).end();
    });
    const client = new HttpClient({ ...policy, retries: 3, baseMs: 1, maxMs: 4 });
    await client.send({ label: 'createOrder', method: 'GET', url, headers: [] });
    await client.send({ label: 'createOrder', method: 'GET', url, headers: [] });
    server.close();
    expect(client.stats).toMatchObject({ requests: 4, retries: 2, retried503: 2, retriedDropped: 0 });
    expect(client.stats.backoffMs).toBeGreaterThan(0);
    expect(client.stats.operations['createOrder']).toEqual({
      latencies: [expect.any(Number), expect.any(Number)],
      retries: 2,
    });
  });

  test('a silent server is reported as no answer within the timeout', async () => {
    const { url, server } = await serve(() => undefined);
    const client = new HttpClient({ ...policy, timeoutMs: 150 });
    const error = await client.send({ label: 't', method: 'GET', url, headers: [] }).catch((e: unknown) => e);
    server.closeAllConnections();
    server.close();
    expect(error).toBeInstanceOf(NoAnswerError);
    expect(String(error)).toContain('no answer within 150 ms');
  });

  test('backoff grows exponentially within the cap, with jitter', () => {
    expect(backoffMs(0, { baseMs: 100, maxMs: 1000 }, () => 0)).toBe(50);
    expect(backoffMs(0, { baseMs: 100, maxMs: 1000 }, () => 1)).toBe(100);
    expect(backoffMs(3, { baseMs: 100, maxMs: 1000 }, () => 1)).toBe(800);
    expect(backoffMs(10, { baseMs: 100, maxMs: 1000 }, () => 1)).toBe(1000);
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString())! > 3000).toBe(true);
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

test.describe('redaction', () => {
  const redactor = new Redactor(['registered-api-key-123']);

  test('registered secrets, credentials after a scheme, Authorization headers and token fields are removed', () => {
    expect(redactor.text('key registered-api-key-123 here')).toBe('key [REDACTED] here');
    expect(redactor.text('Authorization: Bearer eyJhbGciOi.payload.sig')).toBe('Authorization: Bearer [REDACTED]');
    expect(redactor.text('basic dXNlcjpwYXNz')).toBe('basic [REDACTED]');
    expect(
      redactor.text('refuses a tampered bearer token or non-Basic credentials'),
      'prose after a scheme word is left alone',
    ).toBe('refuses a tampered bearer token or non-Basic credentials');
    expect(redactor.text('Bearer abc123'), 'a short credential with a digit is still removed').toBe(
      'Bearer [REDACTED]',
    );
    expect(redactor.header('Authorization', 'Token abc.def')).toBe('Token [REDACTED]');
    expect(redactor.header('authorization', 'rawvalue')).toBe('[REDACTED]');
    expect(redactor.header('authorization', ''), 'an empty header stays visibly empty').toBe('');
    expect(
      redactor.json({ access_token: 'abc', nested: [{ refresh_token: 'x' }], note: 'registered-api-key-123' }),
    ).toEqual({
      access_token: '[REDACTED]',
      nested: [{ refresh_token: '[REDACTED]' }],
      note: '[REDACTED]',
    });
  });
});

test.describe('verdict aggregation', () => {
  const cite = (...ids: string[]) => ids.map(citeAnnotation);
  const mark = (kind: MarkKind, id: string, detail = '') => markAnnotation({ kind, id, detail });
  const record = (
    status: TestRecord['status'],
    annotations: TestRecord['annotations'],
    extra: Partial<TestRecord> = {},
  ): TestRecord => ({
    title: 't',
    project: 'p',
    location: 'x.spec.ts:1',
    status,
    annotations,
    ...extra,
  });
  const outcome = (tests: TestRecord[], id: string) =>
    verdictsFor(requirements, tests).find((v) => v.id === id)?.outcome;

  test('the worst outcome of the tests behind a requirement wins', () => {
    const pass = record('passed', [...cite('ORD-409'), mark('pass', 'ORD-409')]);
    const fail = record('failed', [...cite('ORD-409'), mark('fail', 'ORD-409')]);
    expect(outcome([pass], 'ORD-409')).toBe('passed');
    expect(outcome([pass, fail], 'ORD-409')).toBe('failed');
    expect(outcome([], 'ORD-409')).toBe('uncovered');
  });

  test('an unexpected error fails the MUST requirements the test had not yet passed', () => {
    const crashed = record('failed', [...cite('ORD-409', 'ORD-ERR-PAIR'), mark('pass', 'ORD-ERR-PAIR')], {
      error: 'TypeError: x',
      errorName: 'TypeError',
    });
    expect(outcome([crashed], 'ORD-409')).toBe('failed');
    expect(outcome([crashed], 'ORD-ERR-PAIR')).toBe('passed');
  });

  test('a failed precondition is blocked, a configured-out check is not configured; neither is ever passed', () => {
    const blocked = record('failed', [...cite('CU-TAGS-APPEND'), mark('blocked', 'CU-TAGS-APPEND', 'no case')], {
      errorName: 'PreconditionFailure',
    });
    const skipped = record('skipped', [...cite('ORD-403'), mark('not-configured', 'ORD-403', 'no key configured')]);
    const bare = record('skipped', cite('ORD-403'));
    expect(outcome([blocked], 'CU-TAGS-APPEND')).toBe('blocked');
    expect(outcome([skipped], 'ORD-403')).toBe('not-configured');
    expect(outcome([bare], 'ORD-403')).toBe('not-configured');
  });

  test('blocked ranks above passed, and a requirement exercised by only some of its tests says so', () => {
    const pass = (title: string) => ({
      ...record('passed', [...cite('CU-TAGS-APPEND'), mark('pass', 'CU-TAGS-APPEND')]),
      title,
    });
    const blocked = record(
      'failed',
      [
        ...cite('CU-TAGS-APPEND'),
        mark('pass', 'CU-TAGS-APPEND'),
        mark('blocked', 'CU-TAGS-APPEND', 'a valid update was refused'),
      ],
      { errorName: 'PreconditionFailure' },
    );
    const notConfigured = record('skipped', [
      ...cite('CU-TAGS-APPEND'),
      mark('not-configured', 'CU-TAGS-APPEND', 'no reseller'),
    ]);
    const [mixed] = verdictsFor(requirements, [pass('a'), pass('b'), pass('c'), notConfigured, notConfigured]).filter(
      (v) => v.id === 'CU-TAGS-APPEND',
    );
    expect(mixed).toMatchObject({ outcome: 'passed', breakdown: '3 checks held; 2 tests not configured' });
    expect(outcome([pass('a'), blocked], 'CU-TAGS-APPEND')).toBe('blocked');
  });

  test('profiles: gate fails on a MUST failed or blocked, never on not configured; certify also on MUST not configured, SHOULD warnings listed; certify-strict on them too', () => {
    const warn = record('passed', [...cite('TOK-NO-STORE'), mark('warn', 'TOK-NO-STORE', 'absent')]);
    const skipped = record('skipped', cite('ORD-403'));
    const verdicts = verdictsFor(requirements, [warn, skipped]);
    expect(runVerdict(verdicts, 'gate').reasons).toEqual([]);
    expect(runVerdict(verdicts, 'nightly').reasons).toEqual([]);
    const certify = runVerdict(verdicts, 'certify').reasons.join('\n');
    expect(certify).not.toContain('TOK-NO-STORE');
    expect(certify).toContain('ORD-403');
    expect(runVerdict(verdicts, 'certify').warnings).toEqual(['TOK-NO-STORE']);
    expect(runVerdict(verdicts, 'certify-strict').reasons.join('\n')).toContain(
      'SHOULD requirements warned (certify-strict profile): TOK-NO-STORE',
    );
    const blocked = record(
      'failed',
      [...cite('TOK-ISSUED'), mark('blocked', 'TOK-ISSUED', 'the token endpoint answered 201')],
      { errorName: 'PreconditionFailure' },
    );
    expect(runVerdict(verdictsFor(requirements, [blocked]), 'gate').reasons).toEqual([
      'MUST requirements blocked by the target: TOK-ISSUED (blocked by: the token endpoint answered 201)',
    ]);
  });

  test('the words say conformant only when every MUST was exercised and held, and never "not conformant" with exit 0', () => {
    const passAll = requirements
      .filter((r) => r.level === 'MUST')
      .map((r) => record('passed', [...cite(r.id), mark('pass', r.id)]));
    expect(runVerdict(verdictsFor(requirements, passAll), 'gate')).toMatchObject({
      words: 'conformant',
      exitCode: 0,
      conformant: true,
    });
    expect(runVerdict(verdictsFor(requirements, passAll.slice(1)), 'gate').words).toMatch(
      /^partial run: \d+ of \d+ MUST exercised, no failures$/,
    );
    const notConfigured = record('skipped', [
      ...cite('ORD-403'),
      mark(
        'not-configured',
        'ORD-403',
        'no client without the entitlements is configured (ORDERS_NO_ENTITLEMENT_API_KEY)',
      ),
    ]);
    const withGap = [...passAll.filter((t) => !t.annotations.some((a) => a.description === 'ORD-403')), notConfigured];
    expect(runVerdict(verdictsFor(requirements, withGap), 'gate')).toMatchObject({
      words: 'passed; incomplete: 1 MUST not configured (set ORDERS_NO_ENTITLEMENT_API_KEY)',
      exitCode: 0,
      conformant: false,
    });
    expect(runVerdict(verdictsFor(requirements, withGap), 'certify')).toMatchObject({
      words: 'not conformant: 1 MUST not configured (set ORDERS_NO_ENTITLEMENT_API_KEY)',
      exitCode: 1,
    });
    const notProduced = record('passed', [...cite('ORD-403'), mark('not-produced', 'ORD-403', 'never sent')]);
    const withNothing = [
      ...passAll.filter((t) => !t.annotations.some((a) => a.description === 'ORD-403')),
      notProduced,
    ];
    expect(runVerdict(verdictsFor(requirements, withNothing), 'certify')).toMatchObject({
      words: 'conformant; 1 MUST not exercised: the target never produced it (ORD-403)',
      exitCode: 0,
      conformant: true,
    });
    expect(runVerdict(verdictsFor(requirements, passAll), 'gate', { problems: ['No test ran'] })).toMatchObject({
      words: 'failed: No test ran',
      exitCode: 1,
    });
  });

  test('a not-configured reason must name the variable that would configure it; the reports read it from there', () => {
    expect(settingsNamedIn('no trigger is configured for the 404 row (ORDER_TRIGGER_404)')).toEqual([
      'ORDER_TRIGGER_404',
    ]);
    expect(settingsNamedIn('WEBHOOK_PUBLIC_URL is not set (set it, or WEBHOOK_MODE=passive)')).toEqual([
      'WEBHOOK_PUBLIC_URL',
      'WEBHOOK_MODE',
    ]);
    expect(settingsNamedIn('IDENTITY_API_KEY and API_KEY, not MY_API_KEY_X')).toEqual(['IDENTITY_API_KEY', 'API_KEY']);
    expect(settingsNamedIn('not configured: --inject-503 0')).toEqual(['--inject-503']);
    const { verdict, annotations, skipped } = bareVerdict(['ORD-403']);
    expect(() => verdict.notConfigured('no client without the entitlements is configured')).toThrow(
      /names none of schemas\/config\.schema\.json/,
    );
    expect(() =>
      verdict.notConfigured('no client without the entitlements is configured (ORDERS_NO_ENTITLEMENT_API_KEY)'),
    ).toThrow('skipped');
    expect(skipped).toEqual([
      'not configured: no client without the entitlements is configured (ORDERS_NO_ENTITLEMENT_API_KEY)',
    ]);
    expect(
      verdictsFor(requirements, [record('skipped', annotations)]).find((v) => v.id === 'ORD-403')?.configure,
    ).toEqual(['ORDERS_NO_ENTITLEMENT_API_KEY']);
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

test('a free port is handed out once: asked again from the same place before anything listens on it, the next one comes', async () => {
  const from = 20_000 + Math.floor(Math.random() * 7_000);
  const [first] = await freePorts(1, from);
  const [second] = await freePorts(1, from);
  expect(first).toBeDefined();
  expect(second, 'the port reserved by the first call').not.toBe(first);
});
