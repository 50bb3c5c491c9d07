import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { clientRequirements } from '../catalog/client-catalog.ts';
import { verdictsFor } from '../reporters/verdicts.ts';
import type { DeliveryAnswer, RecordedExchange } from '../sandbox/server.ts';
import { judgeClient, type ClientTarget } from '../scripts/client/judge.ts';

// The client judge on recorded traffic written by hand: each rule with an input it must pass and one it must fail,
// without a sandbox or a client (selftest/client-certification.spec.ts runs the real ones).
const origin = 'http://127.0.0.1:1';
const identity = `${origin}/business/identity-proofing/v1`;
const children = ['child-x-a', 'child-x-b'];
const contextOf = (child: string) => ({ resellerId: 'sandbox-reseller', childOrganizationId: child });
const cases: Record<string, string> = { 'case-main': 'inq-main', 'case-a': 'inq-a', 'case-b': 'inq-b' };
const target: ClientTarget = {
  identityBaseUrl: identity,
  stepupBaseUrl: `${origin}/business/step-up/v1`,
  ordersBaseUrl: `${origin}/commerce`,
  identityTokenUrl: `${origin}/identity-auth/v1/token`,
  stepupTokenUrl: `${origin}/stepup-auth/v1/token`,
  routes: {
    assessment: 'POST /assessment',
    documentVerification: 'POST /document-verification',
    documentRecords: 'GET /document-verification/{authenticationId}',
    fetchAssessment: 'GET /assessment/{caseId}',
    caseUpdate: 'POST /case-update',
    stepUp: 'POST /step-up',
  },
  apiKeys: ['main-key', 'reseller-key'],
  childClientIds: children,
  tokenLifetimeSeconds: 1200,
  caseOf: (id) => (cases[id] ? { inquiryId: cases[id] } : undefined),
  checkToken: (token, service) =>
    token === `${service}-token` ? { ok: true } : { ok: false, reason: 'not issued for this service' },
};

