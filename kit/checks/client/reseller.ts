import { operation } from '../../../catalog/catalog.ts';
import { isObject } from '../../../schemas/json-value.ts';
import {
  allHeld,
  bodyOf,
  label,
  operationCalls,
  type ClientCall,
  type ClientCheck,
  type ClientTraffic,
} from './traffic.ts';

/**
 * The calls a reseller's client makes for a child organisation (part 1, 4.4): those naming a child (sharedContext,
 * x-source-client-id) and those continuing a case the client opened for one (an inquiry first sent with that child's
 * sharedContext). Calls the reseller makes on its own behalf are not judged. And whether the client performed the
 * certification's scenario, for each child where it says so.
 */

/** Who a call names as the child organisation it runs for, by each of the means part 1 gives, and by the case it continues. */
export interface ChildNames {
  /** Children whose identifier the call's sharedContext carries (undefined: no sharedContext). */
  context?: string[];
  /** x-source-client-id, whatever it names. */
  header?: string;
  /** The child whose case the call continues: an inquiry first sent with that child's sharedContext. */
  continued?: string;
}

export interface ChildCall {
  call: ClientCall;
  /** The child the call runs for. */
  child: string;
  names: ChildNames;
}

/** The inquiry a call is about: the one its body names, or the one of the case it names. */
function inquiryOf(call: ClientCall, traffic: ClientTraffic): string | undefined {
  const body = bodyOf(call);
  if (typeof body['inquiryId'] === 'string') return body['inquiryId'];
  const caseId =
    typeof body['authenticationId'] === 'string'
      ? body['authenticationId']
      : (call.params['authenticationId'] ?? call.params['caseId']);
  return caseId === undefined ? undefined : traffic.target.caseOf(caseId)?.inquiryId;
}

/** Every call for a child, in the order sent; a call's case is its child's when the client first sent it for one. */
export function childCalls(traffic: ClientTraffic): ChildCall[] {
  const { childClientIds } = traffic.target;
  const inquiryChild = new Map<string, string>();
  const found: ChildCall[] = [];
  for (const call of operationCalls(traffic).filter((c) => c.op !== 'createOrder')) {
    const body = bodyOf(call);
    const context = isObject(body['sharedContext']) ? JSON.stringify(body['sharedContext']) : undefined;
    const inquiry = inquiryOf(call, traffic);
    const continued = inquiry === undefined ? undefined : inquiryChild.get(inquiry);
    const header = call.headers.get('x-source-client-id')?.trim();
    const names: ChildNames = {
      ...(context !== undefined ? { context: childClientIds.filter((child) => context.includes(child)) } : {}),
      ...(header ? { header } : {}),
      ...(continued ? { continued } : {}),
    };
    const own = names.context?.length === 1 ? names.context[0] : undefined;
    if (own && typeof body['inquiryId'] === 'string' && !inquiryChild.has(body['inquiryId']))
      inquiryChild.set(body['inquiryId'], own);
    const headerChild = header && childClientIds.includes(header) ? header : undefined;
    const child = own ?? headerChild ?? continued;
    if (child || header) found.push({ call, child: child ?? (header as string), names });
  }
  return found;
}

function namedBy(names: ChildNames): string {
  if (names.context !== undefined) return 'named by sharedContext';
  return names.header ? 'named by x-source-client-id' : 'continuing its case';
}

/**
 * CLI-RESELLER-CONTEXT: a call for a child carries sharedContext (the operations with a body) and, on the fetch of
 * document records, x-source-client-id naming one of the reseller's child organisations.
 */
export const expectChildContext: ClientCheck = (findings, id, traffic) => {
  const children = traffic.target.childClientIds;
  const held: boolean[] = [];
  for (const { call, child, names } of childCalls(traffic)) {
    const records = call.op === 'documentRecords';
    const ok = records
      ? names.header !== undefined && children.includes(names.header)
      : !operation(call.op as NonNullable<ClientCall['op']>).hasBody || names.context !== undefined;
    held.push(
      findings.check(id, ok, () => ({
        sent: label(call),
        expected: records
          ? `x-source-client-id naming one of the reseller's child organisations (${children.join(', ')})`
          : 'sharedContext naming the child',
        actual: records
          ? `a fetch of records for child ${child} (${namedBy(names)}) with x-source-client-id ${JSON.stringify(names.header ?? '(none)')}, not one of the reseller's child organisations`
          : `a call for child ${child} (${namedBy(names)}) without sharedContext`,
      })),
    );
  }
  return allHeld(held);
};

/** CLI-CHILD-ISOLATION: a call for a child names one child; its x-source-client-id and sharedContext name the same. */
export const expectOneChildNamed: ClientCheck = (findings, id, traffic) =>
  allHeld(
    childCalls(traffic).map(({ call, names }) => {
      const context = names.context ?? [];
      const mixed =
        names.header !== undefined && context.length > 0 && (context.length > 1 || context[0] !== names.header);
      return findings.check(id, !mixed, () => ({
        sent: label(call),
        expected: 'x-source-client-id and sharedContext naming the same child',
        actual: `x-source-client-id ${names.header} but sharedContext naming ${context.join(' and ')}`,
      }));
    }),
  );

/** CLI-SIBLING-ID (INFO): a call for one child carrying another child's identifier, or continuing another's case. */
export const observeSiblingIds: ClientCheck = (findings, id, traffic) => {
  for (const { call, child, names } of childCalls(traffic)) {
    const raw = `${call.exchange.url}\n${[...call.headers].map(([name, value]) => `${name}: ${value}`).join('\n')}\n${call.exchange.body.toString('utf8')}`;
    if (traffic.target.childClientIds.some((other) => other !== child && raw.includes(other)))
      findings.observe(id, `a call for one child carrying another child's identifier (${call.op})`);
    if (names.continued && names.continued !== child)
      findings.observe(id, `a call naming one child for a case opened for another (${call.op})`);
  }
  return true;
};

/** CLI-SCENARIO: the client performed every step of the certification's scenario, for each child where it says so. */
export const expectScenarioPerformed: ClientCheck = (findings, id, traffic) => {
  // A call counts for every child it names or whose case it continues.
  const forChildren = new Map(
    childCalls(traffic).map(({ call, names }) => [call, [...(names.context ?? []), names.header, names.continued]]),
  );
  const held: boolean[] = [];
  for (const step of traffic.scenario ?? []) {
    const matching = operationCalls(traffic).filter(
      (c) => c.op === step.operation && (step.with ?? []).every((field) => bodyOf(c)[field] != null),
    );
    const count = step.count ?? 1;
    const what = `${count} ${step.operation}${step.with?.length ? ` with ${step.with.join(', ')}` : ''}`;
    const perChild = step.eachChild ? traffic.target.childClientIds : [undefined];
    for (const child of perChild) {
      const done = child ? matching.filter((c) => forChildren.get(c)?.includes(child)).length : matching.length;
      held.push(
        findings.check(id, done >= count, () => ({
          expected: `${what}${child ? ` for child ${child}` : ''}`,
          actual: `the client sent ${done}`,
        })),
      );
    }
  }
  return allHeld(held);
};
