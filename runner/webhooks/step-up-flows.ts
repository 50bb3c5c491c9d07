import { randomUUID } from 'node:crypto';
import { channelTypeContradicts, type MessageChannel } from '../../kit/checks/session-channel.ts';
import { isObject } from '../../schemas/json-value.ts';
import { eventKind } from '../../kit/webhooks/events.ts';
import type { Credit, DeliveryRecord, FlowOutcome, FlowState } from '../../kit/webhooks/run-events.ts';

/**
 * Which verification session event (6.3) is which step-up's, run-wide, in the runner process. 6.3 carries no id of the
 * case or inquiry, and the step-up answer (2.6) no session id, so an event is tied to a step-up by its channel and its
 * time alone:
 * - every accepted step-up of the run is a flow, live from its request until an event is given to it or its window
 *   (WEBHOOK_WAIT_MS from the request) ends;
 * - an event goes to the earliest live flow of its channel (channelType, an absent one being SMS_OTP by its documented
 *   default) whose request was sent before the event arrived, else to the earliest live flow of any channel (its
 *   channelType then names the other channel); never to a flow whose request came after it;
 * - a sessionId counts once: a redelivery, or a session that reached the receiver before any flow, is never given;
 * - an event with docVerification true belongs to a document verification, not to a step-up.
 * Which live flow takes an event is a guess when several are live; the webhook checks judge a step-up's event only
 * where the guess is proven ("credit"):
 * - none: no check judges the flow's event (the step-ups of every other test); it waits only for an "alone" flow.
 * - counted: the flow runs beside every other, and is answered once every flow live at some moment since its request
 *   (its overlap, itself included, on any channel) has been given an event, before its window ends. Those events all
 *   arrived after its request, as many as the flows; so, as no step-up causes two sessions, one of them is its own.
 *   When a flow of its overlap ends without an event, or its window ends before the overlap is answered, the count
 *   proves nothing: the flow is "ambiguous" (and the check sends a step-up again, alone); alone in its overlap, it has
 *   "expired".
 * - alone: the flow starts on a channel with no live flow, and no other flow of the channel starts while it is live, so
 *   the event given to it can only be its own, or one no step-up of this run caused (whatever reaches the receiver is
 *   the target's to answer for: its address is given to the target under test alone).
 */

interface Flow extends FlowOutcome {
  ticket: string;
  channel: MessageChannel;
  credit: Credit;
  timer?: NodeJS.Timeout;
  waiters: Array<() => void>;
  /** A counted flow's overlap, and its answer once the count has proven it or cannot. */
  counted?: { overlap: Set<Flow>; answer?: FlowState; deadline: NodeJS.Timeout };
}

interface Waiting {
  channel: MessageChannel;
  credit: Credit;
  grant: (flow: Flow) => void;
}

const isLive = (flow: Flow) => flow.state === 'sending' || flow.state === 'waiting';
/** Whether the flow's outcome may still change: a counted flow's until the count has its answer. */
const isPending = (flow: Flow) => (flow.counted ? flow.counted.answer === undefined : isLive(flow));
/** A counted flow's overlap as the count sees it: a refused step-up is no flow. */
const acceptedOverlap = (flow: Flow) => [...(flow.counted?.overlap ?? [])].filter((f) => f.state !== 'dropped');

export class StepUpFlows {
  private readonly flows = new Map<string, Flow>();
  private readonly queue: Waiting[] = [];
  private readonly seenSessions = new Set<string>();
  private readonly settledWaiters: Array<() => void> = [];
  /** Step-ups registered in the run, credited or not. */
  started = 0;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A ticket to send a step-up on `channel` once the channel allows it (see above); its request goes out right after. */
  begin(channel: MessageChannel, credit: Credit): Promise<{ ticket: string; sentAt: number }> {
    return new Promise((resolve) => {
      this.queue.push({ channel, credit, grant: (flow) => resolve({ ticket: flow.ticket, sentAt: flow.sentAt }) });
      this.pump();
    });
  }

