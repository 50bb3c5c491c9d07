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
import { isObject } from '../../schemas/json-value.ts';
import { memberOrDefault } from './documented-default.ts';

const DELIVERY = 'EVT-DELIVERY';
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

/** EVT-DELIVERY: every delivery is a POST whose whole body is JSON (one of the part-6 events), labelled as JSON. */
export function expectWellFormedDeliveries(verdict: Verdict, deliveries: readonly DeliveryRecord[]): boolean {
  const bad = deliveries
    .map((delivery) => ({ delivery, lines: deliveryDefects(delivery) }))
    .filter((row) => row.lines.length > 0);
  return verdict.check(DELIVERY, bad.length === 0, () => ({
    expected: 'every delivery a POST whose body is a part-6 event in JSON, labelled as JSON',
    actual: `${bad.length} of ${deliveries.length} deliveries were not`,
    details: listed(verdict, bad),
  }));
}

/**
 * Checks every delivery of the given kinds against its event's schema, each issue under the requirement of the field
 * it is about (an enum or int64 field has its own), so that each requirement fails on its own. A field left out or
 * null that has a documented default (a proto3 writer leaves defaults out, a gateway writes null) is that default,
 * so its requirement is exercised and holds; one without a default that no delivery gave a value for is reported as
 * not exercised (the target never produced it), not as passed.
 */
export function expectValidEvents(
  verdict: Verdict,
  deliveries: readonly DeliveryRecord[],
  kinds: readonly EventKind[],
): void {
  for (const kind of kinds) {
    const ofKind = deliveries.filter((d) => eventKind(d.json) === kind);
    if (ofKind.length === 0) continue;
    const grouped = ofKind.map((delivery) => ({ delivery, issues: issuesByRequirement(kind, delivery.json) }));
    for (const id of requirementsOf(kind)) {
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
      verdict.check(id, failing.length === 0, () => ({
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
    }
  }
}
