import { randomUUID } from 'node:crypto';
import { channelTypeContradicts, type MessageChannel } from '../../kit/webhooks/session-channel.ts';
import { isObject } from '../../schemas/json-value.ts';
import { eventKind, isUndeterminedEvent } from '../../kit/webhooks/events.ts';
import type { Credit, DeliveryRecord, FlowOutcome, FlowState } from '../../kit/webhooks/run-events.ts';
import type { WindowArrival, WindowEnd } from '../../reporters/run-facts.ts';

/**
 * Which verification session event (6.3) is which step-up's, run-wide, in the runner process. 6.3 carries no id of the
 * case or inquiry, and the step-up answer (2.6) no session id, so an event is tied to a step-up by its channel and its
 * time alone:
 * - every accepted step-up of the run on one message channel is a flow, live from its request until an event is given
 *   to it or its window (WEBHOOK_WAIT_MS from the request) ends;
 * - an event goes to the earliest live flow of its channel (channelType, an absent one being SMS_OTP by its documented
 *   default) whose request was sent before the event arrived, else to the earliest live flow of any channel (its
 *   channelType then names the other channel); never to a flow whose request came after it; of those, to one without
 *   images before one with (which may still take a document session's event, as one without never does); a flow whose
 *   answer turns out a refusal gives back an event given to it meanwhile, which goes on as if it had just come;
 * - a sessionId counts once: a redelivery, or a session that reached the receiver before any flow, is never given;
 * - an event with docVerification true reports a session of a document verification flow (6.3): it may answer a
 *   step-up that carried images (a step-up with document images can be one), never one without.
 * The requests that may start a document verification session besides are "document flows": every document
 * verification, and every step-up with images but no message channel. A document flow's session is shown by its
 * inquiry's document results event (6.2 carries the inquiryId and the sessionId), for a step-up with images alone also
 * by a document session's event given to it when no step-up with images is live; until then, or its window's end, it
 * may be what caused a document session's event. A session event of a session a document event named is that
 * document's, never a step-up's. A step-up given a document session's event holds it "unsettled" while a document flow
 * live when it arrived has not shown a session of its own; when one ends without, or shows that very session, the event
 * may have been the document's, and the step-up's own session may still come within its window.
 * Which live flow takes an event is a guess when several are live; the webhook checks judge a step-up's event only
 * where the guess is proven ("credit"):
 * - none: no check judges the flow's event (the step-ups of every other test); it waits only for an "alone" flow.
 * - counted: the flow runs beside every other, and is answered once every flow live or unsettled at some moment since
 *   its request (its overlap, itself included, on any channel) has been given an event and none is unsettled, before
 *   its window ends. Those events all arrived after its request, as many as the flows, none a document flow's; so, as
 *   no step-up causes two sessions, one of them is its own. When a flow of its overlap ends without an event or with
 *   an event that may have been a document flow's, or its window ends before the overlap is answered, the count proves
 *   nothing: the flow is "ambiguous" (and the check sends a step-up again, alone); alone in its overlap, it has
 *   "expired".
 * - alone: the flow starts on a channel with no live or unsettled flow, and no other flow of the channel starts while
 *   it is live, so the event given to it can only be its own, or one no step-up of this run caused (whatever reaches
 *   the receiver is the target's to answer for: its address is given to the target under test alone). It takes a
 *   document session's event only when no document flow is live.
 * Every wait that ends on its window rather than on an event is handed to `onWindowEnd`, with what arrived meanwhile
 * and why it was not given to it.
 */

interface Flow extends FlowOutcome {
  ticket: string;
  channel: MessageChannel;
  images: boolean;
  credit: Credit;
  label: string;
  /** Its window's end: it expires there when still live, and an unsettled event can no longer be followed by its own. */
  timer?: NodeJS.Timeout;
  waiters: Array<() => void>;
  /** A document session's event was given to it: the document flows that may have caused that event instead. */
  documentSources?: Set<DocumentFlow>;
  /** A counted flow's overlap, and its answer once the count has proven it or cannot. */
  counted?: { overlap: Set<Flow>; answer?: FlowState; why?: string; deadline: NodeJS.Timeout };
}

