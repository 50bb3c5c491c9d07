import { eventKind, type EventKind } from './events.ts';
import type { RunEvents } from './run-events.ts';
import type { DeliveryRecord } from './run-events.ts';
import { isObject } from '../../schemas/json-value.ts';

export const field = (d: DeliveryRecord, name: string): unknown => (isObject(d.json) ? d.json[name] : undefined);
export const ofKind = (kind: EventKind) => (d: DeliveryRecord) => eventKind(d.json) === kind;

/** A flow's events are awaited from its request until its window ends (WEBHOOK_WAIT_MS later). */
export interface Window {
  events: RunEvents;
  /** When the flow's request was sent (ms since the epoch): deliveries before it cannot be the flow's. */
  since: number;
  timeoutMs: number;
}

const deadlineOf = (window: Window) => window.since + window.timeoutMs;

/** Waits for the document results event carrying this inquiryId (the one id 6.2 gives to tie it to its flow). */
export function awaitResultsOfInquiry(window: Window, inquiryId: string): Promise<DeliveryRecord | undefined> {
  return window.events.results(inquiryId, window.since, deadlineOf(window));
}

/** Waits for the document onboarding event with the sessionId of a results event. */
export function awaitOnboardingOfSession(
  window: Window,
  resultsEvent: DeliveryRecord,
): Promise<DeliveryRecord | undefined> {
  const sessionId = field(resultsEvent, 'sessionId');
  if (typeof sessionId !== 'string') return Promise.resolve(undefined);
  return window.events.onboarding(sessionId, window.since, deadlineOf(window));
}
