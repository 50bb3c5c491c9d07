import { operation, type Operation } from '../../../catalog/catalog.ts';
import type { Findings } from '../../findings.ts';
import { mediaTypeOf } from '../../http/media-type.ts';
import { expectSchema } from '../responses.ts';
import {
  allHeld,
  bodyOf,
  label,
  operationCalls,
  sameRequest,
  type ClientCall,
  type ClientCheck,
  type ClientTraffic,
} from './traffic.ts';

/** The headers and bodies of the client's calls of 4.2 to 4.8 (parts 2 and 5.6), and the cases they name. */

const operationOf = (call: ClientCall): Operation => operation(call.op as NonNullable<ClientCall['op']>);

/** The call carries the header, not empty. */
function expectHeader(findings: Findings, id: string, call: ClientCall, name: string): boolean {
  return findings.check(id, Boolean(call.headers.get(name)?.trim()), () => ({
    sent: label(call),
    expected: `a ${name} header`,
    actual: `no ${name}`,
  }));
}

/** CLI-CLIENT-ID: every call carries x-client-id. */
export const expectClientIdHeader: ClientCheck = (findings, id, traffic) =>
  allHeld(operationCalls(traffic).map((call) => expectHeader(findings, id, call, 'x-client-id')));

/** The calls that carry x-correlation-id: every call but the step-up call (5.6). */
const correlatedCalls = (calls: readonly ClientCall[]) => calls.filter((c) => operationOf(c).service !== 'stepup');

/** CLI-CORRELATION-ID: every call but the step-up call carries x-correlation-id. */
export const expectCorrelationIdHeader: ClientCheck = (findings, id, traffic) =>
  allHeld(correlatedCalls(operationCalls(traffic)).map((call) => expectHeader(findings, id, call, 'x-correlation-id')));

/** CLI-CORRELATION-UNIQUE: no two calls carry one x-correlation-id, but a retry (the same request sent again). */
export const expectUniqueCorrelationIds: ClientCheck = (findings, id, traffic) => {
  const seen = new Map<string, ClientCall>();
  const held: boolean[] = [];
  for (const call of correlatedCalls(operationCalls(traffic))) {
    const correlation = call.headers.get('x-correlation-id')?.trim();
    if (!correlation) continue;
    const earlier = seen.get(correlation);
    held.push(
      findings.check(id, !earlier || sameRequest(earlier, call), () => ({
        sent: label(call),
        expected: 'an x-correlation-id of its own, or the one of the same request sent before (a retry)',
        actual: `x-correlation-id ${correlation} also on ${earlier ? label(earlier) : ''}, a different request`,
      })),
    );
    seen.set(correlation, call);
  }
  return allHeld(held);
};

const callsWithBody = (traffic: ClientTraffic) => operationCalls(traffic).filter((c) => operationOf(c).hasBody);

/** CLI-JSON-BODY: a call with a body sends Content-Type: application/json and a body that is well-formed JSON. */
export const expectJsonBodies: ClientCheck = (findings, id, traffic) =>
  allHeld(
    callsWithBody(traffic).map((call) => {
      const labelled = mediaTypeOf(call.headers.get('content-type')) === 'application/json';
      return findings.check(id, labelled && call.json !== undefined, () => ({
        sent: label(call),
        expected: 'Content-Type: application/json and a well-formed JSON body',
        actual: labelled
          ? `the body is not JSON${call.jsonError ? ` (${call.jsonError})` : ''}`
          : `Content-Type ${call.headers.get('content-type') ?? '(none)'}`,
      }));
    }),
  );

/** CLI-BODY-SCHEMA: every JSON body is valid against its request's schema (the required members and types of part 2). */
export const expectBodySchemas: ClientCheck = (findings, id, traffic) =>
  allHeld(
    operationCalls(traffic).map((call) => {
      const schema = operationOf(call).requestSchema;
      return !schema || call.json === undefined || expectSchema(findings, id, schema, call.json, label(call));
    }),
  );

/** CLI-KNOWN-CASE: a case update or step-up names a case an assessment returned, with that case's inquiryId. */
export const expectKnownCases: ClientCheck = (findings, id, traffic) => {
  const held: boolean[] = [];
  for (const call of operationCalls(traffic)) {
    const body = bodyOf(call);
    const caseId = body['authenticationId'];
    if ((call.op !== 'caseUpdate' && call.op !== 'stepUp') || typeof caseId !== 'string') continue;
    const issued = traffic.target.caseOf(caseId);
    held.push(
      findings.check(id, issued !== undefined && body['inquiryId'] === issued.inquiryId, () => ({
        sent: label(call),
        expected: 'an authenticationId an assessment returned, with the inquiryId of its case',
        actual: issued
          ? `inquiryId ${JSON.stringify(body['inquiryId'])} is not the case's (${issued.inquiryId})`
          : `authenticationId ${JSON.stringify(caseId)} was never returned by an assessment`,
      })),
    );
  }
  return allHeld(held);
};

/** CLI-TRAFFIC (INFO): what the client sent, operation by operation. */
export const observeTraffic: ClientCheck = (findings, id, { calls }) => {
  for (const call of calls) findings.observe(id, call.op ?? call.kind);
  return true;
};
