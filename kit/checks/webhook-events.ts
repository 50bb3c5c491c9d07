import { describeIssues } from '../../schemas/registry.ts';
import { isJsonMediaType } from '../http/media-type.ts';
import type { Verdict } from '../verdict.ts';
import {
  eventKind,
  eventSchema,
  fieldsFor,
  isUndeterminedEvent,
  issuesByRequirement,
  kindTitle,
  requirementsOf,
  schemaRequirement,
  type EventKind,
} from '../webhooks/events.ts';
import { deliveryMediaType, type DeliveryRecord } from '../webhooks/run-events.ts';
import { field, ofKind, type Window } from '../webhooks/ties.ts';
import type { Exchange } from '../http/exchange.ts';
import { isObject } from '../../schemas/json-value.ts';
import { memberOrDefault } from '../case/documented-default.ts';
import { channelTypeContradicts, type MessageChannel } from '../webhooks/session-channel.ts';

/**
 * The webhook events of part 6 as the run's receiver recorded them: each delivery well formed, each event valid
 * against its schema, a flow followed by an event of its own, the document events tied to their inquiry and session.
 */

/** Deliveries listed in one failure message; the rest are counted. */
const LISTED = 8;
const SHOWN_BODY = 300;

/** One line of evidence about a delivery: what arrived, when, how it was labelled, and its body (redacted). */
export function describeDelivery(verdict: Verdict, d: DeliveryRecord): string {
  const body =
    d.outcome === 'complete' && d.jsonError === undefined ? verdict.redacted(d.json) : verdict.redacted(d.bodyPreview);
  const shown = body.length > SHOWN_BODY ? `${body.slice(0, SHOWN_BODY)}...` : body;
  const request = d.outcome === 'not-http' ? '(not HTTP)' : `${d.method} ${d.path}`;
  return `#${d.seq} ${request} at ${new Date(d.receivedAt).toISOString()}, Content-Type ${deliveryMediaType(d) ?? '(none)'}, ${d.bodyBytes} bytes: ${shown || '(empty body)'}`;
}

/** Why a delivery is not a POST of a JSON part-6 event labelled as JSON; empty when it is. */
export function deliveryDefects(d: DeliveryRecord): string[] {
  if (d.outcome === 'not-http') return [d.problem ?? 'not HTTP'];
  const defects: string[] = [];
  if (d.method !== 'POST') defects.push(`method ${d.method}, not POST`);
  const type = deliveryMediaType(d);
  if (!isJsonMediaType(type)) defects.push(`Content-Type ${type ?? '(none)'}, not a JSON media type`);
  if (d.outcome !== 'complete') defects.push(d.problem ?? d.outcome);
  else if (d.jsonError !== undefined) defects.push(`the body is not JSON (${d.jsonError})`);
  else if (eventKind(d.json) === undefined && !isUndeterminedEvent(d.json)) {
    defects.push(
      'the JSON body is none of the three events of part 6 (no field of 6.1, 6.2 or 6.3 and no string sessionId)',
    );
  }
  return defects;
}

function listed(verdict: Verdict, rows: Array<{ delivery: DeliveryRecord; lines: string[] }>): string[] {
  const shown = rows
    .slice(0, LISTED)
    .flatMap(({ delivery, lines }) => [describeDelivery(verdict, delivery), ...lines.map((line) => `    ${line}`)]);
  return rows.length > LISTED ? [...shown, `... and ${rows.length - LISTED} more`] : shown;
}

/** Every delivery is a POST whose whole body is JSON (one of the part-6 events), labelled as JSON (EVT-DELIVERY). */
export function expectWellFormedDeliveries(
  verdict: Verdict,
  id: string,
  deliveries: readonly DeliveryRecord[],
): boolean {
  const bad = deliveries
    .map((delivery) => ({ delivery, lines: deliveryDefects(delivery) }))
    .filter((row) => row.lines.length > 0);
  return verdict.check(id, bad.length === 0, () => ({
    expected: 'every delivery a POST whose body is a part-6 event in JSON, labelled as JSON',
    actual: `${bad.length} of ${deliveries.length} deliveries were not`,
    details: listed(verdict, bad),
  }));
}

/**
 * Every delivery of the given kinds is valid against its event's schema, each issue judged under the requirement of
 * the field it is about (an enum or int64 field has its own), so that each requirement fails on its own: `ids` are
 * the requirements judged (requirementsOf each kind, kit/webhooks/events.ts), any other left alone. A field left out or
 * null that has a documented default (a proto3 writer leaves defaults out, a gateway writes null) is that default,
 * so its requirement is exercised and holds; one without a default that no delivery gave a value for is reported as
 * not exercised (the target never produced it), not as passed.
 */
export function expectValidEvents(
  verdict: Verdict,
  ids: readonly string[],
  deliveries: readonly DeliveryRecord[],
  kinds: readonly EventKind[],
): boolean {
  let held = true;
  for (const kind of kinds) {
    const ofKind = deliveries.filter((d) => eventKind(d.json) === kind);
    if (ofKind.length === 0) continue;
    const grouped = ofKind.map((delivery) => ({ delivery, issues: issuesByRequirement(kind, delivery.json) }));
    for (const id of requirementsOf(kind).filter((id) => ids.includes(id))) {
      const fields = fieldsFor(kind, id);
      const exercised = ofKind.some(
        (d) =>
          isObject(d.json) &&
          fields.some((field) => memberOrDefault(eventSchema[kind], d.json as Record<string, unknown>, field) != null),
      );
      const failing = grouped.filter((row) => row.issues.has(id));
      if (!exercised && failing.length === 0) {
        verdict.notProduced(
          id,
          `the target never produced it: no ${kindTitle(kind).toLowerCase()} carried ${fields.join(' or ')}, which have no documented default`,
        );
        continue;
      }
      const ok = verdict.check(id, failing.length === 0, () => ({
        expected: `every ${kindTitle(kind).toLowerCase()} valid against ${eventSchema[kind]}${id === schemaRequirement[kind] ? '' : ` in ${fields.join(', ')}`}`,
        actual: `${failing.length} of ${ofKind.length} were not`,
        details: listed(
          verdict,
          failing.map(({ delivery, issues }) => ({
            delivery,
            lines: describeIssues(eventSchema[kind], issues.get(id) ?? [])
              .split('\n')
              .map((l) => l.trim()),
          })),
        ),
      }));
      held &&= ok;
    }
  }
  return held;
}

