import { operation, type Operation } from '../../../catalog/catalog.ts';
import type { Findings } from '../../findings.ts';
import { mediaTypeOf } from '../../http/media-type.ts';
import { expectSchema } from '../responses.ts';
import { bodyOf, label, operationCalls, sameRequest, type ClientCall, type ClientCheck } from './traffic.ts';

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
export const expectClientIdHeader: ClientCheck = (findings, traffic) => {
  for (const call of operationCalls(traffic)) expectHeader(findings, 'CLI-CLIENT-ID', call, 'x-client-id');
};

/** The calls that carry x-correlation-id: every call but the step-up call (5.6). */
const correlatedCalls = (calls: readonly ClientCall[]) => calls.filter((c) => operationOf(c).service !== 'stepup');

/** CLI-CORRELATION-ID: every call but the step-up call carries x-correlation-id. */
export const expectCorrelationIdHeader: ClientCheck = (findings, traffic) => {
  for (const call of correlatedCalls(operationCalls(traffic)))
    expectHeader(findings, 'CLI-CORRELATION-ID', call, 'x-correlation-id');
};

/** CLI-CORRELATION-UNIQUE: no two calls carry one x-correlation-id, but a retry (the same request sent again). */
export const expectUniqueCorrelationIds: ClientCheck = (findings, traffic) => {
  const seen = new Map<string, ClientCall>();
  for (const call of correlatedCalls(operationCalls(traffic))) {
    const correlation = call.headers.get('x-correlation-id')?.trim();
    if (!correlation) continue;
    const earlier = seen.get(correlation);
    findings.check('CLI-CORRELATION-UNIQUE', !earlier || sameRequest(earlier, call), () => ({
      sent: label(call),
      expected: 'an x-correlation-id of its own, or the one of the same request sent before (a retry)',
      actual: `x-correlation-id ${correlation} also on ${earlier ? label(earlier) : ''}, a different request`,
    }));
    seen.set(correlation, call);
  }
};

const callsWithBody = (traffic: Parameters<ClientCheck>[1]) =>
  operationCalls(traffic).filter((c) => operationOf(c).hasBody);

/** CLI-JSON-BODY: a call with a body sends Content-Type: application/json and a body that is well-formed JSON. */
export const expectJsonBodies: ClientCheck = (findings, traffic) => {
  for (const call of callsWithBody(traffic)) {
    const labelled = mediaTypeOf(call.headers.get('content-type')) === 'application/json';
    findings.check('CLI-JSON-BODY', labelled && call.json !== undefined, () => ({
      sent: label(call),
      expected: 'Content-Type: application/json and a well-formed JSON body',
      actual: labelled
        ? `the body is not JSON${call.jsonError ? ` (${call.jsonError})` : ''}`
        : `Content-Type ${call.headers.get('content-type') ?? '(none)'}`,
    }));
  }
};

/** CLI-BODY-SCHEMA: every JSON body is valid against its request's schema (the required members and types of part 2). */
export const expectBodySchemas: ClientCheck = (findings, traffic) => {
  for (const call of operationCalls(traffic)) {
    const schema = operationOf(call).requestSchema;
    if (schema && call.json !== undefined) expectSchema(findings, 'CLI-BODY-SCHEMA', schema, call.json, label(call));
  }
};

/** CLI-KNOWN-CASE: a case update or step-up names a case an assessment returned, with that case's inquiryId. */
export const expectKnownCases: ClientCheck = (findings, traffic) => {
  for (const call of operationCalls(traffic)) {
    const body = bodyOf(call);
    const caseId = body['authenticationId'];
    if ((call.op !== 'caseUpdate' && call.op !== 'stepUp') || typeof caseId !== 'string') continue;
    const issued = traffic.target.caseOf(caseId);
    findings.check('CLI-KNOWN-CASE', issued !== undefined && body['inquiryId'] === issued.inquiryId, () => ({
      sent: label(call),
      expected: 'an authenticationId an assessment returned, with the inquiryId of its case',
      actual: issued
        ? `inquiryId ${JSON.stringify(body['inquiryId'])} is not the case's (${issued.inquiryId})`
        : `authenticationId ${JSON.stringify(caseId)} was never returned by an assessment`,
    }));
  }
};

/** CLI-TRAFFIC (INFO): what the client sent, operation by operation. */
export const observeTraffic: ClientCheck = (findings, { calls }) => {
  for (const call of calls) findings.observe('CLI-TRAFFIC', call.op ?? call.kind);
};
