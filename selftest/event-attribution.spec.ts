import { expect, test } from '@playwright/test';
import type { SuiteConfig } from '../kit/config/suite-config.ts';
import { Redactor } from '../kit/redact.ts';
import { EventHub, eventsPath } from '../runner/webhooks/event-hub.ts';
import type { MessageChannel } from '../kit/webhooks/session-channel.ts';
import { freePort } from '../runner/http/free-port.ts';
import { RunProgress } from '../runner/run-progress.ts';
import type { Credit } from '../kit/webhooks/run-events.ts';
import { creditedStepUp } from '../kit/webhooks/credited-step-up.ts';
import { eventWaitsHtml, eventWaitsMarkdown, eventWaitsSummary } from '../reporters/event-waits.ts';
import type { WindowArrival, WindowEnd } from '../reporters/run-facts.ts';

// A verification session event (6.3) carries no id of the case: the receiver ties it to a step-up by channel and time
// (runner/webhooks/step-up-flows.ts). Events are posted over HTTP to the real receiver, late, out of order, twice.

/** The event window of these tests: long enough that an event posted on purpose always lands inside it. */
const WINDOW_MS = 20_000;

const opened: EventHub[] = [];
test.afterEach(async () => {
  for (const hub of opened.splice(0)) await hub.close();
});

/** A receiver of the test's own, with an event window of `windowMs`, and the ways a target and the workers reach it. */
async function hubWith(windowMs: number, webhook: Record<string, unknown> = {}) {
  const port = await freePort();
  const config = {
    runTag: 'attr',
    webhook: { host: '127.0.0.1', port, waitMs: windowMs, ...webhook },
  } as unknown as SuiteConfig;
  const hub = new EventHub(config, new Redactor([]), test.info().outputPath('journal'));
  await hub.start();
  opened.push(hub);
  const post = async (body: Record<string, unknown>) => {
    const headers = { 'content-type': 'application/json' };
    const answer = await fetch(`${hub.receiver.url}/webhooks`, { method: 'POST', headers, body: JSON.stringify(body) });
    expect(answer.status).toBe(200);
  };
  /** A verification session event (6.3); without a channel type, it carries none. */
  const session = (sessionId: string, channelType?: string, extra: Record<string, unknown> = {}) =>
    post({ sessionId, verificationStatus: 'VERIFIED', sendAttempts: '1', channelType, ...extra });
  // A step-up sent and accepted a few milliseconds after any event posted before it: the receiver times in
  // milliseconds, and an event in the millisecond of the step-up's request would count as arrived after it.
  const stepUp = async (channel: MessageChannel, credit: Credit = 'none', about: { images?: boolean } = {}) => {
    await new Promise((resolve) => setTimeout(resolve, 2));
    const ticket = await hub.stepUps.begin(channel, credit, { ...about, label: `${channel} ${credit}` });
    hub.stepUps.answered(ticket.ticket, true);
    return ticket.ticket;
  };
  /** A document verification of `inquiryId` sent and accepted, as the Api registers it; a step-up's with images alone. */
  const documentVerification = (inquiryId: string, about: { stepUp?: boolean } = {}) => {
    const { ticket } = hub.stepUps.beginDocument({ ...about, inquiryId, label: `document ${inquiryId}` });
    hub.stepUps.answered(ticket, true);
  };
  const results = (sessionId: string, inquiryId: string) =>
    post({ sessionId, inquiryId, ocr: {}, score: {}, image: {}, form: {} });
  const outcome = async (ticket: string) => {
    for (;;) {
      const found = await hub.stepUps.outcome(ticket, WINDOW_MS);
      if (found && found.state !== 'waiting' && found.state !== 'sending') return found;
    }
  };
  /** The state of a step-up a moment after the events posted so far: still waiting while they prove nothing. */
  const stateSoon = async (ticket: string) => (await hub.stepUps.outcome(ticket, 200))?.state;
  /** One of the routes the workers reach through the run's broker (runner/webhooks/events-client.ts). */
  const route = <T>(name: string) =>
    hub.routes()[`${eventsPath(hub.port)}/${name}`] as (body: Record<string, unknown>) => Promise<T>;
  return { hub, session, stepUp, documentVerification, results, outcome, stateSoon, route };
}