  /** The step-up's answer came: an accepted one waits for its event until its window ends; a refused one is no flow. */
  answered(ticket: string, accepted: boolean): void {
    const flow = this.flows.get(ticket);
    if (!flow || flow.state !== 'sending') return;
    if (!accepted) return this.finish(flow, 'dropped');
    clearTimeout(flow.timer);
    flow.state = 'waiting';
    const left = flow.sentAt + this.windowMs - this.now();
    if (left <= 0) return this.finish(flow, 'expired');
    flow.timer = setTimeout(() => this.finish(flow, 'expired'), left);
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

  /** Hands a delivery to the live flows; returns the ticket of the flow it was given to, if any. */
  deliver(delivery: DeliveryRecord): string | undefined {
    const body = delivery.json;
    if (eventKind(body) !== 'session' || !isObject(body) || body['docVerification'] === true) return undefined;
    const session =
      typeof body['sessionId'] === 'string' && body['sessionId'] !== '' ? body['sessionId'] : `#${delivery.seq}`;
    if (this.seenSessions.has(session)) return undefined;
    this.seenSessions.add(session);
    const candidates = [...this.flows.values()]
      .filter((f) => isLive(f) && f.sentAt <= delivery.receivedAt)
      .sort((a, b) => a.sentAt - b.sentAt);
    const agreeing = candidates.find((f) => !channelTypeContradicts(f.channel, body['channelType']));
    const flow = agreeing ?? candidates[0];
    if (!flow) return undefined;
    flow.event = delivery;
    if (!agreeing) flow.otherChannel = true;
    this.finish(flow, 'answered');
    return flow.ticket;
  }

  /** How many flows are live (a request sent or its event awaited). */
  get live(): number {
    return [...this.flows.values()].filter(isLive).length;
  }

  /** Resolves once no flow is live: every accepted step-up of the run has its event, or its window ended. */
  settled(): Promise<void> {
    if (this.live === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** Ends every flow's wait (the run is over). */
  close(): void {
    for (const flow of this.flows.values()) if (isLive(flow)) this.finish(flow, 'expired');
    for (const flow of this.flows.values()) if (flow.counted && isPending(flow)) this.conclude(flow, 'ambiguous');
  }

  private finish(flow: Flow, state: FlowState): void {
    clearTimeout(flow.timer);
    flow.state = state;
    if (!flow.counted) this.release(flow);
    this.count();
    this.pump();
    if (this.live === 0 && this.queue.length === 0) for (const resolve of this.settledWaiters.splice(0)) resolve();
  }

  private release(flow: Flow): void {
    for (const waiter of flow.waiters.splice(0)) waiter();
  }

  /** Gives each counted flow its answer once its overlap proves it, or can no longer (see Credit). */
  private count(): void {
    for (const flow of this.flows.values()) {
      if (!flow.counted || !isPending(flow)) continue;
      const overlap = acceptedOverlap(flow);
      if (flow.state === 'dropped') this.conclude(flow, 'dropped');
      else if (overlap.some((f) => f.state === 'expired'))
        this.conclude(flow, overlap.length === 1 ? 'expired' : 'ambiguous');
      else if (overlap.every((f) => f.state === 'answered')) this.conclude(flow, 'answered');
    }
  }

  private conclude(flow: Flow, answer: FlowState): void {
    const counted = flow.counted as NonNullable<Flow['counted']>;
    clearTimeout(counted.deadline);
    counted.answer = answer;
    this.release(flow);
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
      credit: waiting.credit,
      state: 'sending',
      sentAt: this.now(),
      waiters: [],
    };
    // A worker that never reports the answer (it ended mid-request) holds its channel for one window at most.
    flow.timer = setTimeout(() => this.finish(flow, 'expired'), this.windowMs);
    for (const other of this.flows.values()) if (other.counted && isPending(other)) other.counted.overlap.add(flow);
    if (waiting.credit === 'counted') {
      const overlap = new Set([...this.flows.values()].filter(isLive).concat(flow));
      // Its window's end: without its event it has expired (count() concludes); with it, its overlap was not answered in time.
      const deadline = setTimeout(
        () => (isLive(flow) ? this.finish(flow, 'expired') : this.conclude(flow, 'ambiguous')),
        this.windowMs,
      );
      flow.counted = { overlap, deadline };
    }
    this.flows.set(flow.ticket, flow);
    this.started += 1;
    waiting.grant(flow);
  }

  /** An alone step-up starts on a channel with no live flow; any other while no alone one is live or queued before it. */
  private mayStart(waiting: Waiting, index: number): boolean {
    const onChannel = [...this.flows.values()].filter((f) => isLive(f) && f.channel === waiting.channel);
    const aloneBefore = this.queue.slice(0, index).some((q) => q.credit === 'alone' && q.channel === waiting.channel);
    if (aloneBefore) return false;
    return waiting.credit === 'alone' ? onChannel.length === 0 : !onChannel.some((f) => f.credit === 'alone');
  }
}

function outcomeOf(flow: Flow): FlowOutcome {
  const state = flow.counted ? (flow.counted.answer ?? 'waiting') : flow.state;
  const overlap = acceptedOverlap(flow);
  const lastEventAt = Math.max(0, ...overlap.map((f) => f.event?.receivedAt ?? 0));
  return {
    state,
    sentAt: flow.sentAt,
    ...(flow.event ? { event: flow.event } : {}),
    ...(flow.otherChannel ? { otherChannel: true } : {}),
    ...(flow.counted ? { overlap: overlap.length } : {}),
    ...(state === 'answered' && lastEventAt > 0 ? { lastEventAt } : {}),
  };
}