interface DocumentFlow {
  ticket: string;
  label: string;
  /** A step-up with images and no message channel (else a document verification). */
  stepUp: boolean;
  inquiryId?: string;
  sentAt: number;
  /** tied: a session is known for it (shown, or given to it by time alone: see shown()). */
  state: 'sending' | 'waiting' | 'tied' | 'expired' | 'dropped';
  session?: string;
  tiedBy?: 'results' | 'session';
  /** When it was settled as a possible cause (ms since the epoch): the event that tied it arrived, or its refusal. */
  settledAt?: number;
  timer?: NodeJS.Timeout;
}

/** What the flows made of one delivery of an event. */
interface Note {
  seq: number;
  receivedAt: number;
  kind: 'session' | 'results' | 'onboarding' | 'unknown';
  sessionId?: string;
  inquiryId?: string;
  doc: boolean;
  first: boolean;
  givenTo?: Flow | DocumentFlow;
  /** Why it was given to no flow, when it was not. */
  why?: string;
}

interface Waiting {
  channel: MessageChannel;
  credit: Credit;
  images: boolean;
  label: string;
  grant: (flow: Flow) => void;
}

type Settlement = 'settled' | 'unsettled' | 'doubtful';

const isLive = (flow: Flow) => flow.state === 'sending' || flow.state === 'waiting';
/** A document flow that may still take a document session's event by time: its session is not known. */
const isOpenDocument = (flow: DocumentFlow) => flow.state === 'sending' || flow.state === 'waiting';
/** Whether a document flow's session is shown: by its results event, or, for a step-up with images alone, by the session event given to it. */
const shown = (flow: DocumentFlow) => flow.state === 'tied' && (flow.tiedBy === 'results' || flow.stepUp);
/** Whether the flow's outcome may still change: a counted flow's until the count has its answer. */
const isPending = (flow: Flow) => (flow.counted ? flow.counted.answer === undefined : isLive(flow));
/** A counted flow's overlap as the count sees it: a refused step-up is no flow. */
const acceptedOverlap = (flow: Flow) => [...(flow.counted?.overlap ?? [])].filter((f) => f.state !== 'dropped');
const sessionOf = (delivery: DeliveryRecord | undefined): unknown =>
  isObject(delivery?.json) ? delivery.json['sessionId'] : undefined;
const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A flow in the words of the summary: "step-up by phone number with images (counted) of stepup › …". */
export function describeFlow(flow: Pick<Flow, 'channel' | 'images' | 'credit' | 'label'>): string {
  const channel = flow.channel === 'phone' ? 'phone number' : 'email';
  const credit = flow.credit === 'none' ? '' : ` (${flow.credit === 'alone' ? 'sent alone' : 'counted'})`;
  return `step-up by ${channel}${flow.images ? ' with images' : ''}${credit}${flow.label ? ` of ${flow.label}` : ''}`;
}

function describeDocument(flow: DocumentFlow): string {
  const what = flow.stepUp ? 'step-up with images alone' : 'document verification';
  const inquiry = flow.inquiryId ? ` (inquiry ${flow.inquiryId})` : '';
  return `${what}${inquiry}${flow.label ? ` of ${flow.label}` : ''}`;
}

const describeAny = (flow: Flow | DocumentFlow) => ('channel' in flow ? describeFlow(flow) : describeDocument(flow));