let clock = 1_000_000;
let ids = 0;
interface Sent {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  status?: number;
  /** Milliseconds after the previous request. */
  after?: number;
}
function exchange(sent: Sent): RecordedExchange {
  clock += sent.after ?? 5;
  const body =
    sent.body === undefined
      ? Buffer.alloc(0)
      : Buffer.from(typeof sent.body === 'string' ? sent.body : JSON.stringify(sent.body));
  const headers = {
    authorization: 'Bearer identity-token',
    'x-client-id': 'sandbox-reseller',
    'x-correlation-id': `corr-${(ids += 1)}`,
    ...(sent.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...sent.headers,
  };
  const path = sent.url.replace(origin, '');
  return {
    at: clock,
    method: sent.method ?? (sent.body === undefined ? 'GET' : 'POST'),
    url: path,
    rawHeaders: Object.entries(headers).flat(),
    body,
    status: sent.status ?? 200,
  };
}
const token = (headers: Record<string, string> = {}): Sent => ({
  url: target.identityTokenUrl,
  body: 'grant_type=client_credentials&scope=k1_integration_api',
  headers: { authorization: 'Basic main-key', 'content-type': 'application/x-www-form-urlencoded', ...headers },
});
const order = (after: number, status = 503): Sent => ({
  url: `${target.ordersBaseUrl}/v2/orders`,
  body: { merchantOrderId: 'order-1' },
  status,
  after,
});

function judge(sent: Sent[], deliveries: DeliveryAnswer[] = []) {
  const records = judgeClient({ exchanges: sent.map(exchange), deliveries, target, notConfigured: new Map() });
  const verdicts = verdictsFor(clientRequirements, records);
  return {
    outcome: (id: string) => verdicts.find((v) => v.id === id)?.outcome,
    detail: (id: string) => (verdicts.find((v) => v.id === id)?.tests ?? []).map((t) => t.detail ?? '').join('\n'),
    observed: (id: string) => verdicts.find((v) => v.id === id)?.observations.join('\n') ?? '',
  };
}

test.describe('CLI-CORRELATION-UNIQUE: a retry is the same method, URL and body', () => {
  test('two different GETs sharing one x-correlation-id fail, though neither has a body', () => {
    const judged = judge([
      {
        url: `${identity}/document-verification/case-a`,
        headers: { 'x-correlation-id': 'shared', 'x-source-client-id': 'child-x-a' },
      },
      {
        url: `${identity}/document-verification/case-b`,
        headers: { 'x-correlation-id': 'shared', 'x-source-client-id': 'child-x-b' },
      },
    ]);
    expect(judged.outcome('CLI-CORRELATION-UNIQUE')).toBe('failed');
    expect(judged.detail('CLI-CORRELATION-UNIQUE')).toContain(
      'x-correlation-id shared also on #1 GET /business/identity-proofing/v1/document-verification/case-a',
    );
  });
  test('the same GET sent again, and the same JSON body with its members in another order, may keep their id', () => {
    const judged = judge([
      { url: `${identity}/assessment/case-main`, headers: { 'x-correlation-id': 'again' } },
      { url: `${identity}/assessment/case-main`, headers: { 'x-correlation-id': 'again' } },
      {
        url: `${identity}/assessment`,
        body: '{"strategy":"default","inquiryId":"inq-1"}',
        headers: { 'x-correlation-id': 'post' },
      },
      {
        url: `${identity}/assessment`,
        body: '{ "inquiryId": "inq-1", "strategy": "default" }',
        headers: { 'x-correlation-id': 'post' },
      },
    ]);
    expect(judged.outcome('CLI-CORRELATION-UNIQUE')).toBe('passed');
  });
  test('two POSTs of different bodies sharing an id fail', () => {
    const judged = judge([
      {
        url: `${identity}/assessment`,
        body: { strategy: 'default', inquiryId: 'inq-1' },
        headers: { 'x-correlation-id': 'same' },
      },
      {
        url: `${identity}/assessment`,
        body: { strategy: 'default', inquiryId: 'inq-2' },
        headers: { 'x-correlation-id': 'same' },
      },
    ]);
    expect(judged.outcome('CLI-CORRELATION-UNIQUE')).toBe('failed');
  });
});

test.describe('CLI-TOKEN-REQUEST', () => {
  test('the form media type is compared without regard to case, parameters allowed (RFC 9110 §8.3.1)', () => {
    expect(
      judge([token({ 'content-type': 'Application/X-WWW-Form-URLEncoded; charset=UTF-8' })]).outcome(
        'CLI-TOKEN-REQUEST',
      ),
    ).toBe('passed');
  });
  test('a token request labelled as another media type, or with another scope, fails', () => {
    expect(judge([token({ 'content-type': 'application/json' })]).outcome('CLI-TOKEN-REQUEST')).toBe('failed');
    expect(
      judge([{ ...token(), body: 'grant_type=client_credentials&scope=openid' }]).outcome('CLI-TOKEN-REQUEST'),
    ).toBe('failed');
  });
  test('a token per call is recorded (CLI-TOKEN-REUSE, INFO), not warned', () => {
    const judged = judge([token(), token(), token()]);
    expect(judged.outcome('CLI-TOKEN-REUSE')).toBe('observed');
    expect(judged.observed('CLI-TOKEN-REUSE')).toContain('3 token requests');
  });
});

test.describe('CLI-BEARER and CLI-TOKEN-PER-SERVICE', () => {
  test("the step-up service's token on an identity call is recorded (INFO), the call's Bearer token holds", () => {
    const judged = judge([
      {
        url: `${identity}/assessment`,
        body: { strategy: 'default', inquiryId: 'inq-1' },
        headers: { authorization: 'Bearer stepup-token' },
      },
    ]);
    expect(judged.outcome('CLI-BEARER')).toBe('passed');
    expect(judged.outcome('CLI-TOKEN-PER-SERVICE')).toBe('observed');
    expect(judged.observed('CLI-TOKEN-PER-SERVICE')).toContain(
      'identity calls with a token of the step-up token endpoint',
    );
  });
  test('a token no token endpoint issued, or no Bearer scheme, fails', () => {
    expect(
      judge([{ url: `${identity}/assessment/case-main`, headers: { authorization: 'Bearer made-up' } }]).outcome(
        'CLI-BEARER',
      ),
    ).toBe('failed');
    expect(
      judge([{ url: `${identity}/assessment/case-main`, headers: { authorization: 'identity-token' } }]).outcome(
        'CLI-BEARER',
      ),
    ).toBe('failed');
  });
});

test.describe('CLI-RESELLER-CONTEXT and CLI-CHILD-ISOLATION: calls made for a child', () => {
  const childAssessment = (child: string, inquiryId: string): Sent => ({
    url: `${identity}/assessment`,
    body: { strategy: 'default', inquiryId, sharedContext: contextOf(child) },
  });
  test("the reseller's own call without sharedContext is not a call for a child and is not judged", () => {
    const judged = judge([{ url: `${identity}/assessment`, body: { strategy: 'default', inquiryId: 'inq-own' } }]);
    expect(judged.outcome('CLI-RESELLER-CONTEXT')).toBe('not-exercised');
  });
  test("a call continuing a child's case without sharedContext, and a fetch of its records without x-source-client-id, fail", () => {
    const judged = judge([
      childAssessment('child-x-a', 'inq-a'),
      { url: `${identity}/document-verification`, body: { strategy: 'docv-default', inquiryId: 'inq-a' } },
      { url: `${identity}/document-verification/case-a` },
    ]);
    expect(judged.outcome('CLI-RESELLER-CONTEXT')).toBe('failed');
    expect(judged.detail('CLI-RESELLER-CONTEXT')).toContain(
      'a call for child child-x-a (continuing its case) without sharedContext',
    );
    expect(judged.detail('CLI-RESELLER-CONTEXT')).toContain('x-source-client-id "(none)"');
  });
  test('sharedContext and x-source-client-id naming different children fail; naming the same child holds', () => {
    const mixed = judge([{ ...childAssessment('child-x-b', 'inq-b'), headers: { 'x-source-client-id': 'child-x-a' } }]);
    expect(mixed.outcome('CLI-CHILD-ISOLATION')).toBe('failed');
    const same = judge([
      { ...childAssessment('child-x-a', 'inq-a'), headers: { 'x-source-client-id': 'child-x-a' } },
      { url: `${identity}/document-verification/case-a`, headers: { 'x-source-client-id': 'child-x-a' } },
    ]);
    expect([same.outcome('CLI-CHILD-ISOLATION'), same.outcome('CLI-RESELLER-CONTEXT')]).toEqual(['passed', 'passed']);
  });
  test("another child's identifier elsewhere in a call is recorded (CLI-SIBLING-ID, INFO), not failed", () => {
    const judged = judge([
      {
        url: `${identity}/assessment`,
        body: {
          strategy: 'default',
          inquiryId: 'inq-a',
          sharedContext: contextOf('child-x-a'),
          customFields: { referredBy: 'child-x-b' },
        },
      },
    ]);
    expect(judged.outcome('CLI-CHILD-ISOLATION')).toBe('passed');
    expect(judged.observed('CLI-SIBLING-ID')).toContain("a call for one child carrying another child's identifier");
  });
});

test.describe("CLI-ORDER-RETRY: the whole sequence of a request's retries", () => {
  test('a 503 never sent again fails', () => {
    expect(judge([order(0)]).detail('CLI-ORDER-RETRY')).toContain('answered 503 and never sent again');
  });
  test('jittered delays that shrink, and a single quick retry, hold; the shortest delay is recorded (CLI-RETRY-DELAYS, INFO)', () => {
    const jittered = judge([order(0), order(300), order(40), order(700), order(900, 200)]);
    expect(jittered.outcome('CLI-ORDER-RETRY')).toBe('passed');
    expect(jittered.observed('CLI-RETRY-DELAYS')).toContain(
      '4 retries after 300 ms, 40 ms, 700 ms, 900 ms; shortest 40 ms (under 100 ms); delays grew overall, not each time',
    );
    expect(judge([order(0), order(3, 200)]).outcome('CLI-ORDER-RETRY')).toBe('passed');
  });
  test('eight retries with no delay fail as a storm; a changed body is another request, not a retry', () => {
    const storm = judge([order(0), ...Array.from({ length: 8 }, () => order(2))]);
    expect(storm.outcome('CLI-ORDER-RETRY')).toBe('failed');
    expect(storm.detail('CLI-ORDER-RETRY')).toContain('8 retries within 16 ms altogether');
    const changed = judge([order(0), { ...order(400), body: { merchantOrderId: 'order-2' } }]);
    expect(changed.detail('CLI-ORDER-RETRY')).toContain('never sent again');
  });
});

test.describe('CLI-WEBHOOK-ANSWER: a JSON body, whatever its label, status or time', () => {
  const answer = (over: Partial<DeliveryAnswer>): DeliveryAnswer => ({
    kind: 'document-results',
    sentAt: 0,
    ms: 3,
    status: 200,
    contentType: 'application/json',
    body: '{}',
    ...over,
  });
  test('{} labelled text/html (Express res.send), answered 202 after 12 s, holds; the label and time are recorded', () => {
    const judged = judge(
      [],
      [answer({ contentType: 'text/html; charset=utf-8' }), answer({ status: 202, ms: 12_000 })],
    );
    expect(judged.outcome('CLI-WEBHOOK-ANSWER')).toBe('passed');
    expect(judged.observed('CLI-WEBHOOK-STATUS')).toContain('200 labelled text/html in <1 s');
    expect(judged.observed('CLI-WEBHOOK-STATUS')).toContain('202 labelled application/json in 12 s');
  });
  test('a body that is not JSON, and no answer, fail', () => {
    expect(judge([], [answer({ contentType: 'application/json', body: 'ok' })]).outcome('CLI-WEBHOOK-ANSWER')).toBe(
      'failed',
    );
    const none: DeliveryAnswer = {
      kind: 'verification-session',
      sentAt: 0,
      ms: 30_000,
      body: '',
      error: 'no answer within 30000 ms',
    };
    expect(judge([], [none]).outcome('CLI-WEBHOOK-ANSWER')).toBe('failed');
  });
});

test("docs/client-levels.md gives each row it decides the catalog's level", () => {
  const doc = readFileSync(new URL('../docs/client-levels.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| (CLI-[A-Z-]+) \|(.*)\|$/gm)].map((m) => ({
    id: m[1] as string,
    level: (m[2] ?? '').split('|')[2]?.trim(),
  }));
  expect(rows.length).toBeGreaterThan(0);
  expect(rows.filter((r) => clientRequirements.find((c) => c.id === r.id)?.level !== r.level)).toEqual([]);
});
