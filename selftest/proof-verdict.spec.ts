import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { expect, test } from '@playwright/test';
import { requirements, type OperationId } from '../catalog/catalog.ts';
import { OperationRequests, type RequestOptions } from '../kit/operation-requests.ts';
import { Redactor } from '../kit/redact.ts';
import { TokenProvider } from '../kit/tokens.ts';
import { citeAnnotation, markAnnotation, type MarkKind } from '../kit/verdict-marks.ts';
import type { WindowArrival, WindowEnd } from '../reporters/run-facts.ts';
import type { TestRecord } from '../reporters/verdicts.ts';
import { loadConfig } from '../runner/config/load-config.ts';
import { HttpClient } from '../runner/http/client.ts';
import { TokenCache } from '../runner/tokens.ts';
import { WebhookReceiver } from '../runner/webhooks/receiver.ts';
import { testKeyIn, userAgent } from '../runner/http/user-agent.ts';
import { faults } from '../sandbox/faults.ts';
import { startSandbox } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { productRoot } from '../scripts/product.ts';
import { heldAnswers } from './proof/analyse.ts';
import { faultRunOf, webhookBeside } from './proof/plan.ts';
import { profileVerdict } from './proof/profile-verdict.ts';

// How the proof reads a run under gate and certify (selftest/proof/profile-verdict.ts), which waits it names as held
// (selftest/proof/analyse.ts), on inputs made by hand: the proof meets them on correct targets only, where they find
// nothing wrong. And how it keeps a webhook fault's catch its own beside a round.

const record = (status: TestRecord['status'], id: string, kind: MarkKind, detail = ''): TestRecord => ({
  title: `t ${id}`,
  project: 'p',
  location: 'x.spec.ts:1',
  status,
  annotations: [citeAnnotation(id), markAnnotation({ kind, id, detail })],
});

test('every MUST exercised and held: conformant under gate and certify; a MUST failed: not conformant, the row named', () => {
  const [first = '', ...rest] = requirements.filter((r) => r.level === 'MUST').map((r) => r.id);
  const held = [first, ...rest].map((id) => record('passed', id, 'pass'));
  const failed = [...held.slice(1), record('failed', first, 'fail', 'answered 200')];
  for (const profile of ['gate', 'certify'] as const) {
    const conformant = { outcome: 'conformant', reasons: [], mustFailed: [], mustNotConfigured: [] };
    expect(profileVerdict(held, profile)).toMatchObject(conformant);
    expect(profileVerdict(failed, profile)).toMatchObject({ outcome: 'not-conformant', mustFailed: [first] });
  }
});

test("a wait that ended on its window while an event that could have answered it was held is the proof's to name; one whose events were not its own is not", () => {
  const arrival: WindowArrival = {
    seq: 7,
    afterMs: 12,
    kind: 'session',
    sessionId: 's-doc',
    docVerification: true,
    firstOfSession: true,
    why: 'given to no flow',
  };
  const flow = 'step-up by phone number with images';
  const end = { kind: 'step-up', flow, images: true, startedAt: 0, endedAt: 60_000, windowMs: 60_000 } as const;
  const held = (ended: Partial<WindowEnd>, arrived: Partial<WindowArrival> = {}) =>
    heldAnswers({
      mode: 'active',
      windowMs: 60_000,
      awaited: 0,
      latestDelayMs: 0,
      longestLagMs: 0,
      deliveries: 1,
      windowEnds: [
        { ...end, what: 'no event was given to it within 60 s', ...ended, arrived: [{ ...arrival, ...arrived }] },
      ],
    });
  // The attribution before issue 40: a document session's event given to no step-up, one with images expiring.
  expect(held({})).toEqual([`${flow}: no event was given to it within 60 s; #7 was held (given to no flow)`]);
  expect(held({ images: false }), 'a step-up without images').toEqual([]);
  for (const other of [{ givenTo: 'step-up by email' }, { firstOfSession: false }, { documentSession: true }])
    expect(held({}, other), JSON.stringify(other)).toEqual([]);
  expect(held({}, { kind: 'results' }), 'a results event for a step-up').toEqual([]);
  const results = { kind: 'results', awaits: 'inq-1' } as const;
  expect(held(results, { kind: 'results' }), 'a results event of another inquiry').toEqual([]);
  expect(held(results, { kind: 'results', inquiryId: 'inq-1' }), 'the awaited inquiry').toHaveLength(1);
});

