import { expect, test } from '@playwright/test';
import { requirements } from '../catalog/catalog.ts';
import { citeAnnotation, markAnnotation, type MarkKind } from '../kit/verdict-marks.ts';
import type { TestRecord } from '../reporters/verdicts.ts';
import { profileVerdict } from './proof/profile-verdict.ts';
import { heldAnswers } from './proof/analyse.ts';
import type { IncomingHttpHeaders } from 'node:http';
import { testKeyIn, userAgent } from '../runner/http/user-agent.ts';
import { faults } from '../sandbox/faults.ts';
import { startSandbox } from '../sandbox/server.ts';
import { faultRunOf, webhookBeside } from './proof/plan.ts';
import { WebhookReceiver } from '../runner/webhooks/receiver.ts';
import { SandboxClient, secret } from './sandbox/client.ts';

// How the proof reads a correct target's one run under gate and certify (selftest/proof/profile-verdict.ts), on
// results made by hand, and how it keeps a webhook fault's catch its own beside a round: the proof's expectations rest
// on them, and the proof itself takes minutes.

const mark = (kind: MarkKind, id: string, detail = '') => markAnnotation({ kind, id, detail });
const record = (status: TestRecord['status'], id: string, kind: MarkKind, detail = ''): TestRecord => ({
  title: `t ${id}`,
  project: 'p',
  location: 'x.spec.ts:1',
  status,
  annotations: [citeAnnotation(id), mark(kind, id, detail)],
});
const must = requirements.filter((r) => r.level === 'MUST');
const passAll = must.map((r) => record('passed', r.id, 'pass'));

test('every MUST exercised and held: conformant under gate and certify', () => {
  for (const profile of ['gate', 'certify'] as const)
    expect(profileVerdict(passAll, profile)).toMatchObject({
      outcome: 'conformant',
      reasons: [],
      mustFailed: [],
      mustNotConfigured: [],
    });
});

test('a MUST failed: not conformant under gate and certify, the row named', () => {
  const [first] = must;
  const results = [...passAll.slice(1), record('failed', first?.id ?? '', 'fail', 'answered 200')];
  for (const profile of ['gate', 'certify'] as const)
    expect(profileVerdict(results, profile)).toMatchObject({ outcome: 'not-conformant', mustFailed: [first?.id] });
});

test('event rows not configured: passed but incomplete under gate, not conformant under certify, each row with the variable to set', () => {
  const events = must.filter((r) => r.area === 'webhooks').map((r) => r.id);
  expect(events.length).toBeGreaterThan(0);
  const why = 'no receiver the target reaches: set WEBHOOK_PUBLIC_URL';
  const results = [
    ...passAll.filter((t) => !events.some((id) => t.title === `t ${id}`)),
    ...events.map((id) => record('skipped', id, 'not-configured', why)),
  ];
  const gate = profileVerdict(results, 'gate');
  const certify = profileVerdict(results, 'certify');
  expect(gate.outcome, gate.result).toBe('passed-incomplete');
  expect(certify.outcome, certify.result).toBe('not-conformant');
  for (const verdict of [gate, certify])
    expect(verdict.mustNotConfigured).toEqual(events.map((id) => ({ id, detail: why })));
});

