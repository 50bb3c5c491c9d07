import { clientRequirements } from '../../catalog/client-catalog.ts';
import { operations, tokenEndpoint, type OperationId } from '../../catalog/catalog.ts';
import { compilePath } from '../../sandbox/layout.ts';
import type { DeliveryAnswer, RecordedExchange } from '../../sandbox/server.ts';
import { schemaIssues } from '../../schemas/registry.ts';
import { citeAnnotation, markAnnotation, type MarkKind } from '../../kit/verdict-marks.ts';
import type { TestRecord } from '../../reporters/verdicts.ts';
import { isObject } from '../../schemas/json-value.ts';
import { isDeepStrictEqual } from 'node:util';
import { describeRetrySequence, judgeRetrySequence } from './retry-rule.ts';

/** What the certification knows about the sandbox the client talked to. */
export interface ClientTarget {
  /** Full URLs as the client was given them. */
  identityBaseUrl: string;
  stepupBaseUrl: string;
  ordersBaseUrl: string;
  identityTokenUrl: string;
  stepupTokenUrl: string;
  /** "METHOD /route" per operation, relative to its service base. */
  routes: Partial<Record<OperationId, string>>;
  apiKeys: string[];
  childClientIds: string[];
  tokenLifetimeSeconds: number;
  caseOf: (authenticationId: string) => { inquiryId: string } | undefined;
  checkToken: (token: string, service: 'identity' | 'stepup') => { ok: boolean; reason?: string };
}

/** An operation the certification scenario expects, e.g. { "operation": "caseUpdate", "with": ["tags"] }. */
export interface ScenarioStep {
  operation: OperationId;
  count?: number;
  /** Body fields the call must carry. */
  with?: string[];
  /** The step is expected for each child organisation the certification gave the client, as a call for that child. */
  eachChild?: boolean;
}

interface Call {
  seq: number;
  exchange: RecordedExchange;
  kind: 'token' | 'operation' | 'other';
  service?: 'identity' | 'stepup';
  op?: OperationId;
  headers: Map<string, string>;
  /** Path parameters of the operation's route, e.g. authenticationId of the document records fetch. */
  params: Record<string, string>;
  json?: unknown;
  jsonError?: string;
}

interface Finding {
  call?: Call;
  outcome: 'failed' | 'warning';
  detail: string;
}

const pathOf = (url: string) => new URL(url).pathname;
const label = (c: Call) => `#${c.seq} ${c.exchange.method} ${c.exchange.url.split('?')[0]}${c.op ? ` (${c.op})` : ''}`;

function classify(exchanges: readonly RecordedExchange[], target: ClientTarget): Call[] {
  const routes = operations.flatMap((op) => {
    const text = op.fixedRoute ?? target.routes[op.id];
    if (!text) return [];
    const [method = 'GET', route = '/'] = text.split(' ');
    const base =
      op.service === 'stepup'
        ? target.stepupBaseUrl
        : op.service === 'orders'
          ? target.ordersBaseUrl
          : target.identityBaseUrl;
    return [{ op, method: method.toUpperCase(), pattern: compilePath(pathOf(base) + route) }];
  });
  return exchanges.map((exchange, index) => {
    const headers = new Map<string, string>();
    for (let i = 0; i + 1 < exchange.rawHeaders.length; i += 2)
      headers.set((exchange.rawHeaders[i] as string).toLowerCase(), exchange.rawHeaders[i + 1] as string);
    const path = exchange.url.split('?')[0] ?? '/';
    const call: Call = { seq: index + 1, exchange, kind: 'other', headers, params: {} };
    if (path === pathOf(target.identityTokenUrl) || path === pathOf(target.stepupTokenUrl)) {
      return { ...call, kind: 'token', service: path === pathOf(target.identityTokenUrl) ? 'identity' : 'stepup' };
    }
    const found = routes.find((r) => r.method === exchange.method && r.pattern.regex.test(path));
    if (!found) return call;
    const values = found.pattern.regex.exec(path)?.slice(1) ?? [];
    const params = Object.fromEntries(
      found.pattern.params.map((name, i) => [name, decodeURIComponent(values[i] ?? '')]),
    );
    const text = exchange.body.toString('utf8');
    let parsed: { json?: unknown; jsonError?: string } = {};
    if (text.length > 0) {
      try {
        parsed = { json: JSON.parse(text) };
      } catch (error) {
        parsed = { jsonError: (error as Error).message };
      }
    }
    return {
      ...call,
      kind: 'operation',
      op: found.op.id,
      service: found.op.service === 'stepup' ? 'stepup' : 'identity',
      params,
      ...parsed,
    };
  });
}