test.describe('event attribution across the run', () => {
  test('an event given to a step-up whose refusal was still on its way goes to the step-up it may answer once the refusal comes', async () => {
    const { hub, session, stepUp, outcome } = await hubWith(1_500);
    // Sent, its answer (a refusal) not yet registered: live, and the earliest of its channel.
    await new Promise((resolve) => setTimeout(resolve, 2));
    const refused = (await hub.stepUps.begin('phone', 'none', { label: 'refused' })).ticket;
    const accepted = await stepUp('phone', 'none', { images: true });
    await session('of-the-accepted', 'SMS_OTP');
    await expect.poll(() => hub.stepUps.live, 'the refused step-up took the event first').toBe(1);
    hub.stepUps.answered(refused, false);
    expect((await outcome(accepted)).event?.json).toMatchObject({ sessionId: 'of-the-accepted' });
    expect(await outcome(refused)).toMatchObject({ state: 'dropped' });
    expect((await outcome(refused)).event).toBeUndefined();
  });

  test('an alone step-up runs alone on its channel: it waits for the live ones, and later ones wait for it', async () => {
    const { hub, session, stepUp, outcome } = await hubWith(WINDOW_MS);
    const earlier = await stepUp('phone');
    let creditedStarted = false;
    const credited = hub.stepUps.begin('phone', 'alone').then((ticket) => ((creditedStarted = true), ticket));
    // Not granted while the earlier phone step-up waits; an email step-up is not held up.
    await outcome(await stepUp('email').then(async (ticket) => (await session('email-event', 'EMAIL_OTP'), ticket)));
    expect(creditedStarted).toBe(false);
    await session('earlier-event', 'SMS_OTP');
    const ticket = await credited;
    expect((await outcome(earlier)).event?.json).toMatchObject({ sessionId: 'earlier-event' });
    hub.stepUps.answered(ticket.ticket, true);
    let laterStarted = false;
    const later = hub.stepUps.begin('phone', 'none').then((t) => ((laterStarted = true), t));
    await session('credited-event', 'SMS_OTP');
    expect((await outcome(ticket.ticket)).event?.json).toMatchObject({ sessionId: 'credited-event' });
    await later;
    expect(laterStarted).toBe(true);
  });

  test('a counted step-up runs beside the others, and is answered once every step-up live since its request has an event', async () => {
    const { session, stepUp, outcome, stateSoon } = await hubWith(WINDOW_MS);
    const earlier = await stepUp('phone');
    // Granted at once, although a phone step-up is live; an email one started after it joins its overlap.
    const counted = await stepUp('phone', 'counted');
    const email = await stepUp('email');
    await session('first-phone', 'SMS_OTP');
    await session('the-email', 'EMAIL_OTP');
    expect(await stateSoon(counted), 'two events for three step-ups prove nothing yet').toBe('waiting');
    await session('second-phone', 'SMS_OTP');
    expect(await outcome(counted)).toMatchObject({ state: 'answered', overlap: 3 });
    expect((await outcome(earlier)).state).toBe('answered');
    expect((await outcome(email)).event?.json).toMatchObject({ sessionId: 'the-email' });
  });

  test('a counted step-up alone in its overlap without an event has expired; one whose overlap outlives its window (a step-up beside it whose event never comes) is not proven', async () => {
    const { session, stepUp, outcome } = await hubWith(1_500);
    const lonely = await stepUp('email', 'counted');
    expect(await outcome(lonely)).toMatchObject({ state: 'expired', overlap: 1 });
    const counted = await stepUp('phone', 'counted');
    const later = await stepUp('phone');
    // Its event came (the earliest live flow of the channel takes it), but the later step-up is live when its window ends.
    await session('its-event', 'SMS_OTP');
    expect(await outcome(counted)).toMatchObject({
      state: 'ambiguous',
      overlap: 2,
      event: { json: { sessionId: 'its-event' } },
    });
    expect((await outcome(later)).state).toBe('expired');
  });

  test("a webhook check's step-up is sent again alone where its count proves nothing, and only then", async () => {
    const { session, stepUp, outcome } = await hubWith(1_500);
    const credits: string[] = [];
    const send = async (credit: Credit) => {
      credits.push(credit);
      const ticket = await stepUp('phone', credit);
      await session(`event-of-the-${credit}-step-up`, 'SMS_OTP');
      return ticket;
    };
    // Alone in its overlap: its count proves it at once.
    const proven = await creditedStepUp(send, outcome);
    expect(proven).toMatchObject({ outcome: { state: 'answered', overlap: 1 } });
    expect(proven.sentAgainBecause).toBeUndefined();
    expect(credits).toEqual(['counted']);
    // Beside a step-up of another test whose event never comes: its one event proves nothing, and it is sent again alone.
    credits.length = 0;
    await stepUp('phone');
    const again = await creditedStepUp(send, outcome);
    expect(credits).toEqual(['counted', 'alone']);
    expect(again.outcome).toMatchObject({
      state: 'answered',
      event: { json: { sessionId: 'event-of-the-alone-step-up' } },
    });
    expect(again.sentAgainBecause).toContain('2 step-ups');
  });
});

