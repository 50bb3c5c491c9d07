import { clientRequirements, type ClientRequirement } from '../../catalog/client-catalog.ts';
import { operations } from '../../catalog/catalog.ts';
import { clientChecks } from '../../kit/checks/client/checks.ts';
import type { ClientCall, ClientTarget, ClientTraffic, ScenarioStep } from '../../kit/checks/client/traffic.ts';
import { evidenceLines, type Evidence, type Findings } from '../../kit/findings.ts';
import { describeSent, type Exchange } from '../../kit/http/exchange.ts';
import { Redactor } from '../../kit/redact.ts';
import { citeAnnotation, markAnnotation, type MarkKind } from '../../kit/verdict-marks.ts';
import type { TestRecord } from '../../reporters/verdicts.ts';
import { compilePath } from '../../sandbox/layout.ts';
import type { DeliveryAnswer, RecordedExchange } from '../../sandbox/server.ts';

export type { ClientTarget, ScenarioStep };

const pathOf = (url: string) => new URL(url).pathname;

/** Each operation's method and path pattern on the sandbox, as the client was given them. */
function operationRoutes(target: ClientTarget) {
  const bases = { identity: target.identityBaseUrl, stepup: target.stepupBaseUrl, orders: target.ordersBaseUrl };
  return operations.flatMap((op) => {
    const text = op.fixedRoute ?? target.routes[op.id];
    if (!text) return [];
    const [method = 'GET', route = '/'] = text.split(' ');
    return [{ op, method: method.toUpperCase(), pattern: compilePath(pathOf(bases[op.service]) + route) }];
  });
}

function parsedBody(exchange: RecordedExchange): { json?: unknown; jsonError?: string } {
  const text = exchange.body.toString('utf8');
  if (text.length === 0) return {};
  try {
    return { json: JSON.parse(text) };
  } catch (error) {
    return { jsonError: (error as Error).message };
  }
}

/** Every request the client sent, as a token request, a call of an operation (its route's parameters and body) or other. */
function classify(exchanges: readonly RecordedExchange[], target: ClientTarget): ClientCall[] {
  const routes = operationRoutes(target);
  const tokenPaths = { identity: pathOf(target.identityTokenUrl), stepup: pathOf(target.stepupTokenUrl) };
  return exchanges.map((exchange, index) => {
    const headers = new Map<string, string>();
    for (let i = 0; i + 1 < exchange.rawHeaders.length; i += 2)
      headers.set((exchange.rawHeaders[i] as string).toLowerCase(), exchange.rawHeaders[i + 1] as string);
    const path = exchange.url.split('?')[0] ?? '/';
    const call: ClientCall = { seq: index + 1, exchange, kind: 'other', headers, params: {} };
    if (path === tokenPaths.identity || path === tokenPaths.stepup)
      return { ...call, kind: 'token', service: path === tokenPaths.identity ? 'identity' : 'stepup' };
    const found = routes.find((r) => r.method === exchange.method && r.pattern.regex.test(path));
    if (!found) return call;
    const values = found.pattern.regex.exec(path)?.slice(1) ?? [];
    const params = Object.fromEntries(
      found.pattern.params.map((name, i) => [name, decodeURIComponent(values[i] ?? '')]),
    );
    const service = found.op.service === 'stepup' ? 'stepup' : 'identity';
    return { ...call, kind: 'operation', op: found.op.id, service, params, ...parsedBody(exchange) };
  });
}

/**
 * What the client checks found, kept as the server side's tests leave theirs: one record per failed finding (or per
 * requirement without one), citing its requirement with a verdict mark, so that the same engine
 * (reporters/verdicts.ts) and the same writers turn both sides into a matrix and JUnit. INFO requirements are
 * recorded as observations, counted by kind, and never fail.
 */
class ClientFindings implements Findings {
  private readonly failed = new Map<string, Evidence[]>();
  private readonly exercised = new Set<string>();
  private readonly observed = new Map<string, Map<string, number>>();
  // The session redacts the records with the certification's own secrets; this one removes token fields.
  private readonly redactor = new Redactor([]);