/**
 * The flow's request (`request`) was followed, within the wait, by an event of its own (`event`, EVT-FLOW-DELIVERY);
 * `wait` says what was awaited and what arrived instead.
 */
export function expectFlowEvent(
  verdict: Verdict,
  id: string,
  request: Exchange,
  event: DeliveryRecord | undefined,
  wait: { expected: string; actual: string },
): boolean {
  return verdict.check(id, event !== undefined, () => ({ sent: verdict.sent(request), ...wait }));
}

/**
 * A document results event carries the inquiryId of the verification (EVT-RESULTS-INQUIRY), judged once the wait is
 * over. Other flows of this run, other runs and other clients may post document
 * results events to the same receiver, so an event that is not ours proves nothing on its own: a results event
 * carrying our inquiryId passes. When none arrived, the results events that did arrive since our request are the
 * evidence: one carrying an inquiry of this run's other flows (every inquiry the config generates holds the run tag)
 * is accounted for; any other one may be ours with a wrong inquiryId, so the requirement fails with them listed.
 * With no results event at all, the target did not report within the wait (EVT-FLOW-DELIVERY fails), so this check
 * is blocked.
 */
export function expectResultsForInquiry(
  verdict: Verdict,
  id: string,
  window: Window,
  arrived: readonly DeliveryRecord[],
  inquiryId: string,
  runTag: string,
  tied: DeliveryRecord | undefined,
): boolean {
  const results = arrived.filter(ofKind('results'));
  const unaccounted = results.filter((d) => {
    const other = field(d, 'inquiryId');
    return !(typeof other === 'string' && other.includes(runTag));
  });
  if (!tied && unaccounted.length === 0) {
    const reason =
      results.length === 0
        ? 'no document results event arrived'
        : `only document results events of this run's other inquiries arrived (${results.length})`;
    verdict.blockedWithoutStopping(
      [id],
      `${reason} within WEBHOOK_WAIT_MS (${window.timeoutMs} ms) of the document verification`,
    );
    return false;
  }
  return verdict.check(id, tied !== undefined, () => ({
    expected: `a document results event with inquiryId ${JSON.stringify(inquiryId)} within WEBHOOK_WAIT_MS (${window.timeoutMs} ms) of the document verification`,
    actual: `none; ${unaccounted.length} document results event${unaccounted.length === 1 ? '' : 's'} with another inquiryId arrived instead`,
    details: unaccounted.slice(0, 8).map((d) => describeDelivery(verdict, d)),
  }));
}

/**
 * Whether the onboarding event of the session whose results event is ours carries its sessionId, once the wait is
 * over (EVT-DOC-SESSION-ID, INFO: 6.1 carries no inquiry, so which onboarding event is a flow's is tied only loosely).
 * Returns whether one did.
 */
export function expectOnboardingOfSession(
  verdict: Verdict,
  id: string,
  window: Window,
  arrived: readonly DeliveryRecord[],
  resultsEvent: DeliveryRecord,
  same: DeliveryRecord | undefined,
): boolean {
  if (same) {
    verdict.observe(
      id,
      `an onboarding event carries the sessionId of the results event, ${JSON.stringify(field(resultsEvent, 'sessionId'))}`,
    );
    return true;
  }
  const others = arrived.filter(ofKind('onboarding'));
  verdict.observe(
    id,
    others.length === 0
      ? `no document onboarding event arrived within WEBHOOK_WAIT_MS (${window.timeoutMs} ms) of the document verification`
      : `none of the ${others.length} onboarding event${others.length === 1 ? '' : 's'} that arrived carries the sessionId of the results event, ${JSON.stringify(field(resultsEvent, 'sessionId'))}`,
  );
  return false;
}

/**
 * Whether a verification session event of a step-up names the step-up's channel, or none (EVT-SESSION-CHANNEL-MATCH,
 * INFO): 6.3 defines channelType as the mfa type combined with the channel used (channelTypeContradicts). `step` is
 * the step-up as the run took the event for it: its channel and its name, when its request went out, and among how
 * many step-ups it was proven by count. Returns whether the event did not name the other channel.
 */
export function observeSessionChannel(
  verdict: Verdict,
  id: string,
  event: DeliveryRecord,
  step: { channel: MessageChannel; name: string; sentAt: number; overlap?: number },
): boolean {
  const named = !channelTypeContradicts(step.channel, field(event, 'channelType'));
  const shown = named
    ? `names ${step.channel === 'phone' ? 'SMS' : 'EMAIL'} or no channel`
    : `names the other channel: ${describeDelivery(verdict, event)}`;
  const taken =
    step.overlap !== undefined && step.overlap > 1
      ? `proven by count among ${step.overlap} step-ups; the event given to it by time and channel`
      : 'the event taken for the step-up';
  verdict.observe(id, `${taken} ${step.name} ${shown}, ${event.receivedAt - step.sentAt} ms after its request`);
  return named;
}