test.describe('document verification flows (6.3 docVerification true)', () => {
  test("an event goes to a live step-up without images before one with images, which may still take a document session's event: events that cross leave no step-up without its own", async () => {
    const { hub, session, stepUp, outcome } = await hubWith(WINDOW_MS);
    const withImages = await stepUp('phone', 'none', { images: true });
    const plain = await stepUp('phone');
    // The plain step-up's event comes first, the document session's event of the one with images after it.
    await session('the-plain-one', 'SMS_OTP');
    await session('the-document-one', 'SMS_OTP', { docVerification: true });
    expect((await outcome(plain)).event?.json).toMatchObject({ sessionId: 'the-plain-one' });
    expect((await outcome(withImages)).event?.json).toMatchObject({ sessionId: 'the-document-one' });
    expect(hub.stats().windowEnds).toEqual([]);
  });

  test("a counted step-up beside a step-up that took a document session's event is answered once every document verification live then has shown a session of its own", async () => {
    const { session, stepUp, documentVerification, results, outcome, stateSoon } = await hubWith(WINDOW_MS);
    documentVerification('inq-doc');
    await stepUp('phone', 'none', { images: true });
    const counted = await stepUp('email', 'counted');
    await session('taken-by-the-images-step-up', 'SMS_OTP', { docVerification: true });
    await session('the-email', 'EMAIL_OTP');
    const why = 'the document verification may have caused the event the step-up with images took';
    expect(await stateSoon(counted), why).toBe('waiting');
    await results('the-document-own', 'inq-doc');
    expect(await outcome(counted)).toMatchObject({ state: 'answered', overlap: 2 });
  });

  test("a document verification's session event taken by a step-up with images cannot stand in: the counted step-up beside it proves nothing", async () => {
    const { session, stepUp, documentVerification, results, outcome } = await hubWith(WINDOW_MS);
    documentVerification('inq-doc');
    const withImages = await stepUp('phone', 'none', { images: true });
    const counted = await stepUp('email', 'counted');
    // The document verification's own session event comes first and is taken by the step-up with images; the
    // step-up with images' own session (no document flow) then goes to the counted one, whose own never comes.
    await session('the-document-session', 'SMS_OTP', { docVerification: true });
    await session('the-images-step-up-session', 'EMAIL_OTP');
    await results('the-document-session', 'inq-doc');
    expect((await outcome(withImages)).event?.json).toMatchObject({ sessionId: 'the-document-session' });
    const answer = await outcome(counted);
    expect(answer.state).toBe('ambiguous');
    expect(answer.why).toContain('document verification (inquiry inq-doc)');
  });

  test('a document verification that never shows its session leaves the count unproven at its window, and the wait is listed with what arrived', async () => {
    const { hub, session, stepUp, documentVerification, outcome } = await hubWith(1_500);
    documentVerification('inq-silent');
    await stepUp('phone', 'none', { images: true });
    const counted = await stepUp('email', 'counted');
    await session('document-kind', 'SMS_OTP', { docVerification: true });
    await session('the-email', 'EMAIL_OTP');
    expect(await outcome(counted)).toMatchObject({ state: 'ambiguous', overlap: 2 });
    const ends = hub.stats().windowEnds.filter((end) => end.kind === 'count');
    expect(ends).toHaveLength(1);
    expect(ends[0]?.what).toContain('ended without showing a session of its own');
    expect(ends[0]?.arrived.map((a) => a.sessionId)).toEqual(['document-kind', 'the-email']);
  });

  test("a step-up answered before a counted one's request by a document session's event not yet settled joins the counted one's overlap", async () => {
    const { session, stepUp, documentVerification, results, outcome, stateSoon } = await hubWith(WINDOW_MS);
    documentVerification('inq-doc');
    const withImages = await stepUp('phone', 'none', { images: true });
    await session('document-kind', 'SMS_OTP', { docVerification: true });
    expect((await outcome(withImages)).state).toBe('answered');
    // Its event may be the document verification's: its own session may still come, and be taken by the counted one.
    const counted = await stepUp('phone', 'counted');
    await session('phone-event', 'SMS_OTP');
    expect(await stateSoon(counted)).toBe('waiting');
    await results('the-document-own', 'inq-doc');
    expect(await outcome(counted)).toMatchObject({ state: 'answered', overlap: 2 });
  });

  test("a step-up with images alone is a document flow: its session's event answers it when no step-up with images is live, and settles what it may have caused", async () => {
    const { hub, session, stepUp, documentVerification, outcome, stateSoon } = await hubWith(WINDOW_MS);
    documentVerification('inq-images', { stepUp: true });
    const counted = await stepUp('phone', 'counted', { images: true });
    await session('the-counted-own', 'SMS_OTP', { docVerification: true });
    expect(await stateSoon(counted), 'the step-up with images alone may have caused it').toBe('waiting');
    await session('the-images-alone-own', undefined, { docVerification: true });
    expect(await outcome(counted)).toMatchObject({
      state: 'answered',
      event: { json: { sessionId: 'the-counted-own' } },
    });
    expect(hub.stats().windowEnds).toEqual([]);
  });
});

