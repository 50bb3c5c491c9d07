import type { IncomingMessage, ServerResponse } from 'node:http';
import { operations, type OperationId } from '../../catalog/catalog.ts';
import { enumValues } from '../../schemas/registry.ts';
import { startCore } from '../core.ts';
import { reference } from '../flavors/reference.ts';
import { composedSandbox, forward, forwardedHeaders, listenFront, readWhole, relay } from '../front-server.ts';
import {
  compilePath,
  operationPath,
  operationRoute,
  sandboxLayout,
  serviceBase,
  tokenPath,
  type PathPattern,
} from '../layout.ts';
import type { RunningSandbox, SandboxOptions } from '../types.ts';
import { emitUnpopulated, messageOf, normalizeRequest, rpcStatus } from './proto-json.ts';

/**
 * How long after a document verification started its records exist by default (the session completes, its events go
 * out): the reference's event delay, so that the gateway's events come at once too. At 120 ms, the runs against it
 * took about 0.35 s more (seven flows waiting one after the other on two workers).
 */
export const RECORDS_READY_MS = 25;

interface GatewayRoute {
  id: OperationId;
  method: string;
  pattern: PathPattern;
  /** The path template of the operation on the inner reference sandbox. */
  innerTemplate: string;
  innerMethod: string;
}

const routes: GatewayRoute[] = operations
  .filter((op) => op.service !== 'orders')
  .map((op) => ({
    id: op.id,
    method: operationRoute('gateway', op.id).method,
    pattern: compilePath(operationPath('gateway', op)),
    innerTemplate: operationPath('reference', op),
    innerMethod: operationRoute('reference', op.id).method,
  }));

/** Paths passed through untouched: the OAuth server and the order endpoint are not behind the gateway. */
const passThrough = new Map<string, string>([
  [tokenPath('gateway', 'identity'), tokenPath('reference', 'identity')],
  [tokenPath('gateway', 'stepup'), tokenPath('reference', 'stepup')],
  [`${serviceBase('gateway', 'orders')}/v2/orders`, `${serviceBase('reference', 'orders')}/v2/orders`],
]);

const decisionEnums = { decision: enumValues('CaseDecision') };

function parseJson(buffer: Buffer): unknown {
  try {
    return buffer.length === 0 ? undefined : JSON.parse(buffer.toString('utf8'));
  } catch {
    return undefined;
  }
}

const KEPT_HEADERS = ['www-authenticate', 'retry-after', 'cache-control'];

function sendJsonAnswer(res: ServerResponse, status: number, body: unknown, from?: IncomingMessage['headers']): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  };
  for (const name of KEPT_HEADERS) {
    const value = from?.[name];
    if (typeof value === 'string') headers[name] = value;
  }
  res.writeHead(status, headers);
  res.end(text);
}

function sendRpcError(
  res: ServerResponse,
  httpStatus: number,
  message: string,
  from?: IncomingMessage['headers'],
): void {
  const { status, body } = rpcStatus(httpStatus, message);
  sendJsonAnswer(res, status, body, from);
}

/** Request headers for the inner service: the caller's, with the body re-encoded as JSON whatever it was labelled. */
function innerHeaders(req: IncomingMessage): Record<string, string | string[] | undefined> {
  const headers: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (!['host', 'content-length', 'connection', 'transfer-encoding', 'content-type'].includes(name))
      headers[name] = value;
  headers['content-type'] = 'application/json';
  return headers;
}

/**
 * The gateway flavor: a front server shaped like a gRPC service behind a protobuf JSON gateway, translating to a
 * reference sandbox behind it (both real HTTP servers on loopback), which issues one-hour tokens.
 */
export async function startGatewaySandbox(options: SandboxOptions): Promise<RunningSandbox> {
  // The records exist once the session completed, when its events go out: after the webhook delay.
  const recordsReadyMs = options.webhookDelayMs ?? RECORDS_READY_MS;
  const inner = await startCore(
    {
      ...options,
      host: '127.0.0.1',
      port: 0,
      webhookDelayMs: recordsReadyMs,
      tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 3600,
    },
    reference,
    'reference',
  );
  const readyAt = new Map<string, number>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const body = await readWhole(req);
    const through = passThrough.get(url.pathname);
    if (through)
      return relay(
        res,
        await forward(
          inner.url,
          req.method ?? 'GET',
          `${through}${url.search}`,
          forwardedHeaders(req),
          body.length ? body : undefined,
        ),
      );
    const matched = routes
      .map((route) => ({ route, match: route.pattern.regex.exec(url.pathname) }))
      .filter((m) => m.match);
    const found = matched.find((m) => m.route.method === req.method);
    if (!found)
      return sendRpcError(res, matched.length ? 405 : 404, matched.length ? 'Method Not Allowed' : 'Not Found');
    const { route, match } = found;
    const params = Object.fromEntries(
      route.pattern.params.map((name, i) => [name, decodeURIComponent(match?.[i + 1] ?? '')]),
    );
    if (route.id === 'documentRecords' && (readyAt.get(params['authenticationId'] ?? '') ?? 0) > Date.now()) {
      return sendRpcError(
        res,
        404,
        'document records are not available yet: the verification session has not completed',
      );
    }
    const op = operations.find((o) => o.id === route.id);
    let forwarded: Buffer | undefined;
    if (op?.hasBody) {
      const parsed = body.length === 0 ? {} : parseJson(body);
      if (parsed === undefined) return sendRpcError(res, 400, 'invalid character in request body: not JSON');
      forwarded = Buffer.from(
        JSON.stringify(op.requestSchema ? normalizeRequest(parsed, op.requestSchema, decisionEnums) : parsed),
      );
    }
    const innerPath = route.innerTemplate.replace(/\{([A-Za-z][A-Za-z0-9]*)\}/g, (_, name: string) =>
      encodeURIComponent(params[name] ?? ''),
    );
    const answer = await forward(
      inner.url,
      route.innerMethod,
      `${innerPath}${url.search}`,
      innerHeaders(req),
      forwarded,
    );
    const json = parseJson(answer.body);
    if (answer.status >= 400) return sendRpcError(res, answer.status, messageOf(json), answer.headers);
    if (route.id === 'documentVerification') {
      const id = (json as { authenticationId?: unknown } | undefined)?.authenticationId;
      if (typeof id === 'string') readyAt.set(id, Date.now() + recordsReadyMs);
    }
    sendJsonAnswer(
      res,
      200,
      op?.responseSchema ? emitUnpopulated(json, op.responseSchema, new Date().toISOString()) : json,
      answer.headers,
    );
  };

  const front = await listenFront(options, handle, (res, error) =>
    sendRpcError(res, 500, `the gateway failed: ${error instanceof Error ? error.message : String(error)}`),
  );
  return composedSandbox(inner, { front, flavor: 'gateway', layout: sandboxLayout('gateway') });
}