/** The media type of a Content-Type value, lower-cased (RFC 9110 §8.3.1: type and subtype are case-insensitive). */
const mediaType = (value: string | undefined): string => (value ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/** A retry is the same request sent again: the same method, URL and body (the same JSON value, or the same bytes). */
function sameRequest(a: Call, b: Call): boolean {
  if (a.exchange.method !== b.exchange.method || a.exchange.url !== b.exchange.url) return false;
  if (a.json !== undefined && b.json !== undefined) return isDeepStrictEqual(a.json, b.json);
  return a.exchange.body.equals(b.exchange.body);
}

/** Who a call names as the child organisation it runs for, by each of the means part 1 gives, and by the case it continues. */
interface ChildNames {
  /** Children whose identifier the call's sharedContext carries (undefined: no sharedContext). */
  context?: string[];
  /** x-source-client-id, whatever it names. */
  header?: string;
  /** The child whose case the call continues: an inquiry first sent with that child's sharedContext. */
  continued?: string;
}

/**
 * Judges everything a client sent, and how it answered the webhook deliveries, against the client requirements. The
 * result is what the server side's tests leave behind, one record per finding (or per requirement without one), each
 * citing its requirement with a verdict mark, so that the same engine (reporters/verdicts.ts) and the same writers
 * turn both sides into a matrix and JUnit. INFO requirements are recorded as observations and never fail.
 */
export function judgeClient(input: {
  exchanges: readonly RecordedExchange[];
  deliveries: readonly DeliveryAnswer[];
  target: ClientTarget;
  scenario?: readonly ScenarioStep[];
  /** Requirements the certifier's options left out, each with the option that would exercise it. */
  notConfigured: ReadonlyMap<string, string>;
}): TestRecord[] {
  const { target } = input;
  const calls = classify(input.exchanges, target);
  const ops = calls.filter((c) => c.kind === 'operation');
  const tokens = calls.filter((c) => c.kind === 'token');
  const findings = new Map<string, Finding[]>(clientRequirements.map((r) => [r.id, []]));
  const exercised = new Set<string>();
  /** What INFO requirements record, counted by kind of observation. */
  const observed = new Map<string, Map<string, number>>(
    clientRequirements.filter((r) => r.level === 'INFO').map((r) => [r.id, new Map()]),
  );
  const observe = (id: string, what: string) => {
    const seen = observed.get(id);
    seen?.set(what, (seen.get(what) ?? 0) + 1);
  };
  const add = (id: string, outcome: Finding['outcome'], detail: string, call?: Call) =>
    findings.get(id)?.push({ outcome, detail, ...(call ? { call } : {}) });

  // Token endpoint.
  for (const call of tokens) {
    exercised.add('CLI-TOKEN-REQUEST');
    const form = new URLSearchParams(call.exchange.body.toString('utf8'));
    const auth = call.headers.get('authorization') ?? '';
    const problems = [
      call.exchange.method !== 'POST' && `method ${call.exchange.method}`,
      mediaType(call.headers.get('content-type')) !== 'application/x-www-form-urlencoded' &&
        `Content-Type ${call.headers.get('content-type') ?? '(none)'}`,
      !/^Basic /i.test(auth) && 'no Basic Authorization',
      /^Basic /i.test(auth) &&
        !target.apiKeys.includes(auth.slice(6).trim()) &&
        'Basic credentials that are not an issued API key',
      form.get('grant_type') !== tokenEndpoint.grantType && `grant_type ${JSON.stringify(form.get('grant_type'))}`,
      form.get('scope') !== tokenEndpoint.scope && `scope ${JSON.stringify(form.get('scope'))}`,
    ].filter(Boolean);
    if (problems.length) add('CLI-TOKEN-REQUEST', 'failed', problems.join('; '), call);
  }
  const byKey = new Map<string, Call[]>();
  for (const call of tokens) {
    const key = `${call.service} ${call.headers.get('authorization') ?? ''}`;
    byKey.set(key, [...(byKey.get(key) ?? []), call]);
  }
  [...byKey.values()].forEach((group, index) => {
    const span = ((group.at(-1)?.exchange.at ?? 0) - (group[0]?.exchange.at ?? 0)) / 1000;
    observe(
      'CLI-TOKEN-REUSE',
      `${group[0]?.service} token endpoint, credentials ${index + 1}: ${group.length} token ${group.length === 1 ? 'request' : 'requests'} over ${span.toFixed(1)} s (tokens live ${target.tokenLifetimeSeconds} s)`,
    );
  });

  // Every call of 4.2 to 4.8.
  const seenCorrelation = new Map<string, Call>();
  for (const call of ops) {
    const op = operations.find((o) => o.id === call.op);
    if (!op) continue;
    const auth = call.headers.get('authorization') ?? '';
    const bearer = /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
    exercised.add('CLI-BEARER');
    if (!bearer)
      add(
        'CLI-BEARER',
        'failed',
        `Authorization ${auth ? JSON.stringify(auth.split(' ')[0]) : '(none)'}, not Bearer <token>`,
        call,
      );
    else {
      const calledService =
        op.service === 'stepup' ? 'step-up' : op.service === 'orders' ? 'order endpoint' : 'identity';
      const issuedBy = (['identity', 'stepup'] as const).find((service) => target.checkToken(bearer, service).ok);
      if (!issuedBy)
        add(
          'CLI-BEARER',
          'failed',
          `a token no token endpoint issued, or expired (${target.checkToken(bearer, op.service === 'stepup' ? 'stepup' : 'identity').reason ?? 'unknown'})`,
          call,
        );
      else
        observe(
          'CLI-TOKEN-PER-SERVICE',
          `${calledService} calls with a token of the ${issuedBy === 'stepup' ? 'step-up' : 'identity'} token endpoint`,
        );
    }
    exercised.add('CLI-CLIENT-ID');
    if (!call.headers.get('x-client-id')?.trim()) add('CLI-CLIENT-ID', 'failed', 'no x-client-id', call);
    if (op.service !== 'stepup') {
      exercised.add('CLI-CORRELATION-ID');
      const correlation = call.headers.get('x-correlation-id')?.trim();
      if (!correlation) add('CLI-CORRELATION-ID', 'failed', 'no x-correlation-id', call);
      else {
        exercised.add('CLI-CORRELATION-UNIQUE');
        const earlier = seenCorrelation.get(correlation);
        // A retry of the same request may keep its correlation id: it is the same event.
        if (earlier && !sameRequest(earlier, call))
          add(
            'CLI-CORRELATION-UNIQUE',
            'failed',
            `x-correlation-id ${correlation} also on ${label(earlier)}, a different request`,
            call,
          );
        seenCorrelation.set(correlation, call);
      }
    }
    if (op.hasBody) {
      exercised.add('CLI-JSON-BODY');
      if (mediaType(call.headers.get('content-type')) !== 'application/json')
        add('CLI-JSON-BODY', 'failed', `Content-Type ${call.headers.get('content-type') ?? '(none)'}`, call);
      else if (call.json === undefined)
        add('CLI-JSON-BODY', 'failed', `the body is not JSON${call.jsonError ? ` (${call.jsonError})` : ''}`, call);
    }
    if (op.requestSchema && call.json !== undefined) {
      exercised.add('CLI-BODY-SCHEMA');
      const issues = schemaIssues(op.requestSchema, call.json);
      if (issues.length)
        add(
          'CLI-BODY-SCHEMA',
          'failed',
          issues.map((i) => `${i.instancePath || '(root)'} ${i.message}`).join('; '),
          call,
        );
    }
    const body = isObject(call.json) ? call.json : {};
    if ((op.id === 'caseUpdate' || op.id === 'stepUp') && typeof body['authenticationId'] === 'string') {
      exercised.add('CLI-KNOWN-CASE');
      const issued = target.caseOf(body['authenticationId']);
      if (!issued)
        add(
          'CLI-KNOWN-CASE',
          'failed',
          `authenticationId ${JSON.stringify(body['authenticationId'])} was never returned by an assessment`,
          call,
        );
      else if (body['inquiryId'] !== issued.inquiryId)
        add(
          'CLI-KNOWN-CASE',
          'failed',
          `inquiryId ${JSON.stringify(body['inquiryId'])} is not the case's (${issued.inquiryId})`,
          call,
        );
    }
  }

  // Calls for a child organisation: those naming a child (sharedContext, x-source-client-id) and those continuing a case
  // the client opened for one (an inquiry first sent with that child's sharedContext).
  const inquiryChild = new Map<string, string>();
  const namesOf = (call: Call): ChildNames => {
    const body = isObject(call.json) ? call.json : {};
    const context = isObject(body['sharedContext']) ? JSON.stringify(body['sharedContext']) : undefined;
    const caseId =
      typeof body['authenticationId'] === 'string'
        ? body['authenticationId']
        : (call.params['authenticationId'] ?? call.params['caseId']);
    const inquiry =
      typeof body['inquiryId'] === 'string'
        ? body['inquiryId']
        : caseId !== undefined
          ? target.caseOf(caseId)?.inquiryId
          : undefined;
    const continued = inquiry !== undefined ? inquiryChild.get(inquiry) : undefined;
    const header = call.headers.get('x-source-client-id')?.trim();
    const names: ChildNames = {
      ...(context !== undefined ? { context: target.childClientIds.filter((child) => context.includes(child)) } : {}),
      ...(header ? { header } : {}),
      ...(continued ? { continued } : {}),
    };
    const own = names.context?.length === 1 ? names.context[0] : undefined;
    if (own && typeof body['inquiryId'] === 'string' && !inquiryChild.has(body['inquiryId']))
      inquiryChild.set(body['inquiryId'], own);
    return names;
  };
  const childCalls: Array<{ call: Call; child: string; names: ChildNames }> = [];
  for (const call of ops) {
    if (call.op === 'createOrder') continue;
    const names = namesOf(call);
    const headerChild = names.header && target.childClientIds.includes(names.header) ? names.header : undefined;
    const child = names.context?.length === 1 ? names.context[0] : (headerChild ?? names.continued);
    if (child || names.header) childCalls.push({ call, child: child ?? (names.header as string), names });
  }
  for (const { call, child, names } of childCalls) {
    const op = operations.find((o) => o.id === call.op);
    exercised.add('CLI-RESELLER-CONTEXT');
    exercised.add('CLI-CHILD-ISOLATION');
    const named =
      names.header && names.context === undefined
        ? `named by x-source-client-id`
        : names.context === undefined
          ? `continuing its case`
          : 'named by sharedContext';
    if (call.op === 'documentRecords') {
      if (!names.header || !target.childClientIds.includes(names.header))
        add(
          'CLI-RESELLER-CONTEXT',
          'failed',
          `a fetch of records for child ${child} (${named}) with x-source-client-id ${JSON.stringify(names.header ?? '(none)')}, not one of the reseller's child organisations (${target.childClientIds.join(', ')})`,
          call,
        );
    } else if (op?.hasBody && names.context === undefined)
      add('CLI-RESELLER-CONTEXT', 'failed', `a call for child ${child} (${named}) without sharedContext`, call);
    // Part 1 and 4.4: the call runs on behalf of one child organisation; both of its means of naming it name the same.
    if (names.header && names.context?.length && (names.context.length > 1 || names.context[0] !== names.header))
      add(
        'CLI-CHILD-ISOLATION',
        'failed',
        `x-source-client-id ${names.header} but sharedContext naming ${names.context.join(' and ')}`,
        call,
      );
    const raw = `${call.exchange.url}\n${[...call.headers].map(([name, value]) => `${name}: ${value}`).join('\n')}\n${call.exchange.body.toString('utf8')}`;
    const others = target.childClientIds.filter((other) => other !== child && raw.includes(other));
    if (others.length)
      observe('CLI-SIBLING-ID', `a call for one child carrying another child's identifier (${call.op})`);
    if (names.continued && names.continued !== child)
      observe('CLI-SIBLING-ID', `a call naming one child for a case opened for another (${call.op})`);
  }

  // Retries of the order endpoint's 503s (injected unless the certifier turned it off), judged on the whole sequence of
  // each request's attempts by one rule (retry-rule.ts), whose false-failure rate docs/client-retry.md measures.
  const attemptsOf: Call[][] = [];
  for (const call of ops.filter((c) => c.op === 'createOrder')) {
    const group = attemptsOf.find((attempts) => sameRequest(attempts[0] as Call, call));
    if (group) group.push(call);
    else attemptsOf.push([call]);
  }
  for (const attempts of attemptsOf) {
    const first = attempts[0] as Call;
    if (first.exchange.status !== 503) continue;
    exercised.add('CLI-ORDER-RETRY');
    const gaps: number[] = [];
    for (let i = 1; i < attempts.length && (attempts[i - 1] as Call).exchange.status === 503; i += 1) {
      const answered = (attempts[i - 1] as Call).exchange;
      gaps.push((attempts[i] as Call).exchange.at - (answered.answeredAt ?? answered.at));
    }
    const verdict = judgeRetrySequence(gaps);
    if (!verdict.held) add('CLI-ORDER-RETRY', 'failed', `${verdict.reason}: ${describeRetrySequence(gaps)}`, first);
    if (gaps.length) observe('CLI-RETRY-DELAYS', describeRetrySequence(gaps));
  }

  for (const answer of input.deliveries) {
    exercised.add('CLI-WEBHOOK-ANSWER');
    observe(
      'CLI-WEBHOOK-STATUS',
      answer.status === undefined
        ? 'no answer'
        : `${answer.status} labelled ${mediaType(answer.contentType) || '(no Content-Type)'} in ${answer.ms < 1000 ? '<1 s' : `${Math.ceil(answer.ms / 1000)} s`}`,
    );
    let problem: string | undefined;
    if (answer.status === undefined) problem = `no answer (${answer.error ?? 'connection failed'})`;
    else {
      try {
        JSON.parse(answer.body);
      } catch {
        problem = `answered ${answer.status} with a body that is not JSON (labelled ${answer.contentType ?? '(no Content-Type)'}): ${JSON.stringify(answer.body.slice(0, 80))}`;
      }
    }
    if (problem) add('CLI-WEBHOOK-ANSWER', 'failed', `${answer.kind} delivery: ${problem}`);
  }

  if (input.scenario) {
    exercised.add('CLI-SCENARIO');
    // A call counts for every child it names or whose case it continues.
    const forChildren = new Map(
      childCalls.map(({ call, names }) => [call, [...(names.context ?? []), names.header, names.continued]]),
    );
    for (const step of input.scenario) {
      const matching = ops.filter(
        (c) =>
          c.op === step.operation &&
          (step.with ?? []).every((field) => isObject(c.json) && c.json[field] !== undefined && c.json[field] !== null),
      );
      const what = `${step.count ?? 1} ${step.operation}${step.with?.length ? ` with ${step.with.join(', ')}` : ''}`;
      if (step.eachChild) {
        for (const child of target.childClientIds) {
          const done = matching.filter((c) => forChildren.get(c)?.includes(child)).length;
          if (done < (step.count ?? 1))
            add('CLI-SCENARIO', 'failed', `expected ${what} for child ${child}; the client sent ${done}`);
        }
      } else if (matching.length < (step.count ?? 1))
        add('CLI-SCENARIO', 'failed', `expected ${what}; the client sent ${matching.length}`);
    }
  }

  for (const call of calls) observe('CLI-TRAFFIC', call.op ?? call.kind);
  const record = (id: string, title: string, kind: MarkKind, detail: string): TestRecord => ({
    title,
    project: 'client',
    location: 'catalog/client-requirements.json',
    status: kind === 'fail' ? 'failed' : kind === 'not-configured' ? 'skipped' : 'passed',
    ...(kind === 'fail' ? { errorName: 'RequirementFailure' } : {}),
    annotations: [citeAnnotation(id), markAnnotation({ kind, id, detail })],
  });
  return clientRequirements.flatMap((req): TestRecord[] => {
    const unconfigured = input.notConfigured.get(req.id);
    if (unconfigured) return [record(req.id, `${req.id}: not configured`, 'not-configured', unconfigured)];
    if (req.level === 'INFO') {
      const seen = [...(observed.get(req.id) ?? [])];
      return [
        record(
          req.id,
          `${req.id}: recorded`,
          'observed',
          seen.map(([what, n]) => (n > 1 ? `${what} (×${n})` : what)).join('; ') || 'nothing',
        ),
      ];
    }
    const found = findings.get(req.id) ?? [];
    if (found.length)
      return found.map((f) =>
        record(
          req.id,
          f.call ? label(f.call) : req.id,
          f.outcome === 'failed' && req.level === 'MUST' ? 'fail' : 'warn',
          f.detail,
        ),
      );
    return exercised.has(req.id)
      ? [record(req.id, `${req.id}: every call judged`, 'pass', '')]
      : [record(req.id, `${req.id}: not reached`, 'not-exercised', "the client's traffic never reached it")];
  });
}