test.describe('waits that end on their window', () => {
  test('each is listed with its flow, what arrived meanwhile and why it was not credited; the summary then never says every wait ended on its event', async () => {
    const { hub, session, stepUp, outcome, results, route } = await hubWith(1_500);
    const plain = await stepUp('phone');
    await session('redelivered', 'SMS_OTP');
    // Long enough that the events posted below, on a busy machine too, arrive within it.
    const since = Date.now();
    const resultsWait = route<{ event: unknown }>('results')({
      inquiryId: 'inq-awaited',
      since,
      deadline: since + 2_000,
    });
    await session('redelivered', 'SMS_OTP');
    await session('a-document-kind', 'SMS_OTP', { docVerification: true });
    await results('s-other', 'inq-other');
    expect((await resultsWait).event).toBeNull();
    const second = await stepUp('email');
    expect((await outcome(plain)).event?.json).toMatchObject({ sessionId: 'redelivered' });
    expect(await outcome(second)).toMatchObject({ state: 'expired' });
    const { windowEnds } = hub.stats();
    const ofStepUp = windowEnds.find((end) => end.kind === 'step-up');
    expect(ofStepUp).toMatchObject({ flow: 'step-up by email of email none', what: 'no event arrived within 1.5 s' });
    const ofResults = windowEnds.find((end) => end.kind === 'results');
    expect(ofResults?.what).toBe('no document results event of its inquiryId arrived within 2 s; 1 other one did');
    expect(ofResults?.arrived).toEqual([
      expect.objectContaining({ inquiryId: 'inq-other', why: 'it carries another inquiryId, inq-other' }),
    ]);
    const summary = eventWaitsSummary(hub.stats());
    expect(summary).toContain('2 waits ended on their window, not on an event');
    expect(summary).not.toContain('every wait ended within');
  });

  test("why each event arriving in the window of a step-up without images was not its own: seen before its request, another step-up's, a redelivery, a document session's", async () => {
    const { hub, session, stepUp, outcome } = await hubWith(1_500);
    await session('seen-before', 'SMS_OTP');
    const earlier = await stepUp('phone');
    const plain = await stepUp('phone');
    await session('seen-before', 'SMS_OTP');
    await session('the-earlier-one', 'SMS_OTP');
    await session('the-earlier-one', 'SMS_OTP');
    await session('document-kind', 'SMS_OTP', { docVerification: true });
    expect((await outcome(earlier)).state).toBe('answered');
    expect((await outcome(plain)).state).toBe('expired');
    const end = hub.stats().windowEnds.find((e) => e.flow === 'step-up by phone number of phone none');
    expect(end?.what).toBe('no event was given to it within 1.5 s; 4 verification session events arrived meanwhile');
    expect(end?.arrived.map((a) => [a.sessionId, a.why])).toEqual([
      ['seen-before', 'a redelivery: its session had reached the receiver before'],
      ['the-earlier-one', 'given to the step-up by phone number of phone none'],
      ['the-earlier-one', 'a redelivery: its session had reached the receiver before'],
      ['document-kind', 'docVerification true (a document verification flow), and this step-up carried no images'],
    ]);
    expect(
      end?.arrived.filter((a) => a.firstOfSession && !a.givenTo && !a.docVerification).map((a) => a.sessionId),
      'no event that could have been its own went unused',
    ).toEqual([]);
  });

  test('the run-end wait ended by the window of the last step-up is listed; passive listening is reported as listening', async () => {
    const active = await hubWith(1_500);
    await active.stepUp('phone');
    expect((await active.route<{ live: number }>('settle')({ deadline: Date.now() + 10_000 })).live).toBe(0);
    expect(active.hub.stats().windowEnds.map((end) => end.kind)).toEqual(['step-up', 'run-end']);
    const passive = await hubWith(60_000, { mode: 'passive', passiveWindowMs: 100 });
    await passive.route('listen')({ deadline: Date.now() + 100 });
    const stats = passive.hub.stats();
    expect(stats).toMatchObject({ mode: 'passive', windowEnds: [], awaited: 0 });
    expect(eventWaitsSummary(stats)).toMatch(/^Events: listened 0\.\d s for deliveries \(passive mode/);
  });

  /** A step-up's wait that ended on its 60 s window, with what arrived meanwhile. */
  const stepUpWindowEnd = (arrived: WindowArrival[]): WindowEnd => ({
    kind: 'step-up',
    flow: 'step-up by phone number',
    startedAt: 0,
    endedAt: 60_000,
    windowMs: 60_000,
    what: 'no event arrived within 60 s',
    arrived,
  });
  const waits = { mode: 'active' as const, windowMs: 60_000, awaited: 0, latestDelayMs: 0, longestLagMs: 0 };

  test('the summary says what happened: no flow, every wait on its event, or none of the awaited events', () => {
    const none = { ...waits, windowEnds: [], deliveries: 0 };
    expect(eventWaitsSummary(none)).toBe('Events: no flow of this run awaited an event; 0 deliveries received');
    expect(eventWaitsSummary({ ...none, awaited: 2, latestDelayMs: 8100, longestLagMs: 3, deliveries: 1 })).toBe(
      'Events: 2 awaited, the latest 8.1 s after its request (window 60 s, WEBHOOK_WAIT_MS); every wait ended within 3 ms of the event it awaited; 1 delivery received',
    );
    const end = stepUpWindowEnd([]);
    expect(eventWaitsSummary({ ...none, windowEnds: [end, end] })).toBe(
      'Events: no awaited event arrived; 2 waits ended on their window, not on an event; 0 deliveries received',
    );
  });

  test('conformance.md and conformance.html list each wait that ended on its window with what arrived, the ids a target chose escaped', () => {
    const arrival = {
      seq: 7,
      afterMs: 35,
      kind: 'session',
      sessionId: '<b>s`1*</b>',
      docVerification: true,
      firstOfSession: true,
      why: 'given to a document verification flow',
    };
    const stats = { ...waits, windowEnds: [stepUpWindowEnd([arrival])], deliveries: 1 };
    const markdown = eventWaitsMarkdown(stats).join('\n');
    const html = eventWaitsHtml(stats);
    for (const text of [markdown, html]) {
      expect(text).toContain('1 wait ended on its window, not on an event');
      expect(text).toContain('step-up by phone number: no event arrived within 60 s');
      expect(text).toContain('given to a document verification flow');
    }
    expect(markdown).toContain('session \\<b\\>s\\`1\\*\\</b\\>');
    expect(html).toContain('session &lt;b&gt;s`1*&lt;/b&gt;');
    expect(html).not.toContain('<b>s');
    // A run whose every wait ended on its event lists none.
    expect(eventWaitsHtml({ ...stats, windowEnds: [] })).not.toContain('<ul>');
  });
});

test('at the end of the run the check of every delivery waits for every other test sending to its target, none of another target, nothing on one worker', async () => {
  const tests = (ids: string[]) => ids.map((id) => ({ id, port: id === 'other-target' ? 2 : 1 }));
  const progress = new RunProgress(tests(['last', 'flow', 'other-target']), 2);
  let ended = false;
  const waiting = progress.othersEnded(1, 'last').then(() => (ended = true));
  progress.ended('other-target');
  await Promise.resolve();
  expect(ended, 'a test of another target is not waited for, nor does its end release the wait').toBe(false);
  expect(progress.othersLeft(1, 'last')).toBe(1);
  progress.ended('flow');
  await waiting;
  expect(ended).toBe(true);
  // On one worker the others run after it: it does not wait.
  await new RunProgress(tests(['last', 'flow']), 1).othersEnded(1, 'last');
});

test('a step-up waiting for its channel longer than one poll keeps its place: asked again, it is granted once', async () => {
  const { hub, session, route } = await hubWith(WINDOW_MS);
  const begin = route<{ ticket: { ticket: string } | null }>('step-up/begin');
  const first = await begin({ request: 'a', channel: 'phone', credit: 'none', timeoutMs: 0 });
  expect(first.ticket).not.toBeNull();
  hub.stepUps.answered(first.ticket?.ticket ?? '', true);
  // The alone one waits for the live phone step-up: a poll that ends first answers null, and the next one, same id, waits on.
  expect((await begin({ request: 'b', channel: 'phone', credit: 'alone', timeoutMs: 0 })).ticket).toBeNull();
  const again = begin({ request: 'b', channel: 'phone', credit: 'alone', timeoutMs: 10_000 });
  await session('s');
  expect((await again).ticket).not.toBeNull();
  expect(hub.stepUps.started, 'one step-up each, however many polls').toBe(2);
});