  check(id: string, ok: boolean, evidence: () => Evidence): boolean {
    this.exercised.add(id);
    if (!ok) this.failed.set(id, [...(this.failed.get(id) ?? []), evidence()]);
    return ok;
  }

  observe(id: string, observation: string): void {
    const seen = this.observed.get(id) ?? new Map<string, number>();
    seen.set(observation, (seen.get(observation) ?? 0) + 1);
    this.observed.set(id, seen);
  }

  sent(exchange: Exchange): string {
    return describeSent(exchange, this.redactor);
  }

  redacted(value: unknown): string {
    return JSON.stringify(this.redactor.json(value)) ?? String(value);
  }

  /** The records of one requirement: not configured, observed, one per failure, passed or not reached. */
  recordsOf(req: ClientRequirement, notConfigured: string | undefined): TestRecord[] {
    if (notConfigured) return [record(req.id, `${req.id}: not configured`, 'not-configured', notConfigured)];
    if (req.level === 'INFO') {
      const seen = [...(this.observed.get(req.id) ?? [])].map(([what, n]) => (n > 1 ? `${what} (×${n})` : what));
      return [record(req.id, `${req.id}: recorded`, 'observed', seen.join('; ') || 'nothing')];
    }
    const failures = this.failed.get(req.id) ?? [];
    if (failures.length)
      return failures.map((evidence) =>
        record(
          req.id,
          evidence.sent ?? req.id,
          req.level === 'MUST' ? 'fail' : 'warn',
          evidenceLines(evidence)
            .map((line) => line.replace(/^ {2}/, ''))
            .join('\n'),
        ),
      );
    return this.exercised.has(req.id)
      ? [record(req.id, `${req.id}: every call judged`, 'pass', '')]
      : [record(req.id, `${req.id}: not reached`, 'not-exercised', "the client's traffic never reached it")];
  }
}

function record(id: string, title: string, kind: MarkKind, detail: string): TestRecord {
  return {
    title,
    project: 'client',
    location: 'catalog/client-requirements.json',
    status: kind === 'fail' ? 'failed' : kind === 'not-configured' ? 'skipped' : 'passed',
    ...(kind === 'fail' ? { errorName: 'RequirementFailure' } : {}),
    annotations: [citeAnnotation(id), markAnnotation({ kind, id, detail })],
  };
}

/** What the client checks judge: the recorded requests classified, the answers to the deliveries, the target. */
export function clientTraffic(input: {
  exchanges: readonly RecordedExchange[];
  deliveries: readonly DeliveryAnswer[];
  target: ClientTarget;
  scenario?: readonly ScenarioStep[];
}): ClientTraffic {
  return {
    calls: classify(input.exchanges, input.target),
    deliveries: input.deliveries,
    target: input.target,
    ...(input.scenario ? { scenario: input.scenario } : {}),
  };
}

/**
 * Judges everything a client sent, and how it answered the webhook deliveries, by the check of each client
 * requirement (kit/checks/client/checks.ts); the result is what the server side's tests leave behind.
 */
export function judgeClient(input: {
  exchanges: readonly RecordedExchange[];
  deliveries: readonly DeliveryAnswer[];
  target: ClientTarget;
  scenario?: readonly ScenarioStep[];
  /** Requirements the certifier's options left out, each with the option that would exercise it. */
  notConfigured: ReadonlyMap<string, string>;
}): TestRecord[] {
  const traffic = clientTraffic(input);
  const findings = new ClientFindings();
  for (const req of clientRequirements) {
    const check = clientChecks[req.id];
    if (!check) throw new Error(`${req.id} has no check in kit/checks/client/checks.ts`);
    if (!input.notConfigured.has(req.id)) check(findings, req.id, traffic);
  }
  return clientRequirements.flatMap((req) => findings.recordsOf(req, input.notConfigured.get(req.id)));
}
