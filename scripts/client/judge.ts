import { clientRequirements } from '../../catalog/client-catalog.ts';
import { operations, tokenEndpoint, type OperationId } from '../../catalog/catalog.ts';
import { compilePath } from '../../sandbox/layout.ts';
import type { DeliveryAnswer, RecordedExchange } from '../../sandbox/server.ts';
import { schemaIssues } from '../../schemas/registry.ts';
import { citeAnnotation, markAnnotation, type MarkKind } from '../../harness/verdict-marks.ts';
import type { TestRecord } from '../../reporters/verdicts.ts';
import { isObject } from '../../schemas/json-value.ts';

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
  resellerClientId: string;
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
}

interface Call {
  seq: number;
  exchange: RecordedExchange;
  kind: 'token' | 'operation' | 'other';
  service?: 'identity' | 'stepup';
  op?: OperationId;
  headers: Map<string, string>;
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
    const base = op.service === 'stepup' ? target.stepupBaseUrl : op.service === 'orders' ? target.ordersBaseUrl : target.identityBaseUrl;
    return [{ op, method, pattern: compilePath(pathOf(base) + route) }];
  });
  return exchanges.map((exchange, index) => {
    const headers = new Map<string, string>();
    for (let i = 0; i + 1 < exchange.rawHeaders.length; i += 2) headers.set((exchange.rawHeaders[i] as string).toLowerCase(), exchange.rawHeaders[i + 1] as string);
    const path = exchange.url.split('?')[0] ?? '/';
    const call: Call = { seq: index + 1, exchange, kind: 'other', headers };
    if (path === pathOf(target.identityTokenUrl) || path === pathOf(target.stepupTokenUrl)) {
      return { ...call, kind: 'token', service: path === pathOf(target.identityTokenUrl) ? 'identity' : 'stepup' };
    }
    const found = routes.find((r) => r.method === exchange.method && r.pattern.regex.test(path));
    if (!found) return call;
    const text = exchange.body.toString('utf8');
    let parsed: { json?: unknown; jsonError?: string } = {};
    if (text.length > 0) {
      try {
        parsed = { json: JSON.parse(text) };
      } catch (error) {
        parsed = { jsonError: (error as Error).message };
      }
    }
    return { ...call, kind: 'operation', op: found.op.id, service: found.op.service === 'stepup' ? 'stepup' : 'identity', ...parsed };
  });
}

