import type { EventWaits, WindowEnd } from '../../reporters/run-facts.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SuiteConfig } from '../../kit/config/suite-config.ts';
import type { Redactor } from '../../kit/redact.ts';
import type { MessageChannel } from '../../kit/webhooks/session-channel.ts';
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
/**
 * The longest the run-end check waits for the deliveries no flow awaits (other projects' document events), from when it
 * began to settle. Against a far target they come as a stream for as long as its events are late, with no quiet moment
 * between them, and no check awaits them: what has come by then is judged.
 */
const UNAWAITED_MS = 1000;

export type HubRoute = (body: Record<string, unknown>) => Promise<unknown>;

export class EventHub {
  readonly receiver: WebhookReceiver;
  readonly stepUps: StepUpFlows;
  private readonly waits = { awaited: 0, latestDelayMs: 0, longestLagMs: 0 };
  /** Every wait that ended on its window rather than on an event. */
  private readonly windowEnds: WindowEnd[] = [];
  /** The run-end check's wait for the run's step-ups, from its first ask; passive mode's listening likewise. */
  private settling: number | undefined;
  private listening: { from: number; ms?: number } | undefined;
  private readonly mode: 'active' | 'passive';
  private readonly windowMs: number;
  /** Where the waits are written when the receiver closes, beside its journal (the proof reads them per target). */
  private readonly waitsPath: string;
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
    this.waitsPath = join(outputDir, waitsFileName(config.webhook.port, config.runTag));
    this.mode = config.webhook.mode === 'passive' ? 'passive' : 'active';
    this.windowMs = config.webhook.waitMs;
    this.receiver = new WebhookReceiver({
      host: config.webhook.host,
      port: config.webhook.port,
      journal: { path: join(outputDir, name), redactor },
      onDelivery: (d) => this.stepUps.deliver(d),
    });
    this.stepUps = new StepUpFlows(config.webhook.waitMs, Date.now, (end) => this.windowEnds.push(end));
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

  /** Ends every wait and stops listening; at the end of a run that ran, `writeWaits` writes them beside the journal. */
  async close(options: { writeWaits?: boolean } = {}): Promise<void> {
    this.stepUps.close();
    await this.receiver.close();
    if (!options.writeWaits) return;
    try {
      writeFileSync(this.waitsPath, `${JSON.stringify(this.stats(), null, 2)}\n`);
    } catch {
      // The summary has them too; the file is for the proof's analysis.
    }
  }

  /** What the flows waited for so far (the run's summary prints it). */
  stats(): EventWaits {
    return {
      mode: this.mode,
      windowMs: this.windowMs,
      ...this.waits,
      windowEnds: [...this.windowEnds],
      ...(this.listening?.ms !== undefined ? { listenedMs: this.listening.ms } : {}),
      deliveries: this.receiver.deliveries().length,
    };
  }

  /** A flow got `event`, sent `sentAt`; its wait ended now, after the last event it waited for (`lastAt`, a counted step-up's overlap's). */
  private waited(sentAt: number, event: DeliveryRecord, lastAt = event.receivedAt): void {
    this.waits.awaited += 1;
    this.waits.latestDelayMs = Math.max(this.waits.latestDelayMs, event.receivedAt - sentAt);
    this.waits.longestLagMs = Math.max(this.waits.longestLagMs, Date.now() - lastAt);
  }

  /** A document wait (`kind`) for the event `awaits` names ended at its deadline without it. */
  private documentWaitEnded(kind: 'results' | 'onboarding', awaits: string, since: number, deadline: number): void {
    const endedAt = Date.now();
    const named = kind === 'results' ? 'inquiryId' : 'sessionId';
    const title = kind === 'results' ? 'document results event' : 'document onboarding event';
    const arrived = this.stepUps.arrivals(since, endedAt, [kind], (n) => {
      const value = kind === 'results' ? n.inquiryId : n.sessionId;
      if (value === awaits) return `it carries ${named} ${awaits}: it came after the wait ended`;
      return value === undefined ? `it carries no ${named}` : `it carries another ${named}, ${value}`;
    });
    const flow =
      kind === 'results'
        ? `the ${title} of the ${this.stepUps.documentOf(awaits, endedAt) ?? `document verification (inquiry ${awaits})`}`
        : `the ${title} of session ${awaits}, looked for briefly once its results event was in`;
    const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
    // An onboarding event is looked for from the document verification until a moment after its results event.
    const resultsAt = this.receiver
      .since(since)
      .find((d) => eventKind(d.json) === 'results' && field(d, 'sessionId') === awaits)?.receivedAt;
    const within =
      kind === 'onboarding' && resultsAt !== undefined
        ? `${seconds(deadline - resultsAt)} of its results event (${seconds(deadline - since)} after the document verification)`
        : seconds(deadline - since);
    this.windowEnds.push({
      kind,
      flow,
      awaits,
      startedAt: since,
      endedAt,
      windowMs: deadline - since,
      what:
        arrived.length === 0
          ? `no ${title} arrived within ${within}`
          : `no ${title} of its ${named} arrived within ${within}; ${arrived.length} other${arrived.length === 1 ? ' one' : 's'} did`,
      arrived,
    });
  }