export class StepUpFlows {
  private readonly flows = new Map<string, Flow>();
  private readonly documents = new Map<string, DocumentFlow>();
  private readonly queue: Waiting[] = [];
  private readonly seenSessions = new Set<string>();
  /** Sessions a document event (6.1, 6.2) named, or a document flow took: document verification sessions. */
  private readonly documentSessions = new Set<string>();
  private readonly notes: Note[] = [];
  private readonly settledWaiters: Array<() => void> = [];
  /** The step-up whose end left none live, and whether its window ended it. */
  private lastEnded: { flow: Flow; onWindow: boolean; at: number } | undefined;
  private closed = false;
  /** Step-ups registered in the run, credited or not. */
  started = 0;
  /** Document flows registered in the run. */
  documentsStarted = 0;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly onWindowEnd: (end: WindowEnd) => void = () => undefined,
  ) {}

  /** A ticket to send a step-up on `channel` once the channel allows it (see above); its request goes out right after. */
  begin(
    channel: MessageChannel,
    credit: Credit,
    about: { images?: boolean; label?: string } = {},
  ): Promise<{ ticket: string; sentAt: number }> {
    return new Promise((resolve) => {
      this.queue.push({
        channel,
        credit,
        images: about.images === true,
        label: about.label ?? '',
        grant: (flow) => resolve({ ticket: flow.ticket, sentAt: flow.sentAt }),
      });
      this.pump();
    });
  }

  /** Registers a request that may start a document verification session; its request goes out right after. */
  beginDocument(about: { inquiryId?: string; label?: string; stepUp?: boolean }): { ticket: string; sentAt: number } {
    const flow: DocumentFlow = {
      ticket: randomUUID(),
      label: about.label ?? '',
      stepUp: about.stepUp === true,
      ...(about.inquiryId ? { inquiryId: about.inquiryId } : {}),
      sentAt: this.now(),
      state: 'sending',
    };
    // Not shown within its window: it may have caused a document session's event given to a step-up.
    flow.timer = setTimeout(() => {
      if (!shown(flow) && flow.state !== 'dropped') flow.state = 'expired';
      this.reconsider();
    }, this.windowMs);
    this.documents.set(flow.ticket, flow);
    this.documentsStarted += 1;
    return { ticket: flow.ticket, sentAt: flow.sentAt };
  }

  /**
   * The request's answer came: an accepted step-up waits for its event until its window ends, an accepted document
   * flow for its session (of the answer's inquiry when its request named none); a refused one is no flow.
   */
  answered(ticket: string, accepted: boolean, inquiryId?: string): void {
    const document = this.documents.get(ticket);
    if (document) {
      if (!document.inquiryId && inquiryId) document.inquiryId = inquiryId;
      if (document.state !== 'sending') return;
      if (accepted) {
        document.state = 'waiting';
        return;
      }
      clearTimeout(document.timer);
      document.state = 'dropped';
      document.settledAt = this.now();
      return this.reconsider();
    }
    const flow = this.flows.get(ticket);
    if (flow && !accepted && flow.state === 'answered') return this.refusedAfterEvent(flow);
    if (!flow || flow.state !== 'sending') return;
    if (!accepted) return this.finish(flow, 'dropped');
    flow.state = 'waiting';
    if (flow.sentAt + this.windowMs <= this.now()) this.finish(flow, 'expired', 'window');
  }

  /** The flow's outcome once it is final (see Credit); its current state after `timeoutMs` otherwise. */
  outcome(ticket: string, timeoutMs: number): Promise<FlowOutcome | undefined> {
    const flow = this.flows.get(ticket);
    if (!flow || !isPending(flow)) return Promise.resolve(flow && outcomeOf(flow));
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve(outcomeOf(flow));
      };
      const timer = setTimeout(() => {
        flow.waiters = flow.waiters.filter((w) => w !== done);
        resolve(outcomeOf(flow));
      }, timeoutMs);
      flow.waiters.push(done);
    });
  }

  /** Hands a delivery to the live flows; returns the ticket of the step-up it was given to, if any. */
  deliver(delivery: DeliveryRecord): string | undefined {
    const body = delivery.json;
    const kind = isUndeterminedEvent(body) ? 'unknown' : eventKind(body);
    if (!kind || !isObject(body)) return undefined;
    const sessionId = typeof body['sessionId'] === 'string' && body['sessionId'] !== '' ? body['sessionId'] : undefined;
    const inquiryId = typeof body['inquiryId'] === 'string' ? body['inquiryId'] : undefined;
    const session = sessionId ?? `#${delivery.seq}`;
    const note: Note = {
      seq: delivery.seq,
      receivedAt: delivery.receivedAt,
      kind,
      ...(sessionId ? { sessionId } : {}),
      ...(inquiryId ? { inquiryId } : {}),
      doc: kind === 'session' && body['docVerification'] === true,
      first: !this.seenSessions.has(session),
    };
    this.notes.push(note);
    if (kind === 'unknown') return undefined;
    this.seenSessions.add(session);
    if (kind === 'results' || kind === 'onboarding') {
      if (sessionId) this.documentSessions.add(sessionId);
      if (kind === 'results' && sessionId && inquiryId) this.showSession(inquiryId, sessionId, delivery.receivedAt);
      this.reconsider();
      return undefined;
    }
    if (!note.first || this.documentSessions.has(session)) return undefined;
    return this.place(delivery, note);
  }

  /**
   * A refused step-up causes no session: an event given to it while its answer was on its way was another step-up's,
   * and is handed again to the flows as they are now. Kept, it left the run one event short: against the reference, 2
   * runs in 15 had a step-up with images wait out its window, and the counted step-up beside it prove nothing.
   */
  private refusedAfterEvent(flow: Flow): void {
    const { event } = flow;
    const note = this.notes.find((n) => n.givenTo === flow);
    delete flow.event;
    delete flow.documentSources;
    this.finish(flow, 'dropped');
    if (!event || !note) return;
    delete note.givenTo;
    this.place(event, note);
  }

  /** Gives a verification session event, first of its session and of no document session, to the flow it may answer. */
  private place(delivery: DeliveryRecord, note: Note): string | undefined {
    const body = isObject(delivery.json) ? delivery.json : {};
    const session = note.sessionId ?? `#${delivery.seq}`;
    const sources = note.doc ? this.possibleDocuments(delivery.receivedAt) : [];
    const candidates = [...this.flows.values()]
      .filter(
        (f) =>
          isLive(f) &&
          f.sentAt <= delivery.receivedAt &&
          (!note.doc || (f.images && (f.credit !== 'alone' || sources.length === 0))),
      )
      .sort((a, b) => a.sentAt - b.sentAt);
    // Of the live step-ups it may answer, one without images first: one with images may still take a document
    // session's event, which one without never takes.
    const pick = (flows: Flow[]) => flows.find((f) => !f.images) ?? flows[0];
    const agreeing = candidates.filter((f) => !channelTypeContradicts(f.channel, body['channelType']));
    const flow = pick(agreeing) ?? pick(candidates);
    if (flow) {
      flow.event = delivery;
      if (sources.length > 0) flow.documentSources = new Set(sources);
      note.givenTo = flow;
      this.finish(flow, 'answered');
      return flow.ticket;
    }
    // A document session's event no step-up may take goes to a document flow whose session is not known, a step-up
    // with images alone first (a document verification shows its session by its results event).
    const open = sources
      .filter(isOpenDocument)
      .sort((a, b) => Number(b.stepUp) - Number(a.stepUp) || a.sentAt - b.sentAt);
    const document = open[0];
    if (document) {
      this.tieDocument(document, session, 'session', delivery.receivedAt);
      note.givenTo = document;
      this.reconsider();
      return undefined;
    }
    note.why = note.doc
      ? 'docVerification true, and neither a step-up with images nor a document verification was live when it arrived'
      : 'no step-up whose request went out before it was live when it arrived';
    return undefined;
  }

  /** How many step-ups are live (a request sent or its event awaited). */
  get live(): number {
    return [...this.flows.values()].filter(isLive).length;
  }

  /** The live step-ups, in words. */
  liveFlows(): string[] {
    return [...this.flows.values()].filter(isLive).map(describeFlow);
  }

  /** The step-up whose end left none live, when its window (not an event) ended it at or after `since`. */
  lastEndedOnWindow(since: number): string | undefined {
    const last = this.lastEnded;
    return last && last.onWindow && last.at >= since ? describeFlow(last.flow) : undefined;
  }

  /** Resolves once no flow is live: every accepted step-up of the run has its event, or its window ended. */
  settled(): Promise<void> {
    if (this.live === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** The document flow of `inquiryId` whose request went out last by `at`, in words. */
  documentOf(inquiryId: string, at: number): string | undefined {
    const found = [...this.documents.values()]
      .filter((d) => d.inquiryId === inquiryId && d.sentAt <= at)
      .sort((a, b) => b.sentAt - a.sentAt)[0];
    return found && describeDocument(found);
  }

  /** The events of `kinds` that arrived from `since` to `until`, each with `whyNot` it answered the wait. */
  arrivals(
    since: number,
    until: number,
    kinds: ReadonlyArray<Note['kind']>,
    whyNot: (note: Note) => string,
  ): WindowArrival[] {
    return this.notes
      .filter((n) => n.receivedAt >= since && n.receivedAt <= until && kinds.includes(n.kind))
      .map((n) => ({
        seq: n.seq,
        afterMs: n.receivedAt - since,
        kind: n.kind,
        ...(n.sessionId ? { sessionId: n.sessionId } : {}),
        ...(n.inquiryId ? { inquiryId: n.inquiryId } : {}),
        ...(n.doc ? { docVerification: true } : {}),
        firstOfSession: n.first,
        ...(n.sessionId && this.documentSessions.has(n.sessionId) ? { documentSession: true } : {}),
        ...(n.givenTo ? { givenTo: describeAny(n.givenTo) } : {}),
        why: whyNot(n),
      }));
  }

  /** Ends every flow's wait (the run is over). */
  close(): void {
    this.closed = true;
    for (const flow of this.flows.values()) if (isLive(flow)) this.finish(flow, 'expired', 'close');
    for (const flow of this.flows.values()) {
      clearTimeout(flow.timer);
      if (flow.counted && isPending(flow)) this.conclude(flow, 'ambiguous', 'the run ended before its count was done');
    }
    for (const document of this.documents.values()) clearTimeout(document.timer);
  }

  /** Why a session event did not answer the wait of `flow`. */
  private whyNotGiven(note: Note, flow: Flow): string {
    if (note.givenTo === flow) return 'given to it';
    if (note.kind === 'unknown') return 'its kind cannot be told from its fields (a sessionId alone fits 6.2 and 6.3)';
    if (!note.first) return 'a redelivery: its session had reached the receiver before';
    if (note.givenTo) return `given to the ${describeAny(note.givenTo)}`;
    if (note.sessionId && this.documentSessions.has(note.sessionId))
      return 'the session of a document verification (a document event carries its sessionId)';
    if (note.doc && !flow.images)
      return 'docVerification true (a document verification flow), and this step-up carried no images';
    if (note.doc && flow.credit === 'alone')
      return 'docVerification true, and a document verification was live: a step-up sent alone takes none then';
    return note.why ?? 'given to no flow';
  }

  /**
   * Whether a step-up's event is its own as far as the document flows go: settled (no document flow may have caused
   * it), unsettled (one that may have has not shown a session yet), or doubtful (one ended without showing a session of
   * its own, or showed that very session: the event may be a document flow's).
   */
  private settlement(flow: Flow): Settlement {
    if (!flow.documentSources) return 'settled';
    const session = sessionOf(flow.event);
    let result: Settlement = 'settled';
    for (const document of flow.documentSources) {
      if (document.state === 'dropped') continue;
      if (document.state === 'expired' || (shown(document) && document.session === session)) return 'doubtful';
      if (!shown(document)) result = 'unsettled';
    }
    return result;
  }

  /** Live, or answered by an event that may not be its own while its own may still come within its window. */
  private isUnsettled(flow: Flow): boolean {
    if (isLive(flow)) return true;
    if (flow.state !== 'answered' || this.closed) return false;
    const settlement = this.settlement(flow);
    return settlement === 'unsettled' || (settlement === 'doubtful' && this.now() < flow.sentAt + this.windowMs);
  }

  private finish(flow: Flow, state: FlowState, cause?: 'window' | 'close'): void {
    flow.state = state;
    if (state === 'dropped') clearTimeout(flow.timer);
    if (state === 'expired' && cause) this.windowEnded(flow, cause);
    if (!flow.counted) this.release(flow);
    this.reconsider();
    if (this.live === 0 && state !== 'dropped')
      this.lastEnded = { flow, onWindow: cause !== undefined, at: this.now() };
    if (this.live === 0 && this.queue.length === 0) for (const resolve of this.settledWaiters.splice(0)) resolve();
  }

  /** Counts and grants again: a flow ended, an event came, or a document flow showed its session or ended. */
  private reconsider(): void {
    this.count();
    this.pump();
  }

  private windowEnded(flow: Flow, cause: 'window' | 'close'): void {
    const endedAt = this.now();
    const arrived = this.arrivals(flow.sentAt, endedAt, ['session', 'unknown'], (n) => this.whyNotGiven(n, flow));
    const within = seconds(this.windowMs);
    const what =
      cause === 'close'
        ? `the run ended ${seconds(endedAt - flow.sentAt)} into its window, before an event was given to it`
        : arrived.length === 0
          ? `no event arrived within ${within}`
          : `no event was given to it within ${within}; ${plural(arrived.length, 'verification session event')} arrived meanwhile`;
    this.onWindowEnd({
      kind: 'step-up',
      flow: describeFlow(flow),
      images: flow.images,
      startedAt: flow.sentAt,
      endedAt,
      windowMs: this.windowMs,
      what,
      arrived,
    });
  }

  private release(flow: Flow): void {
    for (const waiter of flow.waiters.splice(0)) waiter();
  }

  private tieDocument(flow: DocumentFlow, session: string, by: 'results' | 'session', at: number): void {
    flow.state = 'tied';
    flow.settledAt = at;
    flow.session = session;
    flow.tiedBy = by;
    if (shown(flow)) clearTimeout(flow.timer);
    this.documentSessions.add(session);
  }

  /** A results event of `inquiryId` shows the session of the earliest document flow of that inquiry not yet shown. */
  private showSession(inquiryId: string, session: string, at: number): void {
    const all = [...this.documents.values()];
    if (all.some((d) => d.session === session && d.tiedBy === 'results')) return;
    const flow = all
      .filter(
        (d) => d.inquiryId === inquiryId && d.sentAt <= at && (isOpenDocument(d) || (d.state === 'tied' && !shown(d))),
      )
      .sort((a, b) => a.sentAt - b.sentAt)[0];
    if (flow) this.tieDocument(flow, session, 'results', at);
  }

  /** The document flows that may have caused a document session's event arriving at `at`: their session not shown. */
  private possibleDocuments(at: number): DocumentFlow[] {
    return [...this.documents.values()].filter(
      (d) => d.sentAt <= at && (isOpenDocument(d) || (d.state === 'tied' && !shown(d))),
    );
  }

  /** Gives each counted flow its answer once its overlap proves it, or can no longer (see Credit). */
  private count(): void {
    for (const flow of this.flows.values()) {
      if (!flow.counted || !isPending(flow)) continue;
      const answer = this.countOf(flow);
      if (answer) this.conclude(flow, answer.state, answer.why, answer.onWindow);
    }
  }

  private countOf(flow: Flow): { state: FlowState; why?: string; onWindow?: boolean } | undefined {
    if (flow.state === 'dropped') return { state: 'dropped' };
    const overlap = acceptedOverlap(flow);
    const expired = overlap.find((f) => f.state === 'expired');
    // Its own window's end is listed as the step-up's; another flow's ends its count on that window.
    if (expired && overlap.length === 1) return { state: 'expired' };
    if (expired)
      return {
        state: 'ambiguous',
        why:
          expired === flow
            ? `no event was given to it within its window, beside ${plural(overlap.length - 1, 'other step-up')}`
            : `the ${describeFlow(expired)}, live beside it, ended without an event`,
        onWindow: expired !== flow,
      };
    const doubtful = overlap.find((f) => f.state === 'answered' && this.settlement(f) === 'doubtful');
    if (doubtful) {
      const document = [...(doubtful.documentSources ?? [])].find(
        (d) => d.state === 'expired' || (shown(d) && d.session === sessionOf(doubtful.event)),
      );
      const expiredDocument = document?.state === 'expired';
      return {
        state: 'ambiguous',
        why: `the document session's event given to the ${describeFlow(doubtful)} may be the ${document ? describeDocument(document) : 'document verification'}'s${expiredDocument ? ', which ended without showing a session of its own' : ', whose results event named that session'}`,
        onWindow: expiredDocument,
      };
    }
    if (!overlap.every((f) => f.state === 'answered' && this.settlement(f) === 'settled')) return undefined;
    return { state: 'answered' };
  }

  private conclude(flow: Flow, answer: FlowState, why?: string, onWindow = false): void {
    const counted = flow.counted as NonNullable<Flow['counted']>;
    clearTimeout(counted.deadline);
    counted.answer = answer;
    if (why) counted.why = why;
    if (onWindow && why) {
      const endedAt = this.now();
      this.onWindowEnd({
        kind: 'count',
        flow: describeFlow(flow),
        images: flow.images,
        startedAt: flow.sentAt,
        endedAt,
        windowMs: this.windowMs,
        what: `its count proved nothing: ${why}`,
        arrived: this.arrivals(flow.sentAt, endedAt, ['session', 'unknown'], (n) => this.whyNotGiven(n, flow)),
      });
    }
    this.release(flow);
  }

  /** A counted flow's window ended while it was still pending: why its count proved nothing. */
  private unproven(flow: Flow): string {
    const overlap = acceptedOverlap(flow);
    const waiting = overlap.filter((f) => isLive(f));
    if (waiting.length > 0)
      return `${waiting.length} of the ${overlap.length} step-ups live beside it since its request had no event when its window ended (${waiting.map(describeFlow).slice(0, 3).join('; ')})`;
    const documents = [
      ...new Set(
        overlap.flatMap((f) => [...(f.documentSources ?? [])]).filter((d) => !shown(d) && d.state !== 'dropped'),
      ),
    ];
    return `a step-up beside it took a document session's event, and ${plural(documents.length, 'document flow')} live when it arrived had not shown a session of its own when its window ended (${documents.map(describeDocument).slice(0, 3).join('; ')})`;
  }

  /** Grants, in order, every waiting request the channel rules allow now. */
  private pump(): void {
    for (let i = 0; i < this.queue.length;) {
      const waiting = this.queue[i] as Waiting;
      if (!this.mayStart(waiting, i)) {
        i += 1;
        continue;
      }
      this.queue.splice(i, 1);
      this.start(waiting);
    }
  }

  private start(waiting: Waiting): void {
    const flow: Flow = {
      ticket: randomUUID(),
      channel: waiting.channel,
      images: waiting.images,
      credit: waiting.credit,
      label: waiting.label,
      state: 'sending',
      sentAt: this.now(),
      waiters: [],
    };
    // Its window: a worker that never reports the answer (it ended mid-request) holds its channel this long at most;
    // an answered flow whose event was doubtful stops holding its channel there.
    flow.timer = setTimeout(
      () => (isLive(flow) ? this.finish(flow, 'expired', 'window') : this.reconsider()),
      this.windowMs,
    );
    for (const other of this.flows.values()) if (other.counted && isPending(other)) other.counted.overlap.add(flow);
    if (waiting.credit === 'counted') {
      const overlap = new Set([...this.flows.values()].filter((f) => this.isUnsettled(f)).concat(flow));
      // Its window's end: without its event it has expired (count() concludes); with it, its overlap was not proven in time.
      const deadline = setTimeout(
        () =>
          isLive(flow)
            ? this.finish(flow, 'expired', 'window')
            : this.conclude(flow, 'ambiguous', this.unproven(flow), true),
        this.windowMs,
      );
      flow.counted = { overlap, deadline };
    }
    this.flows.set(flow.ticket, flow);
    this.started += 1;
    waiting.grant(flow);
  }

  /** An alone step-up starts on a channel with no live or unsettled flow; any other while no alone one is live or queued before it. */
  private mayStart(waiting: Waiting, index: number): boolean {
    const aloneBefore = this.queue.slice(0, index).some((q) => q.credit === 'alone' && q.channel === waiting.channel);
    if (aloneBefore) return false;
    const onChannel = [...this.flows.values()].filter((f) => f.channel === waiting.channel);
    return waiting.credit === 'alone'
      ? !onChannel.some((f) => this.isUnsettled(f))
      : !onChannel.some((f) => isLive(f) && f.credit === 'alone');
  }
}

function outcomeOf(flow: Flow): FlowOutcome {
  const state = flow.counted ? (flow.counted.answer ?? 'waiting') : flow.state;
  const overlap = acceptedOverlap(flow);
  // The events its answer waited for: those of its overlap, and what settled the document flows that may have caused a
  // document session's event of its overlap (the event that showed its session, or its refusal).
  const shownAt = overlap.flatMap((f) => [...(f.documentSources ?? [])].map((d) => d.settledAt ?? 0));
  const lastEventAt = Math.max(0, ...overlap.map((f) => f.event?.receivedAt ?? 0), ...shownAt);
  return {
    state,
    sentAt: flow.sentAt,
    ...(flow.event ? { event: flow.event } : {}),
    ...(flow.counted ? { overlap: overlap.length } : {}),
    ...(state === 'answered' && lastEventAt > 0 ? { lastEventAt } : {}),
    ...(flow.counted?.why && state === 'ambiguous' ? { why: flow.counted.why } : {}),
  };
}
