import type { EventWaits } from '../../reporters/run-facts.ts';
import { join } from 'node:path';
import type { SuiteConfig } from '../../kit/config/suite-config.ts';
import type { Redactor } from '../../kit/redact.ts';
import type { MessageChannel } from '../../kit/checks/session-channel.ts';
import { isObject } from '../../schemas/json-value.ts';
import { eventKind } from '../../kit/webhooks/events.ts';
import { WebhookReceiver, type Delivery } from './receiver.ts';
import { StepUpFlows } from './step-up-flows.ts';
import type { RunProgress } from '../run-progress.ts';
import { within } from '../long-poll.ts';
import type { DeliveryRecord } from '../../kit/webhooks/run-events.ts';
import type { Credit } from '../../kit/webhooks/run-events.ts';
import { knownPath, type KnownPath } from '../doctor/webhook-probe.ts';

/**
 * The run's webhook receiver, in the runner process from the global setup to the end of the run (runner/), and
 * what the flows of every project ask of it through the run's broker: the deliveries since a time, the document events
 * of an inquiry or a session, and the verification session event of each step-up (runner/webhooks/step-up-flows.ts).
 * Workers reach it with runner/webhooks/events-client.ts; a worker restarted after a failure loses nothing.
 */

/** The longest one request of a worker waits here; a longer wait is asked again (HTTP clients time out idle requests). */
export const LONGEST_POLL_MS = 25_000;
/** How long the receiver must be quiet before the run's last deliveries are taken as in. */
const QUIET_MS = 300;

export type HubRoute = (body: Record<string, unknown>) => Promise<unknown>;

export class EventHub {
  readonly receiver: WebhookReceiver;
  readonly stepUps: StepUpFlows;
  /** Document verifications whose events a flow awaited. */
  private documentFlows = 0;
  private readonly waits = { awaited: 0, latestDelayMs: 0, longestLagMs: 0 };
  /** Step-ups waiting for their channel, by the id of the worker's request (runner/webhooks/events-client.ts). */
  private readonly beginning = new Map<string, Promise<{ ticket: string; sentAt: number }>>();

  readonly port: number;
  /** WEBHOOK_LISTEN as configured, for messages. */
  readonly listen: string;
  private known: KnownPath | undefined;

  /** @param progress which tests of the run have not ended (runner/run-progress.ts), when a reporter keeps it. */
  constructor(
    private readonly config: SuiteConfig,
    redactor: Redactor,
    outputDir: string,
    private readonly progress: () => RunProgress | undefined = () => undefined,
  ) {
    this.port = config.webhook.port;
    this.listen = `${config.webhook.host}:${config.webhook.port}`;
    const name = `webhook-deliveries-${config.webhook.port}-${config.runTag}.jsonl`.replace(/[^A-Za-z0-9.-]+/g, '-');
    this.receiver = new WebhookReceiver({
      host: config.webhook.host,
      port: config.webhook.port,
      journal: { path: join(outputDir, name), redactor },
      onDelivery: (d) => this.stepUps.deliver(d),
    });
    this.stepUps = new StepUpFlows(config.webhook.waitMs);
  }

  /**
   * The way from the target to this receiver as the run knows it: from the configuration until the global setup gives
   * it the preflight's probe. A flow whose event never came reads it when nothing at all reached the receiver.
   */
  get path(): KnownPath {
    return (this.known ??= knownPath(this.config));
  }

  set path(path: KnownPath) {
    this.known = path;
  }

  start(): Promise<void> {
    return this.receiver.start();
  }

  async close(): Promise<void> {
    this.stepUps.close();
    await this.receiver.close();
  }

  /** What the flows waited for so far (the run's summary prints it). */
  stats(): EventWaits {
    return { ...this.waits, deliveries: this.receiver.deliveries().length };
  }

  /** A flow got `event`, sent `sentAt`; its wait ended now, after the last event it waited for (`lastAt`, a counted step-up's overlap's). */
  private waited(sentAt: number, event: DeliveryRecord, lastAt = event.receivedAt): void {
    this.waits.awaited += 1;
    this.waits.latestDelayMs = Math.max(this.waits.latestDelayMs, event.receivedAt - sentAt);
    this.waits.longestLagMs = Math.max(this.waits.longestLagMs, Date.now() - lastAt);
  }

