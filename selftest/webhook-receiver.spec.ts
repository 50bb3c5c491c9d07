import { connect, type Socket } from 'node:net';
import { expect, test } from '@playwright/test';
import { Redactor } from '../kit/redact.ts';
import { RequirementFailure, Verdict } from '../kit/verdict.ts';
import { marksOf } from '../kit/verdict-marks.ts';
import { deliveryDefects, expectValidEvents, expectWellFormedDeliveries } from '../kit/checks/webhook-events.ts';
import { deliveryRequirements, eventKind, eventRequirements } from '../kit/webhooks/events.ts';
import {
  DEFAULT_BODY_LIMIT_BYTES,
  MAX_RETAINED_BODY_BYTES,
  readJournal,
  WebhookReceiver,
} from '../runner/webhooks/receiver.ts';
import type { DeliveryOutcome } from '../kit/webhooks/run-events.ts';
import { bareVerdict } from './bare-verdict.ts';

const SECRET = 'sk_live_selftest_4f9a2c';
const EVT_IDS = deliveryRequirements();

const events = {
  onboarding: { sessionId: 'session-1', status: 'STARTED' },
  session: { sessionId: 'session-2', verificationStatus: 'VERIFIED', sendAttempts: '1' },
} as const;

const verdictFor = () => bareVerdict(EVT_IDS, { redactor: new Redactor([SECRET]) });

