import type { MessageChannel } from './session-channel.ts';
import { mediaTypeOf } from '../http/media-type.ts';

// The run's webhook receiver as a check sees it: what arrived, and each step-up's place among the run's step-ups.
// The runner keeps the receiver (runner/webhooks/) and hands every worker a view of it (runner/webhooks/events-client.ts).

/** How reading a delivery ended: the whole body, stopped at the size limit, cut short, or not HTTP at all. */
export type DeliveryOutcome = 'complete' | 'oversize' | 'incomplete' | 'not-http';

/** One request that reached the receiver, as the checks read it (also what the journal holds, redacted). */
export interface DeliveryRecord {
  /** Arrival order within one receiver, from 1. */
  seq: number;
  /** When the request head arrived, in ms since the epoch. */
  receivedAt: number;
  /** When the body was read, or reading stopped. */
  endedAt: number;
  method: string;
  path: string;
  headers: Array<[string, string]>;
  /** Body bytes the sender sent before reading ended (more than were kept when oversize). */
  bodyBytes: number;
  outcome: DeliveryOutcome;
  /** Why reading ended early, when it did. */
  problem?: string;
  /** The parsed body, when the whole body was read and is JSON (whatever its Content-Type). */
  json?: unknown;
  jsonError?: string;
  /** The start of the body as text, for evidence. */
  bodyPreview: string;
}

/** The media type a delivery was labelled with, lower case, without parameters. */
export function deliveryMediaType(delivery: Pick<DeliveryRecord, 'headers'>): string | undefined {
  return mediaTypeOf(delivery.headers.find(([name]) => name === 'content-type')?.[1]);
}

export type Credit = 'none' | 'counted' | 'alone';

export type FlowState = 'sending' | 'waiting' | 'answered' | 'expired' | 'dropped' | 'ambiguous';

export interface FlowOutcome {
  state: FlowState;
  /** When the flow's request went out (ms since the epoch). */
  sentAt: number;
  event?: DeliveryRecord;
  /** A counted flow's overlap: the accepted step-ups live at some moment between its request and its answer, itself included. */
  overlap?: number;
  /** When the last event of a counted flow's overlap arrived (ms since the epoch): the one its answer waited for. */
  lastEventAt?: number;
  /** Why a counted flow's count proved nothing (ambiguous), in words. */
  why?: string;
}

/** A flow's place among the run's flows (runner/webhooks/step-up-flows.ts). */
export interface StepUpTicket {
  ticket: string;
  /** When its request may go out, and from when its event may come (ms since the epoch). */
  sentAt: number;
}

/** What the run's flows are told of a step-up besides its channel. */
export interface StepUpAbout {
  /** It carried images: its session may belong to a document verification flow (6.3 docVerification true). */
  images?: boolean;
  /** The test that sent it, for the summary ("stepup › a step-up by email …"). */
  label?: string;
}

/**
 * A request that may start a document verification session: a document verification (4.3), or a step-up with images
 * and no message channel. Its session may be reported by a verification session event with docVerification true.
 */
export interface DocumentAbout {
  /** The inquiry its document results event (6.2) will carry, when the request named one. */
  inquiryId?: string;
  label?: string;
  /** A step-up with images and no message channel (else a document verification). */
  stepUp?: boolean;
}

/** What every worker sends the run's flows through: each step-up waits for its channel and is registered with the receiver. */
export interface StepUpGate {
  begin(channel: MessageChannel, credit: Credit, about?: StepUpAbout): Promise<StepUpTicket>;
  /** Registers a request that may start a document verification session (it waits for nothing). */
  beginDocument(about: DocumentAbout): Promise<StepUpTicket>;
  /** Its answer came; an accepted document verification names the inquiry of its session when its request did not. */
  answered(ticket: StepUpTicket, accepted: boolean, inquiryId?: string): Promise<void>;
}

/** What the run knows of the way from the target to its receiver, when a flow's event never came. */
export interface ReceiverPath {
  /** Deliveries that reached the receiver so far (the tester's own probes not counted). */
  deliveries: number;
  /**
   * The way is proven: the target, on this machine, posts to the receiver's own address or to a URL the preflight's
   * probe proved reaches it. Then a missing event is the target's; otherwise the public URL is a suspect too.
   */
  proven: boolean;
  /** What the preflight's probe of WEBHOOK_PUBLIC_URL found, or why there was none, in words. */
  probe: string;
}

/** The run's receiver as a worker reaches it: every wait ends as soon as the awaited event is there. */
export interface RunEvents extends StepUpGate {
  /** How many deliveries reached the receiver so far, and what the run knows of the way to it. */
  receiverPath(): Promise<ReceiverPath>;
  /** Every delivery whose request arrived at or after `since` (ms since the epoch), in arrival order. */
  since(since: number): Promise<DeliveryRecord[]>;
  /** Every delivery of the run so far. */
  all(): Promise<DeliveryRecord[]>;
  /** The first document results event carrying `inquiryId` that arrived since `since`, waiting until `deadline`. */
  results(inquiryId: string, since: number, deadline: number): Promise<DeliveryRecord | undefined>;
  /** The first document onboarding event of `sessionId` that arrived since `since`, waiting until `deadline`. */
  onboarding(sessionId: string, since: number, deadline: number): Promise<DeliveryRecord | undefined>;
  /** The step-up's outcome: its event, or its window's end, or for a counted one the count's answer. */
  stepUpOutcome(ticket: StepUpTicket): Promise<FlowOutcome>;
  /** Waits until every other test of the run that sends to this receiver's target has ended. */
  othersEnded(testId: string): Promise<void>;
  /** Waits until every step-up of the run has its event or its window ended (at most until `deadline`). */
  settle(deadline: number): Promise<{ flows: number; live: number }>;
  /** Passive mode: listens until `deadline` for whatever comes (the summary reports it as listening, not as a wait). */
  listen(deadline: number): Promise<void>;
}