/**
 * Judges everything a client sent, and how it answered the webhook deliveries, against the client requirements. The
 * result is what the server side's tests leave behind, one record per finding (or per requirement without one), each
 * citing its requirement with a verdict mark, so that the same engine (reporters/verdicts.ts) and the same writers
 * turn both sides into a matrix and JUnit.
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
  /** Why a requirement was not exercised, when more can be said than that the traffic never reached it. */
  const why = new Map<string, string>();
  const add = (id: string, outcome: Finding['outcome'], detail: string, call?: Call) => findings.get(id)?.push({ outcome, detail, ...(call ? { call } : {}) });

  // Token endpoint.
  for (const call of tokens) {
    exercised.add('CLI-TOKEN-REQUEST');
    const form = new URLSearchParams(call.exchange.body.toString('utf8'));
    const auth = call.headers.get('authorization') ?? '';
    const problems = [
      call.exchange.method !== 'POST' && `method ${call.exchange.method}`,
      !(call.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded') && `Content-Type ${call.headers.get('content-type') ?? '(none)'}`,
      !/^Basic /i.test(auth) && 'no Basic Authorization',
      /^Basic /i.test(auth) && !target.apiKeys.includes(auth.slice(6).trim()) && 'Basic credentials that are not an issued API key',
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
  for (const group of byKey.values()) {
    exercised.add('CLI-TOKEN-REUSE');
    const span = ((group.at(-1)?.exchange.at ?? 0) - (group[0]?.exchange.at ?? 0)) / 1000;
    const allowed = Math.ceil(span / target.tokenLifetimeSeconds) + 1;
    if (group.length > allowed) add('CLI-TOKEN-REUSE', 'warning', `${group.length} token requests for the ${group[0]?.service} service within ${span.toFixed(1)} s (token lifetime ${target.tokenLifetimeSeconds} s): at most ${allowed} expected`, group[0]);
  }

  // Every call of 4.2 to 4.8.
  const seenCorrelation = new Map<string, Call>();
  for (const call of ops) {
    const op = operations.find((o) => o.id === call.op);
    if (!op) continue;
    const auth = call.headers.get('authorization') ?? '';
    const bearer = /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
    exercised.add('CLI-BEARER');
    const ownService = op.service === 'stepup' ? 'stepup' : 'identity';
    const otherService = ownService === 'stepup' ? 'identity' : 'stepup';
    if (!bearer) add('CLI-BEARER', 'failed', `Authorization ${auth ? JSON.stringify(auth.split(' ')[0]) : '(none)'}, not Bearer <token>`, call);
    else {
      const own = target.checkToken(bearer, ownService);
      exercised.add('CLI-TOKEN-PER-SERVICE');
      if (!own.ok && target.checkToken(bearer, otherService).ok) add('CLI-TOKEN-PER-SERVICE', 'failed', `a token of the ${otherService} service used on the ${ownService} service`, call);
      else if (!own.ok) add('CLI-BEARER', 'failed', `a token the ${ownService} token endpoint did not issue, or expired (${own.reason ?? 'unknown'})`, call);
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
        if (earlier && earlier.exchange.body.toString() !== call.exchange.body.toString()) add('CLI-CORRELATION-UNIQUE', 'failed', `x-correlation-id ${correlation} also on ${label(earlier)}`, call);
        seenCorrelation.set(correlation, call);
      }
    }
    if (op.hasBody) {
      exercised.add('CLI-JSON-BODY');
      const type = (call.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/json') add('CLI-JSON-BODY', 'failed', `Content-Type ${call.headers.get('content-type') ?? '(none)'}`, call);
      else if (call.json === undefined) add('CLI-JSON-BODY', 'failed', `the body is not JSON${call.jsonError ? ` (${call.jsonError})` : ''}`, call);
    }
    if (op.requestSchema && call.json !== undefined) {
      exercised.add('CLI-BODY-SCHEMA');
      const issues = schemaIssues(op.requestSchema, call.json);
      if (issues.length) add('CLI-BODY-SCHEMA', 'failed', issues.map((i) => `${i.instancePath || '(root)'} ${i.message}`).join('; '), call);
    }
    const body = isObject(call.json) ? call.json : {};
    if ((op.id === 'caseUpdate' || op.id === 'stepUp') && typeof body['authenticationId'] === 'string') {
      exercised.add('CLI-KNOWN-CASE');
      const issued = target.caseOf(body['authenticationId']);
      if (!issued) add('CLI-KNOWN-CASE', 'failed', `authenticationId ${JSON.stringify(body['authenticationId'])} was never returned by an assessment`, call);
      else if (body['inquiryId'] !== issued.inquiryId) add('CLI-KNOWN-CASE', 'failed', `inquiryId ${JSON.stringify(body['inquiryId'])} is not the case's (${issued.inquiryId})`, call);
    }
    if (call.headers.get('x-client-id') === target.resellerClientId && op.service !== 'orders') {
      exercised.add('CLI-RESELLER-CONTEXT');
      if (op.id === 'documentRecords') {
        const source = call.headers.get('x-source-client-id');
        if (!source || !target.childClientIds.includes(source)) add('CLI-RESELLER-CONTEXT', 'failed', `x-source-client-id ${JSON.stringify(source ?? '(none)')} is not a child organisation of the reseller (${target.childClientIds.join(', ')})`, call);
      } else if (op.hasBody && !isObject(body['sharedContext'])) add('CLI-RESELLER-CONTEXT', 'failed', 'a call as the reseller without sharedContext', call);
    }
  }

  // Child isolation: a reseller call is for the child its sharedContext names (or, without a body, its
  // x-source-client-id); no other child's id may appear anywhere in it.
  const actedFor = new Set<string>();
  for (const call of ops) {
    if (call.headers.get('x-client-id') !== target.resellerClientId || call.op === 'createOrder') continue;
    const context = isObject(call.json) && isObject(call.json['sharedContext']) ? call.json['sharedContext'] : undefined;
    const child = typeof context?.['childOrganizationId'] === 'string' ? context['childOrganizationId'] : call.headers.get('x-source-client-id');
    if (!child || !target.childClientIds.includes(child)) continue;
    actedFor.add(child);
    const raw = `${call.exchange.url}\n${[...call.headers].map(([name, value]) => `${name}: ${value}`).join('\n')}\n${call.exchange.body.toString('utf8')}`;
    const leaked = target.childClientIds.filter((other) => other !== child && raw.includes(other));
    if (leaked.length) add('CLI-CHILD-ISOLATION', 'failed', `a call for child ${child} carries the id of child ${leaked.join(', ')}`, call);
  }
  if (actedFor.size === target.childClientIds.length) exercised.add('CLI-CHILD-ISOLATION');
  else why.set('CLI-CHILD-ISOLATION', `the client acted for ${actedFor.size ? [...actedFor].join(', ') : 'no child'} of the ${target.childClientIds.length} children it was given (${target.childClientIds.join(', ')})`);

  // Retries of the order endpoint's 503s (injected unless the certifier turned it off). A request is the same when its
  // body is: a 503 answered to a request never sent again fails, so does a retry within 100 ms or a shrinking delay.
  const orders = ops.filter((c) => c.op === 'createOrder');
  const byOrder = new Map<string, Call[]>();
  for (const call of orders) byOrder.set(call.exchange.body.toString(), [...(byOrder.get(call.exchange.body.toString()) ?? []), call]);
  for (const attempts of byOrder.values()) {
    const first = attempts[0] as Call;
    if (first.exchange.status !== 503) continue;
    exercised.add('CLI-ORDER-RETRY');
    if (attempts.length === 1) {
      add('CLI-ORDER-RETRY', 'failed', `answered 503 and never sent again`, first);
      continue;
    }
    const gaps: number[] = [];
    for (let i = 1; i < attempts.length; i += 1) if ((attempts[i - 1] as Call).exchange.status === 503) gaps.push((attempts[i] as Call).exchange.at - (attempts[i - 1] as Call).exchange.at);
    const shown = `${attempts.length} attempts, delays ${gaps.map((g) => `${g} ms`).join(', ')}`;
    if (gaps.some((g) => g < 100)) add('CLI-ORDER-RETRY', 'failed', `a retry within 100 ms of the 503 (no delay): ${shown}`, first);
    else if (gaps.some((g, i) => i > 0 && g < 0.8 * (gaps[i - 1] as number))) add('CLI-ORDER-RETRY', 'failed', `delays that shrink (no backoff): ${shown}`, first);
    else if (gaps.length > 8) add('CLI-ORDER-RETRY', 'warning', `more than 8 retries: ${shown}`, first);
  }

  const statuses = new Map<string, number>();
  for (const answer of input.deliveries) {
    exercised.add('CLI-WEBHOOK-ANSWER');
    const seen = answer.status === undefined ? 'no answer' : `${answer.status} in ${answer.ms < 1000 ? '<1 s' : `${Math.ceil(answer.ms / 1000)} s`}`;
    statuses.set(seen, (statuses.get(seen) ?? 0) + 1);
    let problem: string | undefined;
    if (answer.status === undefined) problem = `no answer (${answer.error ?? 'connection failed'})`;
    else if (!/[/+]json\b/i.test(answer.contentType ?? '')) problem = `answered ${answer.status} labelled ${answer.contentType ?? '(no Content-Type)'}, not JSON: ${answer.body.slice(0, 80)}`;
    else {
      try {
        JSON.parse(answer.body);
      } catch {
        problem = `answered a body that is not JSON: ${answer.body.slice(0, 80)}`;
      }
    }
    if (problem) add('CLI-WEBHOOK-ANSWER', 'failed', `${answer.kind} delivery: ${problem}`);
  }

  if (input.scenario) {
    exercised.add('CLI-SCENARIO');
    for (const step of input.scenario) {
      const done = ops.filter((c) => c.op === step.operation && (step.with ?? []).every((field) => isObject(c.json) && c.json[field] !== undefined && c.json[field] !== null)).length;
      if (done < (step.count ?? 1)) add('CLI-SCENARIO', 'failed', `expected ${step.count ?? 1} ${step.operation}${step.with?.length ? ` with ${step.with.join(', ')}` : ''}; the client sent ${done}`);
    }
  }

  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.op ?? call.kind, (counts.get(call.op ?? call.kind) ?? 0) + 1);
  const observed: Record<string, Map<string, number>> = { 'CLI-TRAFFIC': counts, 'CLI-WEBHOOK-STATUS': statuses };
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
      const seen = observed[req.id];
      return [record(req.id, `${req.id}: recorded`, 'observed', seen ? [...seen].map(([k, n]) => `${k}: ${n}`).join(', ') || 'nothing' : 'nothing')];
    }
    const found = findings.get(req.id) ?? [];
    if (found.length) return found.map((f) => record(req.id, f.call ? label(f.call) : req.id, f.outcome === 'failed' && req.level === 'MUST' ? 'fail' : 'warn', f.detail));
    return exercised.has(req.id) ? [record(req.id, `${req.id}: every call judged`, 'pass', '')] : [record(req.id, `${req.id}: not reached`, 'not-exercised', why.get(req.id) ?? "the client's traffic never reached it")];
  });
}