test("a webhook fault beside a round: its tests' requests reach a core of their own, the only one that posts to the receiver; the round's tests keep their faults, their cases and their events to themselves", async () => {
  const receiver = new WebhookReceiver({ host: '127.0.0.1', port: 0 });
  await receiver.start();
  const [own, round] = ['0a0a0a0a0a0a', '0b0b0b0b0b0b'];
  const keyOf = (headers: IncomingHttpHeaders) => testKeyIn(headers['user-agent']) ?? '';
  const fault = faults.find((f) => f.id === 'webhook-channel-outside-enum') ?? assert.fail('no such fault');
  const tokenSecret = 'selftest-token-secret';
  const sandbox = await startSandbox({
    tokenSecret,
    webhookDelayMs: 0,
    faultsOf: (headers) => (keyOf(headers) === round ? ['step-up-ids-swapped'] : []),
    beside: webhookBeside({ ...faultRunOf(fault), tests: [own] }, keyOf, `${receiver.url}/webhooks`),
  });
  try {
    // Sent by the suite's own HTTP client, each request naming its test in its User-Agent.
    const http = new HttpClient({ retries: 0, baseMs: 5, maxMs: 50, timeoutMs: 10_000 });
    const env = sandboxTargetEnv({ url: sandbox.url, flavor: 'reference', tokenSecret });
    const tokens = new TokenProvider(new TokenCache(http, new Redactor()), new Redactor());
    const config = loadConfig(env, { repoRoot: productRoot, embedded: false });
    const requests = new OperationRequests(config, tokens, (what) => assert.fail(what));
    const send = async (id: OperationId, key: string, options: RequestOptions) => {
      const sent = await requests.prepared(id, { ...options, set: { 'user-agent': userAgent(key) } });
      const { status, json } = await http.send(sent);
      return { status, body: (json ?? {}) as Record<string, unknown> };
    };
    const stepUpOf = async (key: string) => {
      const inquiryId = `inq-${key}`;
      const created = await send('assessment', key, { body: { strategy: 'default', inquiryId } });
      const authenticationId = String(created.body['authenticationId']);
      const body = { inquiryId, authenticationId, phoneNumber: '+15555550100' };
      return { inquiryId, authenticationId, stepUp: await send('stepUp', key, { body }) };
    };
    const ofRound = await stepUpOf(round);
    expect(ofRound.stepUp.body['inquiryId'], "the round's test has its fault").toBe(ofRound.authenticationId);
    const ofOwn = await stepUpOf(own);
    expect(ofOwn.stepUp.body['inquiryId'], "the webhook fault's test has no other fault").toBe(ofOwn.inquiryId);
    const event = await receiver.waitFor(() => true, { since: 0, timeoutMs: 10_000 });
    const channelType = (event?.json as Record<string, unknown>)['channelType'];
    expect(channelType, "the webhook fault's event carries it").toBe('PHONE');
    const ofRoundCase = await send('fetchAssessment', round, { pathParams: { caseId: ofRound.authenticationId } });
    expect(ofRoundCase.status, 'the round has cases of its own').toBe(200);
    const elsewhere = await send('fetchAssessment', own, { pathParams: { caseId: ofRound.authenticationId } });
    expect(elsewhere.status, "the round's case is not the fault's core's").toBe(404);
    await sandbox.webhooksIdle();
    expect(receiver.deliveries(), "the round's step-up posted nothing").toHaveLength(1);
  } finally {
    await sandbox.close();
    await receiver.close();
  }
});
