import type { Verdict } from '../verdict.ts';
import { describeDelivery } from '../checks/webhook-events.ts';
import { eventKind, type EventKind } from './events.ts';
import type { RunEvents } from './run-events.ts';
import type { DeliveryRecord } from './run-events.ts';
import { isObject } from '../../schemas/json-value.ts';

const INQUIRY = 'EVT-RESULTS-INQUIRY';
const SAME_SESSION = 'EVT-DOC-SESSION-ID';

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

/**
 * EVT-RESULTS-INQUIRY, once the wait is over. Other flows of this run, other runs and other clients may post document
 * results events to the same receiver, so an event that is not ours proves nothing on its own: a results event
 * carrying our inquiryId passes. When none arrived, the results events that did arrive since our request are the
 * evidence: one carrying an inquiry of this run's other flows (every inquiry the config generates holds the run tag)
 * is accounted for; any other one may be ours with a wrong inquiryId, so the requirement fails with them listed.
 * With no results event at all, the target did not report within the wait (EVT-FLOW-DELIVERY fails), so this check
 * is blocked.
 */
export function expectResultsForInquiry(
  verdict: Verdict,
  window: Window,
  arrived: readonly DeliveryRecord[],
  inquiryId: string,
  runTag: string,
  tied: DeliveryRecord | undefined,
): void {
  if (tied) {
    verdict.check(INQUIRY, true, () => ({ expected: '', actual: '' }));
    return;
  }
  const results = arrived.filter(ofKind('results'));
  const unaccounted = results.filter((d) => {
    const other = field(d, 'inquiryId');
    return !(typeof other === 'string' && other.includes(runTag));
  });
  if (unaccounted.length === 0) {
    const reason =
      results.length === 0
        ? 'no document results event arrived'
        : `only document results events of this run's other inquiries arrived (${results.length})`;
    verdict.blockedWithoutStopping(
      [INQUIRY],
      `${reason} within WEBHOOK_WAIT_MS (${window.timeoutMs} ms) of the document verification`,
    );
    return;
  }
  verdict.check(INQUIRY, false, () => ({
    expected: `a document results event with inquiryId ${JSON.stringify(inquiryId)} within WEBHOOK_WAIT_MS (${window.timeoutMs} ms) of the document verification`,
    actual: `none; ${unaccounted.length} document results event${unaccounted.length === 1 ? '' : 's'} with another inquiryId arrived instead`,
    details: unaccounted.slice(0, 8).map((d) => describeDelivery(verdict, d)),
  }));
}

/**
 * EVT-DOC-SESSION-ID (INFO: 6.1 carries no inquiry, so which onboarding event is a flow's is tied only loosely), once
 * the wait is over: whether the onboarding event of the session whose results event is ours carries its sessionId.
 */
export function expectOnboardingOfSession(
  verdict: Verdict,
  window: Window,
  arrived: readonly DeliveryRecord[],
  resultsEvent: DeliveryRecord,
  same: DeliveryRecord | undefined,
): void {
  if (same)
    return verdict.observe(
      SAME_SESSION,
      `an onboarding event carries the sessionId of the results event, ${JSON.stringify(field(resultsEvent, 'sessionId'))}`,
    );
  const others = arrived.filter(ofKind('onboarding'));
  verdict.observe(
    SAME_SESSION,
    others.length === 0
      ? `no document onboarding event arrived within WEBHOOK_WAIT_MS (${window.timeoutMs} ms) of the document verification`
      : `none of the ${others.length} onboarding event${others.length === 1 ? '' : 's'} that arrived carries the sessionId of the results event, ${JSON.stringify(field(resultsEvent, 'sessionId'))}`,
  );
}
