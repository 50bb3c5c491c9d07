import { randomBytes } from 'node:crypto';
import { operation, operations, type OperationId, type ServiceName } from '../../catalog/catalog.ts';
import { Api } from '../../kit/api.ts';
import {
  caseUpdate,
  minimalAssessment,
  unknownCaseId,
  type BodyContext,
  type CaseRef,
} from '../../kit/builders/identity-bodies.ts';
import { seededFaker } from '../../kit/builders/seeded-faker.ts';
import type { RoutedOperationId, SuiteConfig } from '../../kit/config/suite-config.ts';
import { formatRoute } from '../../kit/config/route.ts';
import type { Sender } from '../../kit/http/sender.ts';
import { mediaType, type Exchange } from '../../kit/http/exchange.ts';
import type { Redactor } from '../../kit/redact.ts';
import { TokenProvider, type TokenSource } from '../../kit/tokens.ts';
import { isObject } from '../../schemas/json-value.ts';
import type { Finding } from './findings.ts';
import { accepted as succeeded } from '../../kit/http/consequence.ts';

/**
 * Whether each route of the configuration reaches its operation, told without running a check: each operation's answer
 * is compared with the answer, to the same method, headers and body, of a path under the same base URL that nothing
 * serves. Gateways answer 401 or 403 to unknown paths, and a 404 is a correct answer for an unknown case, so a route is
 * missed for certain only when its answer cannot be told from nothing's and the doctor's request could not have been
 * answered so by a correct route; anything else it cannot decide is a warning saying why.
 *
 * Its side effects on the target are SIDE_EFFECTS.
 */

/** What the probes do to the target, said by npm run doctor and docs/doctor.md. */
export const SIDE_EFFECTS =
  "one case is created (a minimal assessment) and updated without a change; the document verification and the order endpoint get a JSON array where an object belongs (refused: no document session, no order); the step-up gets that case's authenticationId without inquiryId, phone number or email (a required member missing, and no channel: no passcode can be sent to anyone).";

interface ProbeRequest {
  body?: unknown;
  rawBody?: string;
  pathParams?: Record<string, string>;
  /** What the request is, for the report. */
  sends: string;
  /** A correct route cannot answer this request 404: a 404 that looks like nothing's answer is a definite miss. */
  notFoundIsWrong: boolean;
}

const NOT_AN_OBJECT = '[]';

function probeRequest(id: OperationId, config: SuiteConfig, data: BodyContext, ref: CaseRef | undefined): ProbeRequest {
  const caseId = ref?.authenticationId ?? unknownCaseId(data);
  switch (id) {
    case 'assessment':
      return {
        body: minimalAssessment(data, config.strategies.assessment),
        sends: 'a minimal assessment that creates a case',
        notFoundIsWrong: true,
      };
    case 'documentVerification':
      return { rawBody: NOT_AN_OBJECT, sends: 'a JSON array where 2.3 wants an object', notFoundIsWrong: true };
    case 'documentRecords':
      return {
        pathParams: { authenticationId: caseId },
        sends: ref
          ? 'the records of the case the probe created, which has no document verification'
          : 'the records of a case nobody created',
        notFoundIsWrong: false,
      };
    case 'fetchAssessment':
      return {
        pathParams: { caseId },
        sends: ref ? 'the case the probe created' : 'a case nobody created, as the assessment gave none',
        notFoundIsWrong: ref !== undefined,
      };
    case 'caseUpdate':
      return ref
        ? {
            body: caseUpdate(ref),
            sends: 'an update of the case the probe created that changes nothing',
            notFoundIsWrong: true,
          }
        : { body: {}, sends: 'an empty update, as the assessment gave no case', notFoundIsWrong: false };
    case 'stepUp':
      return ref
        ? {
            body: { authenticationId: ref.authenticationId },
            sends: 'the case the probe created without inquiryId, phone number or email',
            notFoundIsWrong: true,
          }
        : { body: {}, sends: 'an empty step-up', notFoundIsWrong: false };
    case 'createOrder':
      return { rawBody: NOT_AN_OBJECT, sends: 'a JSON array where an order belongs', notFoundIsWrong: true };
  }
}

interface Probed {
  id: OperationId;
  request: ProbeRequest;
  answer?: Exchange;
  nothing?: Exchange;
  /** Why there is no answer to judge. */
  failure?: string;
}

/** Where an operation is configured: the variables to name and their values. */
function placement(config: SuiteConfig, id: OperationId): string {
  const op = operation(id);
  const target = config.services[op.service];
  const route = op.routeEnv
    ? `${op.routeEnv}="${formatRoute(config.routes[id as RoutedOperationId])}"`
    : `"${op.fixedRoute}" (fixed by the document)`;
  return `${route} under ${target.variables.baseUrl}=${target.baseUrl}`;
}

/**
 * The answer with what varies from one request to another taken out: the path the request named (error bodies echo it),
 * and ids, hashes, times and counters. Two answers with the same fingerprint cannot be told apart.
 */
