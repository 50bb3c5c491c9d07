import { randomUUID } from 'node:crypto';
import type { MessageChannel } from '../../kit/webhooks/session-channel.ts';
import type { BrokerClient } from '../broker-client.ts';
import { eventsPath, LONGEST_POLL_MS } from './event-hub.ts';
import type {
  Credit,
  DeliveryRecord,
  DocumentAbout,
  FlowOutcome,
  ReceiverPath,
  RunEvents,
  StepUpAbout,
  StepUpTicket,
} from '../../kit/webhooks/run-events.ts';

/** A long poll's answer: the event, or null; and whether the wait reached its deadline. */
interface Polled {
  event: DeliveryRecord | null;
  over: boolean;
}

/**
 * A worker's view of the run's webhook receiver, which lives in the runner process (runner/webhooks/event-hub.ts):
 * every wait is a long poll of at most LONGEST_POLL_MS, asked again until the caller's deadline, and ends as soon as the
 * awaited event is there.
 */
export class EventsClient implements RunEvents {
  private readonly prefix: string;

  /** The receiver listening on `port` (WEBHOOK_LISTEN's). */
  constructor(
    private readonly broker: BrokerClient,
    port: number,
  ) {
    this.prefix = eventsPath(port);
  }

  private ask<T>(route: string, body: unknown): Promise<T> {
    return this.broker.post<T>(`${this.prefix}${route}`, body);
  }

  /** Every delivery whose request arrived at or after `since` (ms since the epoch), in arrival order. */
  since(since: number): Promise<DeliveryRecord[]> {
    return this.ask('/since', { since });
  }

  /** How many deliveries reached the receiver so far, and what the run knows of the way to it. */
  receiverPath(): Promise<ReceiverPath> {
    return this.ask('/path', {});
  }

  /** Every delivery of the run so far. */
  all(): Promise<DeliveryRecord[]> {
    return this.since(0);
  }

  /** The first document results event carrying `inquiryId` that arrived since `since`, waiting until `deadline`. */
  results(inquiryId: string, since: number, deadline: number): Promise<DeliveryRecord | undefined> {
    return this.polled(() => this.ask<Polled>('/results', { inquiryId, since, deadline }));
  }

  /** The first document onboarding event of `sessionId` that arrived since `since`, waiting until `deadline`. */
  onboarding(sessionId: string, since: number, deadline: number): Promise<DeliveryRecord | undefined> {
    return this.polled(() => this.ask<Polled>('/onboarding', { sessionId, since, deadline }));
  }

  async begin(channel: MessageChannel, credit: Credit, about: StepUpAbout = {}): Promise<StepUpTicket> {
    const request = randomUUID();
    for (;;) {
      const { ticket } = await this.ask<{ ticket: StepUpTicket | null }>('/step-up/begin', {
        request,
        channel,
        credit,
        ...about,
        timeoutMs: LONGEST_POLL_MS,
      });
      if (ticket) return ticket;
    }
  }

  async beginDocument(about: DocumentAbout): Promise<StepUpTicket> {
    const { ticket } = await this.ask<{ ticket: StepUpTicket }>('/document/begin', about);
    return ticket;
  }

  async answered(ticket: StepUpTicket, accepted: boolean, inquiryId?: string): Promise<void> {
    await this.ask('/step-up/answered', { ticket: ticket.ticket, accepted, ...(inquiryId ? { inquiryId } : {}) });
  }

  /** The step-up's outcome: its event, or its window's end (WEBHOOK_WAIT_MS from its request), or for a counted one the count's answer. */
  async stepUpOutcome(ticket: StepUpTicket): Promise<FlowOutcome> {
    for (;;) {
      const { outcome } = await this.ask<{ outcome: FlowOutcome | null }>('/step-up/outcome', {
        ticket: ticket.ticket,
        timeoutMs: LONGEST_POLL_MS,
      });
      if (!outcome) throw new Error(`The run's receiver knows no step-up ${ticket.ticket}`);
      if (outcome.state !== 'sending' && outcome.state !== 'waiting') return outcome;
    }
  }

  /** Waits until every other test of the run that sends to this receiver's target has ended (runner/run-progress.ts). */
  async othersEnded(testId: string): Promise<void> {
    for (;;) {
      const { done } = await this.ask<{ done: boolean }>('/others-ended', { testId, timeoutMs: LONGEST_POLL_MS });
      if (done) return;
    }
  }

  /**
   * Waits until every step-up of the run has its event or its window ended (at most until `deadline`); returns how many
   * flows the run registered and how many are still live.
   */
  async settle(deadline: number): Promise<{ flows: number; live: number }> {
    for (;;) {
      const { flows, live, over } = await this.ask<{ flows: number; live: number; over: boolean }>('/settle', {
        deadline,
      });
      if (over) return { flows, live };
    }
  }

  /** Passive mode: listens until `deadline` (the receiver records it as listening, not as a wait). */
  async listen(deadline: number): Promise<void> {
    for (;;) {
      const { over } = await this.ask<{ over: boolean }>('/listen', { deadline });
      if (over) return;
    }
  }

  /** Asks until the event is there or the receiver says the wait is over; it waits one poll at most per ask. */
  private async polled(ask: () => Promise<Polled>): Promise<DeliveryRecord | undefined> {
    for (;;) {
      const { event, over } = await ask();
      if (event) return event;
      if (over) return undefined;
    }
  }
}
