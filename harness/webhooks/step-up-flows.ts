import { randomUUID } from 'node:crypto';
import { channelTypeContradicts, type MessageChannel } from '../checks/session-channel.ts';
import { isObject } from '../../schemas/json-value.ts';
import { eventKind } from './events.ts';
import type { DeliveryRecord } from './receiver.ts';

/**
 * Which verification session event (6.3) is which step-up's, run-wide, in the runner process. 6.3 carries no id of the
 * case or inquiry, and the step-up answer (2.6) no session id, so an event is tied to a step-up by its channel and its
 * time alone:
 * - every accepted step-up of the run on one message channel is a flow, live from its request until its event arrives
 *   or its window (WEBHOOK_WAIT_MS from the request) ends;
 * - an event goes to the earliest live flow of its channel (channelType, an absent one being SMS_OTP by its documented
 *   default) whose request was sent before the event arrived, else to the earliest live flow of any channel (its
 *   channelType then names the other channel); never to a flow whose request came after it;
 * - a sessionId counts once: a redelivery, or a session that reached the receiver before any flow, is never credited;
 * - an event with docVerification true belongs to a document verification, not to a step-up.
 * A step-up whose event the webhook checks judge ("credited") runs alone on its channel: it waits until every live flow
 * of the channel has its event or its window has ended, and other step-ups of the channel wait while it is live. So the
 * event credited to it can only be its own, or one no step-up of this run caused (whatever reaches the receiver is the
 * target's to answer for: its address is given to the target under test alone).
 */

export type FlowState = 'sending' | 'waiting' | 'answered' | 'expired' | 'dropped';

export interface FlowOutcome {
  state: FlowState;
  /** When the flow's request went out (ms since the epoch). */
  sentAt: number;
  event?: DeliveryRecord;
  /** The event's channelType named the other channel than the flow's. */
  otherChannel?: boolean;
}

interface Flow extends FlowOutcome {
  ticket: string;
  channel: MessageChannel;
  credited: boolean;
  timer?: NodeJS.Timeout;
  waiters: Array<() => void>;
}

interface Waiting {
  channel: MessageChannel;
  credited: boolean;
  grant: (flow: Flow) => void;
}

const isLive = (flow: Flow) => flow.state === 'sending' || flow.state === 'waiting';

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
  begin(channel: MessageChannel, credited: boolean): Promise<{ ticket: string; sentAt: number }> {
    return new Promise((resolve) => {
      this.queue.push({ channel, credited, grant: (flow) => resolve({ ticket: flow.ticket, sentAt: flow.sentAt }) });
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

  /** The flow's outcome once it has its event or its window ended; its current state after `timeoutMs` otherwise. */
  outcome(ticket: string, timeoutMs: number): Promise<FlowOutcome | undefined> {
    const flow = this.flows.get(ticket);
    if (!flow || !isLive(flow)) return Promise.resolve(flow && outcomeOf(flow));
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

  /** Hands a delivery to the live flows; returns the ticket of the flow it was credited to, if any. */
  deliver(delivery: DeliveryRecord): string | undefined {
    const body = delivery.json;
    if (eventKind(body) !== 'session' || !isObject(body) || body['docVerification'] === true) return undefined;
    const session = typeof body['sessionId'] === 'string' && body['sessionId'] !== '' ? body['sessionId'] : `#${delivery.seq}`;
    if (this.seenSessions.has(session)) return undefined;
    this.seenSessions.add(session);
    const candidates = [...this.flows.values()].filter((f) => isLive(f) && f.sentAt <= delivery.receivedAt).sort((a, b) => a.sentAt - b.sentAt);
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
  }

  private finish(flow: Flow, state: FlowState): void {
    clearTimeout(flow.timer);
    flow.state = state;
    for (const waiter of flow.waiters.splice(0)) waiter();
    this.pump();
    if (this.live === 0 && this.queue.length === 0) for (const resolve of this.settledWaiters.splice(0)) resolve();
  }

  /** Grants, in order, every waiting request the channel rules allow now. */
  private pump(): void {
    for (let i = 0; i < this.queue.length; ) {
      const waiting = this.queue[i] as Waiting;
      if (!this.mayStart(waiting, i)) {
        i += 1;
        continue;
      }
      this.queue.splice(i, 1);
      const flow: Flow = { ticket: randomUUID(), channel: waiting.channel, credited: waiting.credited, state: 'sending', sentAt: this.now(), waiters: [] };
      // A worker that never reports the answer (it ended mid-request) holds its channel for one window at most.
      flow.timer = setTimeout(() => this.finish(flow, 'expired'), this.windowMs);
      this.flows.set(flow.ticket, flow);
      this.started += 1;
      waiting.grant(flow);
    }
  }

  /** A credited step-up starts on a channel with no live flow; another one while no credited one is live or queued before it. */
  private mayStart(waiting: Waiting, index: number): boolean {
    const onChannel = [...this.flows.values()].filter((f) => isLive(f) && f.channel === waiting.channel);
    const creditedBefore = this.queue.slice(0, index).some((q) => q.credited && q.channel === waiting.channel);
    if (creditedBefore) return false;
    return waiting.credited ? onChannel.length === 0 : !onChannel.some((f) => f.credited);
  }
}

function outcomeOf(flow: Flow): FlowOutcome {
  return { state: flow.state, sentAt: flow.sentAt, ...(flow.event ? { event: flow.event } : {}), ...(flow.otherChannel ? { otherChannel: true } : {}) };
}