type Answer = { status?: number; contentType?: string; body?: string; error?: string };
interface Sent {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** A delivery as a target posts it; the answer, or the error of a connection dropped before it. */
const send = (port: number, { method = 'POST', headers = {}, body }: Sent): Promise<Answer> =>
  fetch(`http://127.0.0.1:${port}/webhooks`, { method, headers, ...(body === undefined ? {} : { body }) }).then(
    async (res) => ({ status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text() }),
    (error: Error) => ({ error: error.message }),
  );

/** The receivers a test started and the sockets it left open: closed when it ends. */
const started: WebhookReceiver[] = [];
const open: Socket[] = [];
test.afterEach(async () => {
  for (const socket of open.splice(0)) socket.destroy();
  for (const receiver of started.splice(0)) await receiver.close();
});

/** Writes raw bytes on a socket left open until the test ends (a sender that never finishes its request). */
function sendRaw(port: number, bytes: string): void {
  const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
  socket.on('error', () => undefined);
  socket.on('data', () => undefined);
  open.push(socket);
}

const json = (value: unknown, contentType = 'application/json') => ({
  headers: { 'content-type': contentType },
  body: JSON.stringify(value),
});

async function startReceiver(
  options: Partial<ConstructorParameters<typeof WebhookReceiver>[0]> = {},
): Promise<WebhookReceiver> {
  const receiver = new WebhookReceiver({ host: '127.0.0.1', port: 0, bodyTimeoutMs: 300, ...options });
  await receiver.start();
  started.push(receiver);
  return receiver;
}

/** The message of the failure a check collects, raised when its test ends. */
function failureOf(verdict: Verdict, check: () => unknown): string {
  try {
    check();
    verdict.finish();
  } catch (error) {
    if (error instanceof RequirementFailure) return error.message;
    throw error;
  }
  throw new Error('the check passed');
}

const asJson = { 'content-type': 'application/json' };
const twoMiB = Buffer.alloc(2 * 1024 * 1024, 0x20);
const slowSender =
  'POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sessionId":';
/** What is sent (a string: raw bytes on a socket left open, a sender that never finishes), its outcome, its evidence. */
const malformed: ReadonlyArray<[name: string, sent: Sent | string, outcome: DeliveryOutcome, evidence: RegExp]> = [
  ['not JSON', { headers: asJson, body: `not json, Bearer ${SECRET}` }, 'complete', /the body is not JSON/],
  ['text/plain', json(events.session, 'text/plain; charset=utf-8'), 'complete', /text\/plain, not a JSON media type/],
  ['a 2 MiB body', { headers: asJson, body: twoMiB }, 'oversize', /exceeded the receiver's limit of 1048576 bytes/],
  ['a PUT with no body', { method: 'PUT', headers: asJson }, 'complete', /method PUT, not POST.*empty body/s],
  ['a slow sender', slowSender, 'incomplete', /the body was not complete 300 ms after the request head arrived/],
  ['not HTTP', '\x16\x03\x01\x02\x00 hello\r\n\r\n', 'not-http', /\(not HTTP\).*not a readable HTTP request/s],
  ['JSON that is none of the events', json({ hello: 'world' }), 'complete', /none of the three events of part 6/],
];

test('each malformed delivery is recorded, the receiver keeps answering, and EVT-DELIVERY fails with the evidence', async () => {
  const receiver = await startReceiver();
  const answered = { status: 200, contentType: 'application/json', body: '{}' };
  for (const [name, sent, outcome, evidence] of malformed) {
    const before = receiver.deliveries().length;
    if (typeof sent === 'string') sendRaw(receiver.port, sent);
    else await send(receiver.port, sent);
    const delivery = await receiver.waitFor((d) => d.seq > before, { since: 0, timeoutMs: 3_000 });
    if (!delivery) throw new Error(`${name}: the receiver recorded nothing`);
    expect(delivery.outcome, name).toBe(outcome);

    const after = await send(receiver.port, json(events.onboarding));
    expect(after, `${name}: a valid delivery right after is answered {} as application/json`).toEqual(answered);
    expect(receiver.deliveries(), name).toHaveLength(before + 2);

    const { verdict } = verdictFor();
    const message = failureOf(verdict, () => expectWellFormedDeliveries(verdict, 'EVT-DELIVERY', [delivery]));
    expect(message, name).toMatch(/^EVT-DELIVERY \(MUST, part 6\)/);
    expect(message, name).toMatch(evidence);
    expect(message, name).toContain(`#${delivery.seq} `);
    expect(message, `${name}: secrets are redacted`).not.toContain(SECRET);
  }
});

test('an event that leaves out every field with a documented default is judged as carrying the defaults; a field without one left out by every event reads "the target never produced it"', async () => {
  const receiver = await startReceiver();
  await send(receiver.port, json({ sessionId: 'session-4' }));
  const nulls = { mfaType: null, channelType: null, verificationStatus: null, resendStatus: null };
  await send(receiver.port, json({ sessionId: 'session-5', ...nulls }));
  const { verdict, annotations } = verdictFor();
  expectValidEvents(verdict, eventRequirements(), [...receiver.deliveries()], ['session']);
  const marks = marksOf(annotations);
  const passed = marks.filter((m) => m.kind === 'pass').map((m) => m.id);
  expect(new Set(passed)).toEqual(
    new Set([
      'EVT-SESSION-SCHEMA',
      'EVT-SESSION-STATUS-ENUM',
      'EVT-SESSION-RESEND-ENUM',
      'EVT-SESSION-MFA-ENUM',
      'EVT-SESSION-CHANNEL-ENUM',
    ]),
  );
  const notProduced = marks.filter((m) => m.kind === 'not-produced');
  expect(notProduced.map((m) => m.id)).toEqual(['EVT-SESSION-INT64']);
  expect(notProduced[0]?.detail).toMatch(/^the target never produced it: /);
});

// Each event check's good and bad input is check-units/server.ts's; each schema rule schemas.spec.ts's.
test('the journal keeps every delivery redacted, across receivers of the same run', async () => {
  const path = test.info().outputPath('deliveries.jsonl');
  const journal = { path, redactor: new Redactor([SECRET]) };
  const first = await startReceiver({ journal });
  await send(first.port, {
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` },
    body: JSON.stringify({ ...events.onboarding, status: SECRET }),
  });
  await first.close();
  const second = await startReceiver({ journal });
  await send(second.port, { method: 'GET' });
  await second.close();
  const entries = readJournal(path);
  expect(entries.map((e) => e.method)).toEqual(['POST', 'GET']);
  expect(JSON.stringify(entries)).not.toContain(SECRET);
  expect(eventKind(entries[0]?.json)).toBe('onboarding');
});

test('a receiver started while the port is still held waits for it', async () => {
  const holder = await startReceiver();
  const port = holder.port;
  const waiting = startReceiver({ port });
  setTimeout(() => void holder.close(), 300);
  const second = await waiting;
  expect(second.port).toBe(port);
  expect((await send(port, json(events.onboarding))).status).toBe(200);
});

// The bound on raw bodies kept bites only past MAX_RETAINED_BODY_BYTES: the 40 bodies of the limit's size (20 read whole,
// 20 cut off at it) hold 40 MiB. Two bursts of 50 prove concurrent deliveries and a burst after a burst.
test('a flood of 100 malformed deliveries, in concurrent bursts, is recorded with its reason and the receiver stays up with bounded memory', async () => {
  // Slow senders are another test's subject: on a busy machine a burst's bodies may take long to arrive whole.
  const receiver = await startReceiver({ bodyTimeoutMs: 60_000 });
  const whole = Buffer.alloc(DEFAULT_BODY_LIMIT_BYTES, 0x41);
  const oversize = Buffer.alloc(2 * DEFAULT_BODY_LIMIT_BYTES, 0x41);
  /** The five kinds in turn: not JSON, labelled text/plain, a PUT, oversize, none of the events. */
  const kinds: Array<(i: number) => Sent> = [
    (i) => ({ headers: asJson, body: i % 10 === 0 ? whole : `not json ${i}` }),
    () => json(events.session, 'text/plain'),
    (i) => ({ method: 'PUT', headers: asJson, body: i % 10 === 2 ? whole : '{}' }),
    () => ({ headers: asJson, body: oversize }),
    (i) => json({ hello: i }),
  ];
  const malformed = (i: number) => kinds[i % 5]!(i);
  for (let burst = 0; burst < 2; burst += 1) {
    const sent = Array.from({ length: 50 }, (_, j) => burst * 50 + j);
    const answers = await Promise.all(sent.map((i) => send(receiver.port, malformed(i))));
    // A complete delivery is answered 200. An oversize one is answered 413 and its connection dropped: a sender still
    // writing may see the drop before the answer, whichever comes first on a busy machine.
    const wrong = sent.filter((i, j) => {
      const answer = answers[j];
      return i % 5 === 3 ? !(answer?.status === 413 || answer?.error !== undefined) : answer?.status !== 200;
    });
    expect(
      wrong.map((i) => `#${i}: ${JSON.stringify(answers[sent.indexOf(i)])}`),
      `burst ${burst}`,
    ).toEqual([]);
  }
  const deliveries = [...receiver.deliveries()];
  expect(deliveries).toHaveLength(100);
  const unexplained = deliveries.filter((d) => deliveryDefects(d).length === 0).map((d) => d.seq);
  expect(unexplained, 'each says what is wrong with it (EVT-DELIVERY)').toEqual([]);
  expect(receiver.retainedBodyBytes, 'raw bodies kept in memory are bounded').toBeLessThanOrEqual(
    MAX_RETAINED_BODY_BYTES,
  );
  const released = deliveries.filter((d) => d.body.length === 0 && d.bodyBytes >= DEFAULT_BODY_LIMIT_BYTES);
  expect(released.length, 'the oldest large bodies are released').toBeGreaterThan(0);
  const previewLost = released.filter((d) => d.bodyPreview === '').map((d) => d.seq);
  expect(previewLost, 'a released body keeps its preview').toEqual([]);
  const after = await send(receiver.port, json(events.onboarding));
  expect(after.status, 'the receiver still answers').toBe(200);
});