export function fingerprint(exchange: Exchange): string {
  const url = new URL(exchange.request.url);
  const echoes = [exchange.request.url, url.pathname, safeDecode(url.pathname), `${url.pathname}${url.search}`]
    .filter((s) => s.length > 1)
    .sort((a, b) => b.length - a.length);
  let text = exchange.text;
  for (const echo of echoes) text = text.split(echo).join('{path}');
  text = text.replace(/[0-9a-f]{8,}(?:-[0-9a-f]{4,})*/gi, '#').replace(/\d+/g, '#');
  return `${exchange.status} ${mediaType(exchange) ?? '(no type)'} ${text}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const sent = (exchange: Exchange) => `${exchange.request.method} ${new URL(exchange.request.url).pathname}`;

function judge(config: SuiteConfig, probed: Probed, servedOnService: (service: ServiceName) => boolean): Finding {
  const op = operation(probed.id);
  const subject = op.routeEnv ?? `${config.services[op.service].variables.baseUrl} (${op.fixedRoute})`;
  const where = placement(config, probed.id);
  const { answer, nothing, request } = probed;
  if (!answer || !nothing)
    return {
      topic: 'route',
      subject,
      severity: 'warning',
      text: `could not decide for ${where}: ${probed.failure ?? 'no answer'}`,
    };
  const told = `${sent(answer)}, ${request.sends}, was answered ${answer.status}`;
  const alike = fingerprint(answer) === fingerprint(nothing);
  const asNothing = `exactly as ${sent(nothing)}, a path nothing serves, was answered`;
  if (succeeded(answer) && alike)
    return {
      topic: 'route',
      subject,
      severity: 'warning',
      text: `could not decide for ${where}: ${told} ${asNothing} (the base URL answers every path alike)`,
    };
  if (succeeded(answer)) return { topic: 'route', subject, severity: 'ok', text: told };
  if (answer.status === 405)
    return {
      topic: 'route',
      subject,
      severity: 'problem',
      text: `nothing serves ${where}: ${told}, which says the path is not served for ${answer.request.method}${answer.headers.allow ? ` (Allow: ${answer.headers.allow})` : ''}`,
    };
  if (!alike)
    return {
      topic: 'route',
      subject,
      severity: 'ok',
      text: `${told}, unlike a path nothing serves under the same base URL (${nothing.status}): something serves it`,
    };
  if (answer.status === 404 && request.notFoundIsWrong)
    return { topic: 'route', subject, severity: 'problem', text: `nothing serves ${where}: ${told} ${asNothing}` };
  if ((answer.status === 401 || answer.status === 403) && servedOnService(op.service)) {
    return {
      topic: 'route',
      subject,
      severity: 'problem',
      text: `nothing serves ${where}: ${told} ${asNothing}, while the same token is accepted by another route of the service`,
    };
  }
  const why =
    answer.status === 404
      ? 'a 404 is a correct answer to this request'
      : answer.status === 401 || answer.status === 403
        ? `gateways answer ${answer.status} to unknown paths, and no other route of the service accepted the token to tell them apart`
        : `the base URL answers ${answer.status} to a path nothing serves too`;
  return {
    topic: 'route',
    subject,
    severity: 'warning',
    text: `could not decide for ${where}: ${told} ${asNothing} (${why})`,
  };
}

export interface RouteProbeParts {
  config: SuiteConfig;
  http: Sender;
  tokens: TokenSource;
  redactor: Redactor;
  /** Services whose token could not be had: their routes are not probed. */
  skip?: ReadonlyMap<ServiceName, string>;
}

/** One finding per route (the order endpoint's included), in the catalog's order of the operations. */
export async function probeRoutes(parts: RouteProbeParts): Promise<Finding[]> {
  const { config, http, redactor } = parts;
  const noToken = (what: string, actual: string): never => {
    throw new Error(`${what}: ${actual}`);
  };
  const api = new Api({
    config,
    http,
    tokens: new TokenProvider(parts.tokens, redactor),
    record: async () => undefined,
    step: (_title, body) => body(),
    blocked: noToken,
  });
  const data: BodyContext = { faker: seededFaker(config.seed, 'doctor'), runTag: config.runTag, templates: {} };
  const nowhere = `/conformance-no-such-path-${config.runTag}-${randomBytes(4).toString('hex')}`;

  const send = async (id: OperationId, request: ProbeRequest): Promise<Probed> => {
    const skipped = parts.skip?.get(operation(id).service);
    if (skipped) return { id, request, failure: skipped };
    try {
      const options = { ...request, note: 'npm run doctor' };
      const headers = await api.headers(id, options);
      const body = request.rawBody ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
      const base = config.services[operation(id).service].baseUrl;
      const [answer, nothing] = await Promise.all([
        api.call(id, options),
        http.send({
          label: id,
          method: api.method(id),
          url: `${base}${nowhere}`,
          headers,
          ...(body !== undefined ? { body } : {}),
          note: 'a path nothing serves',
        }),
      ]);
      return { id, request, answer, nothing };
    } catch (error) {
      return { id, request, failure: redactor.text(error instanceof Error ? error.message : String(error)) };
    }
  };

  const ids = operations.map((op) => op.id);
  const assessment = await send('assessment', probeRequest('assessment', config, data, undefined));
  const created =
    assessment.answer && succeeded(assessment.answer) && isObject(assessment.answer.json)
      ? assessment.answer.json.authenticationId
      : undefined;
  const inquiryId = (assessment.request.body as { inquiryId: string }).inquiryId;
  const ref = typeof created === 'string' && created !== '' ? { inquiryId, authenticationId: created } : undefined;
  const rest = await Promise.all(
    ids.filter((id) => id !== 'assessment').map((id) => send(id, probeRequest(id, config, data, ref))),
  );
  const probed = [assessment, ...rest].sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
  const served = new Set(probed.filter((p) => p.answer && succeeded(p.answer)).map((p) => operation(p.id).service));
  const skipped = [...(parts.skip?.keys() ?? [])].map((service): Finding => {
    const routes = operations.filter((op) => op.service === service).map((op) => op.routeEnv ?? op.fixedRoute);
    return {
      topic: 'route',
      subject: `${service} routes`,
      severity: 'warning',
      text: `not probed (${routes.join(', ')}): the service gave no token`,
    };
  });
  return [
    ...probed
      .filter((p) => !parts.skip?.has(operation(p.id).service))
      .map((p) => judge(config, p, (service) => served.has(service))),
    ...skipped,
  ];
}