test("a wait that ended on its window while an event that could have answered it was held is the proof's to name; one whose events were not its own is not", () => {
  const arrival = {
    seq: 7,
    afterMs: 12,
    kind: 'session',
    sessionId: 's-doc',
    docVerification: true,
    firstOfSession: true,
    why: 'given to no flow',
  };
  const end = {
    kind: 'step-up' as const,
    flow: 'step-up by phone number with images',
    images: true,
    startedAt: 0,
    endedAt: 60_000,
    windowMs: 60_000,
    what: 'no event was given to it within 60 s',
    arrived: [arrival],
  };
  const waits = {
    mode: 'active' as const,
    windowMs: 60_000,
    awaited: 0,
    latestDelayMs: 0,
    longestLagMs: 0,
    deliveries: 1,
  };
  // The attribution before issue 40: a document session's event given to no step-up, one with images expiring.
  expect(heldAnswers({ ...waits, windowEnds: [end] })).toEqual([
    'step-up by phone number with images: no event was given to it within 60 s; #7 was held (given to no flow)',
  ]);
  expect(heldAnswers({ ...waits, windowEnds: [{ ...end, images: false }] }), 'a step-up without images').toEqual([]);
  for (const other of [
    { givenTo: 'step-up by email' },
    { firstOfSession: false },
    { documentSession: true },
    { kind: 'results' },
  ])
    expect(heldAnswers({ ...waits, windowEnds: [{ ...end, arrived: [{ ...arrival, ...other }] }] })).toEqual([]);
  const resultsEnd = { ...end, kind: 'results' as const, awaits: 'inq-1', arrived: [{ ...arrival, kind: 'results' }] };
  expect(heldAnswers({ ...waits, windowEnds: [resultsEnd] }), 'a results event of another inquiry').toEqual([]);
  const ours = { ...resultsEnd, arrived: [{ ...arrival, kind: 'results', inquiryId: 'inq-1' }] };
  expect(heldAnswers({ ...waits, windowEnds: [ours] })).toHaveLength(1);
});

test("a webhook fault beside a round: its tests' requests reach a core of their own, the only one that posts to the receiver; the round's tests keep their faults, their cases and their events to themselves", async () => {
  const receiver = new WebhookReceiver({ host: '127.0.0.1', port: 0 });
  await receiver.start();
  const [own, round] = ['0a0a0a0a0a0a', '0b0b0b0b0b0b'];
  const keyOf = (headers: IncomingHttpHeaders) => testKeyIn(headers['user-agent']) ?? '';
  const fault = faults.find((f) => f.id === 'webhook-channel-outside-enum');
  if (!fault) throw new Error('no fault webhook-channel-outside-enum');
  const sandbox = await startSandbox({
    tokenSecret: secret,
    webhookDelayMs: 0,
    faultsOf: (headers) => (keyOf(headers) === round ? ['step-up-ids-swapped'] : []),
    beside: webhookBeside({ ...faultRunOf(fault), tests: [own] }, keyOf, `${receiver.url}/webhooks`),
  });
  try {
    const api = new SandboxClient(sandbox);
    const as = (key: string) => ({ headers: { 'user-agent': userAgent(key) } });
    const stepUpOf = async (key: string) => {
      const inquiryId = `inq-${key}`;
      const created = await api.op('assessment', { ...as(key), body: { strategy: 'default', inquiryId } });
      const authenticationId = String(created.body['authenticationId']);
      const stepUp = await api.op('stepUp', {
        ...as(key),
        body: { inquiryId, authenticationId, phoneNumber: '+15555550100' },
      });
      return { inquiryId, authenticationId, stepUp };
    };
    const ofRound = await stepUpOf(round);
    expect(ofRound.stepUp.body['inquiryId'], "the round's test has its fault").toBe(ofRound.authenticationId);
    const ofOwn = await stepUpOf(own);
    expect(ofOwn.stepUp.body['inquiryId'], "the webhook fault's test has no other fault").toBe(ofOwn.inquiryId);
    const event = await receiver.waitFor(() => true, { since: 0, timeoutMs: 10_000 });
    expect((event?.json as Record<string, unknown>)['channelType'], "the webhook fault's event carries it").toBe(
      'PHONE',
    );
    expect((await api.fetchCase(ofRound.authenticationId)).status, 'the round has cases of its own').toBe(200);
    expect((await api.op('fetchAssessment', { ...as(own), params: { caseId: ofRound.authenticationId } })).status).toBe(
      404,
    );
    await sandbox.webhooksIdle();
    expect(receiver.deliveries(), "the round's step-up posted nothing").toHaveLength(1);
  } finally {
    await sandbox.close();
    await receiver.close();
  }
});