  /** The broker's routes for the workers (runner/broker.ts serves them), under eventsPath of the receiver's port. */
  routes(): Record<string, HubRoute> {
    const prefix = eventsPath(this.port);
    const poll = (body: Record<string, unknown>) =>
      Math.max(0, Math.min(LONGEST_POLL_MS, Number(body['timeoutMs']) || 0));
    const since = (body: Record<string, unknown>) => Number(body['since']) || 0;
    const deadline = (body: Record<string, unknown>) => Number(body['deadline']) || 0;
    /** The longest this ask may wait: until the caller's deadline, one poll at most. */
    const untilDeadline = (body: Record<string, unknown>) =>
      Math.max(0, Math.min(LONGEST_POLL_MS, deadline(body) - Date.now()));
    /**
     * Whether this ask waits until the caller's deadline (else the caller asks again): decided before it waits, since a
     * timer may fire a millisecond before the clock reads its end. The answer says so (`over`): the wait is then done.
     */
    const reachesDeadline = (body: Record<string, unknown>) => deadline(body) - Date.now() <= LONGEST_POLL_MS;
    const label = (body: Record<string, unknown>) => (typeof body['label'] === 'string' ? body['label'] : '');
    return {
      [`${prefix}/since`]: async (body) => this.receiver.since(since(body)).map(recordOf),
      [`${prefix}/path`]: async () => ({ deliveries: this.receiver.deliveries().length, ...this.path }),
      [`${prefix}/results`]: async (body) => {
        const inquiryId = String(body['inquiryId']);
        const over = reachesDeadline(body);
        const found = await this.receiver.waitFor(
          (d) => eventKind(d.json) === 'results' && field(d, 'inquiryId') === inquiryId,
          { since: since(body), timeoutMs: untilDeadline(body) },
        );
        if (found) this.waited(since(body), found);
        else if (over) this.documentWaitEnded('results', inquiryId, since(body), deadline(body));
        return { event: found ? recordOf(found) : null, over: over || found !== undefined };
      },
      [`${prefix}/onboarding`]: async (body) => {
        const sessionId = String(body['sessionId']);
        const over = reachesDeadline(body);
        const found = await this.receiver.waitFor(
          (d) => eventKind(d.json) === 'onboarding' && field(d, 'sessionId') === sessionId,
          { since: since(body), timeoutMs: untilDeadline(body) },
        );
        if (!found && over) this.documentWaitEnded('onboarding', sessionId, since(body), deadline(body));
        return { event: found ? recordOf(found) : null, over: over || found !== undefined };
      },
      [`${prefix}/step-up/begin`]: async (body) => {
        // Asked again with the same request id until granted: a wait for a channel may outlast one poll.
        const id = String(body['request']);
        let granted = this.beginning.get(id);
        if (!granted) {
          granted = this.stepUps.begin(channelOf(body['channel']), creditOf(body['credit']), {
            images: body['images'] === true,
            label: label(body),
          });
          this.beginning.set(id, granted);
        }
        const ticket = await within(granted, poll(body), undefined);
        if (ticket) this.beginning.delete(id);
        return { ticket: ticket ?? null };
      },
      [`${prefix}/document/begin`]: async (body) => ({
        ticket: this.stepUps.beginDocument({
          ...(typeof body['inquiryId'] === 'string' ? { inquiryId: body['inquiryId'] } : {}),
          label: label(body),
          stepUp: body['stepUp'] === true,
        }),
      }),
      [`${prefix}/step-up/answered`]: async (body) => {
        const inquiryId = typeof body['inquiryId'] === 'string' ? body['inquiryId'] : undefined;
        this.stepUps.answered(String(body['ticket']), body['accepted'] === true, inquiryId);
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
        const settling = (this.settling ??= Date.now());
        const over = reachesDeadline(body);
        const until = Date.now() + untilDeadline(body);
        await within(this.stepUps.settled(), untilDeadline(body), undefined);
        const live = this.stepUps.live;
        if (live === 0) {
          const onWindow = this.stepUps.lastEndedOnWindow(settling);
          if (onWindow) this.runEndWaited(`it ended when the window of the ${onWindow} ended, the last step-up live`);
          // Deliveries no flow awaits (other projects' document verifications) may still be on their way: a quiet moment,
          // within UNAWAITED_MS of the settling's start.
          const unawaitedUntil = Math.min(until, settling + UNAWAITED_MS);
          await this.receiver.settle(QUIET_MS, Math.max(0, unawaitedUntil - Date.now()));
        } else if (over) {
          const flows = this.stepUps.liveFlows();
          this.runEndWaited(
            `its window ended with ${flows.length} step-up${flows.length === 1 ? '' : 's'} still without an event (${flows.slice(0, 3).join('; ')})`,
          );
        }
        return { live, flows: this.stepUps.started + this.stepUps.documentsStarted, over: over || live === 0 };
      },
      [`${prefix}/listen`]: async (body) => {
        this.listening ??= { from: Date.now() };
        const over = reachesDeadline(body);
        await new Promise((resolve) => setTimeout(resolve, untilDeadline(body)));
        if (over) this.listening.ms = Date.now() - this.listening.from;
        return { over };
      },
    };
  }

  /** The run-end check's wait for every step-up of the run ended on a window. */
  private runEndWaited(what: string): void {
    const startedAt = this.settling ?? Date.now();
    this.windowEnds.push({
      kind: 'run-end',
      flow: "the run-end check's wait for every step-up of the run",
      startedAt,
      endedAt: Date.now(),
      windowMs: this.windowMs,
      what,
      arrived: [],
    });
  }
}

/**
 * Where the workers ask the receiver listening on `port` (WEBHOOK_LISTEN's): a run has one, the proof's run one per
 * target, each with its own port.
 */
export const eventsPath = (port: number) => `/events/${port}`;

/** The file a receiver writes its waits to when it closes, in the run's output folder (the proof reads it per target). */
export const waitsFileName = (port: number, runTag: string) =>
  `webhook-waits-${port}-${runTag}.json`.replace(/[^A-Za-z0-9.-]+/g, '-');

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