  /** The broker's routes for the workers (runner/broker.ts serves them), under eventsPath of the receiver's port. */
  routes(): Record<string, HubRoute> {
    const prefix = eventsPath(this.port);
    const poll = (body: Record<string, unknown>) =>
      Math.max(0, Math.min(LONGEST_POLL_MS, Number(body['timeoutMs']) || 0));
    const since = (body: Record<string, unknown>) => Number(body['since']) || 0;
    return {
      [`${prefix}/since`]: async (body) => this.receiver.since(since(body)).map(recordOf),
      [`${prefix}/path`]: async () => ({ deliveries: this.receiver.deliveries().length, ...this.path }),
      [`${prefix}/document/started`]: async () => {
        this.documentFlows += 1;
        return {};
      },
      [`${prefix}/results`]: async (body) => {
        const inquiryId = body['inquiryId'];
        const found = await this.receiver.waitFor(
          (d) => eventKind(d.json) === 'results' && field(d, 'inquiryId') === inquiryId,
          { since: since(body), timeoutMs: poll(body) },
        );
        if (found) this.waited(since(body), found);
        return { event: found ? recordOf(found) : null };
      },
      [`${prefix}/onboarding`]: async (body) => {
        const sessionId = body['sessionId'];
        const found = await this.receiver.waitFor(
          (d) => eventKind(d.json) === 'onboarding' && field(d, 'sessionId') === sessionId,
          { since: since(body), timeoutMs: poll(body) },
        );
        return { event: found ? recordOf(found) : null };
      },
      [`${prefix}/step-up/begin`]: async (body) => {
        // Asked again with the same request id until granted: a wait for a channel may outlast one poll.
        const id = String(body['request']);
        let granted = this.beginning.get(id);
        if (!granted) {
          granted = this.stepUps.begin(channelOf(body['channel']), creditOf(body['credit']));
          this.beginning.set(id, granted);
        }
        const ticket = await within(granted, poll(body), undefined);
        if (ticket) this.beginning.delete(id);
        return { ticket: ticket ?? null };
      },
      [`${prefix}/step-up/answered`]: async (body) => {
        this.stepUps.answered(String(body['ticket']), body['accepted'] === true);
        return {};
      },
      [`${prefix}/step-up/outcome`]: async (body) => {
        const outcome = await this.stepUps.outcome(String(body['ticket']), poll(body));
        if (outcome?.event && outcome.state === 'answered')
          this.waited(outcome.sentAt, outcome.event, outcome.lastEventAt);
        return {
          outcome: outcome ? { ...outcome, ...(outcome.event ? { event: recordOf(outcome.event) } : {}) } : null,
        };
      },
      [`${prefix}/others-ended`]: async (body) => {
        const ended =
          this.progress()
            ?.othersEnded(this.port, String(body['testId']))
            .then(() => true) ?? Promise.resolve(true);
        return { done: await within(ended, poll(body), false) };
      },
      [`${prefix}/settle`]: async (body) => {
        const until = Date.now() + poll(body);
        await within(this.stepUps.settled(), poll(body), undefined);
        // Deliveries no flow awaits (other projects' document verifications) may still be on their way: a quiet moment.
        if (this.stepUps.live === 0) await this.receiver.settle(QUIET_MS, Math.max(0, until - Date.now()));
        return { live: this.stepUps.live, flows: this.stepUps.started + this.documentFlows };
      },
    };
  }
}

/**
 * Where the workers ask the receiver listening on `port` (WEBHOOK_LISTEN's): a run has one, the proof's run one per
 * target, each with its own port.
 */
export const eventsPath = (port: number) => `/events/${port}`;

const field = (d: DeliveryRecord, name: string): unknown => (isObject(d.json) ? d.json[name] : undefined);

function channelOf(value: unknown): MessageChannel {
  if (value === 'phone' || value === 'email') return value;
  throw new Error(`channel must be phone or email, not ${JSON.stringify(value)}`);
}

function creditOf(value: unknown): Credit {
  if (value === 'none' || value === 'counted' || value === 'alone') return value;
  throw new Error(`credit must be none, counted or alone, not ${JSON.stringify(value)}`);
}

/** A delivery as a worker reads it: without the raw body bytes. */
export function recordOf(delivery: Delivery | DeliveryRecord): DeliveryRecord {
  const { body: _body, ...record } = delivery as Delivery;
  return record;
}
