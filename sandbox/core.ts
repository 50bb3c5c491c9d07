import { STATUS_CODES, createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { operation } from '../catalog/catalog.ts';
import type { OperationId } from '../catalog/catalog.ts';
import { readBody } from './body.ts';
import { CaseStore } from './cases.ts';
import type { Exchange, Handler, SandboxContext } from './context.ts';
import { allowedValues } from './enums.ts';
import { refusal, sendJson, sendRefusal } from './errors.ts';
import { FaultSet } from './faults.ts';
import {
  assessmentHandler,
  caseUpdateHandler,
  documentRecordsHandler,
  documentVerificationHandler,
  fetchAssessmentHandler,
} from './identity-routes.ts';
import type { CoreBehaviour } from './flavors/behaviour.ts';
import { compilePath, operationPath, operationRoute, sandboxLayout, serviceBase, tokenPath } from './layout.ts';
import type { LayoutName, PathPattern } from './layout.ts';
import { createOrderHandler } from './orders.ts';
import { listening } from './listen.ts';
import { stepUpHandler } from './step-up-routes.ts';
import { tokenHandler } from './token-endpoint.ts';
import { TokenIssuer } from './tokens.ts';
import type { Flavor, ReceivedRequest, RecordedExchange, RunningSandbox, SandboxOptions, SecondCore } from './types.ts';
import { WebhookSender } from './webhooks.ts';

const operationHandlers: Record<Exclude<OperationId, 'createOrder'>, Handler> = {
  assessment: assessmentHandler,
  documentVerification: documentVerificationHandler,
  documentRecords: documentRecordsHandler,
  fetchAssessment: fetchAssessmentHandler,
  caseUpdate: caseUpdateHandler,
  stepUp: stepUpHandler,
};

interface Resource {
  pattern: PathPattern;
  /** Handlers by method; '*' takes every method (the handler answers wrong methods itself). */
  methods: Map<string, Handler>;
  /** How a wrong method is answered on this path. */
  wrongMethod: Handler;
}

/** Liveness, with what a long run needs to watch: memory and the cases kept. */
const healthHandler: Handler = (ctx, ex) =>
  sendJson(ex.res, 200, {
    status: 'ok',
    rssBytes: process.memoryUsage().rss,
    heapUsedBytes: process.memoryUsage().heapUsed,
    cases: ctx.cases.size,
    unanswered: ctx.unanswered,
  });

const echoHandler: Handler = (_ctx, ex) => {
  if (ex.body.kind !== 'ok')
    return sendRefusal(ex.res, refusal(413, 'body_too_large', 'the request body is larger than 1 MiB'));
  sendJson(ex.res, 200, {
    method: ex.method,
    url: ex.req.url ?? '',
    rawHeaders: ex.req.rawHeaders,
    bodyBase64: ex.body.bytes.toString('base64'),
  });
};

/** Not part of the API: shows a case as stored, including what 2.2 does not expose (queue, rejection code). */
const caseStateHandler: Handler = (ctx, ex) => {
  const id = ex.params['authenticationId'] ?? '';
  const found = ctx.cases.get(id);
  if (!found) return sendRefusal(ex.res, refusal(404, 'case_not_found', `no case has the identifier ${id}`));
  sendJson(ex.res, 200, found);
};

function methodNotAllowed(allowed: string[]): Handler {
  return (_ctx, ex) =>
    sendRefusal(
      ex.res,
      refusal(405, 'method_not_allowed', `use ${allowed.join(' or ')}`, { allow: allowed.join(', ') }),
    );
}

function buildResources(layout: LayoutName): Resource[] {
  const byPath = new Map<string, Map<string, Handler>>();
  const add = (path: string, method: string, handler: Handler): void => {
    const methods = byPath.get(path) ?? new Map<string, Handler>();
    if (methods.has(method)) throw new Error(`Two sandbox routes for ${method} ${path}`);
    methods.set(method, handler);
    byPath.set(path, methods);
  };
  add(tokenPath(layout, 'identity'), '*', tokenHandler('identity'));
  add(tokenPath(layout, 'stepup'), '*', tokenHandler('stepup'));
  for (const [id, handler] of Object.entries(operationHandlers) as [keyof typeof operationHandlers, Handler][]) {
    add(operationPath(layout, operation(id)), operationRoute(layout, id).method, handler);
  }
  add(serviceBase(layout, 'orders') + operationRoute(layout, 'createOrder').route, '*', createOrderHandler);
  add('/__sandbox/health', 'GET', healthHandler);
  add('/__sandbox/echo', '*', echoHandler);
  add('/__sandbox/cases/{authenticationId}', 'GET', caseStateHandler);
  return [...byPath.entries()].map(([path, methods]) => ({
    pattern: compilePath(path),
    methods,
    wrongMethod: methodNotAllowed([...methods.keys()]),
  }));
}

function splitTarget(target: string): { path: string; query: URLSearchParams } {
  let rest = target;
  if (!rest.startsWith('/')) {
    try {
      const absolute = new URL(rest);
      rest = absolute.pathname + absolute.search;
    } catch {
      rest = '/';
    }
  }
  const mark = rest.indexOf('?');
  return mark < 0
    ? { path: rest, query: new URLSearchParams() }
    : { path: rest.slice(0, mark), query: new URLSearchParams(rest.slice(mark + 1)) };
}

function decodeParams(names: string[], values: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  try {
    names.forEach((name, index) => {
      params[name] = decodeURIComponent(values[index] ?? '');
    });
  } catch {
    return undefined;
  }
  return params;
}

async function handleRequest(
  ctx: SandboxContext,
  resources: Resource[],
  req: IncomingMessage,
  res: ServerResponse,
  onRequest?: (request: ReceivedRequest) => void,
): Promise<void> {
  req.on('error', () => undefined);
  res.on('error', () => undefined);
  const body = await readBody(req);
  if (onRequest && body.kind === 'ok')
    onRequest({ method: req.method ?? 'GET', url: req.url ?? '/', rawHeaders: req.rawHeaders, body: body.bytes });
  if (body.kind === 'aborted') {
    res.destroy();
    return;
  }
  if (body.kind === 'too-large') res.shouldKeepAlive = false;
  const method = (req.method ?? 'GET').toUpperCase();
  const { path, query } = splitTarget(req.url ?? '/');
  for (const resource of resources) {
    const match = resource.pattern.regex.exec(path);
    if (!match) continue;
    const params = decodeParams(resource.pattern.params, match.slice(1));
    if (!params) return sendRefusal(res, refusal(400, 'bad_path', 'the path is not correctly percent-encoded'));
    const ex: Exchange = { req, res, method, path, query, params, body };
    const handler = resource.methods.get(method) ?? resource.methods.get('*') ?? resource.wrongMethod;
    await handler(ctx, ex);
    if (!res.writableEnded) ctx.unanswered += 1;
    return;
  }
  sendRefusal(res, refusal(404, 'not_found', `nothing is served at ${path}`));
}

function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = JSON.stringify({ error: { code: 'bad_request', message: STATUS_CODES[status] ?? 'bad request' } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * Which requests a flaky sandbox answers 503 before reading them: a seeded sequence, so that a run can be replayed.
 * The sandbox's own endpoints (/__sandbox/...) are never flaky.
 */
function flakySelector(rate: number, seed: string, inScope: (url: string) => boolean): (url: string) => boolean {
  if (rate <= 0) return () => false;
  let state = [...seed].reduce((hash, char) => (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0, 2166136261);
  return (url) => {
    if (url.startsWith('/__sandbox/') || !inScope(url)) return false;
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 < rate;
  };
}

/** The part-7 503 row, for any path: what a flaky gateway in front of every service answers. */
function sendUnavailable(res: ServerResponse): void {
  res.shouldKeepAlive = false;
  sendJson(
    res,
    503,
    {
      message: 'the service is currently unavailable: a transient condition, retry with backoff',
      errorType: 'unavailable',
      code: 503,
    },
    { 'retry-after': '0' },
  );
}

/** Milliseconds since the epoch, to a fraction: a retry's gap is judged to below a millisecond (client certification). */
const preciseNow = (): number => performance.timeOrigin + performance.now();

/** Keeps what arrived, and the status once the answer is sent. */
function record(req: IncomingMessage, res: ServerResponse, onExchange: (exchange: RecordedExchange) => void): void {
  const at = preciseNow();
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= 1024 * 1024) chunks.push(chunk);
  });
  res.on('finish', () =>
    onExchange({
      at,
      answeredAt: preciseNow(),
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      rawHeaders: req.rawHeaders,
      body: Buffer.concat(chunks),
      status: res.statusCode,
    }),
  );
}

function optionError(name: string, expected: string): Error {
  return new Error(`startSandbox: ${name} must be ${expected}`);
}

/** The options a core takes, checked, with their defaults. */
interface CoreSettings {
  tokenSecret: string;
  port: number;
  webhookDelayMs: number;
  tokenLifetimeSeconds: number | undefined;
  webhookUrl: URL | undefined;
  flaky503Rate: number;
  latencyMs: number;
  requestTimeoutMs: number;
}

function coreSettings(options: SandboxOptions): CoreSettings {
  if (typeof options.tokenSecret !== 'string' || options.tokenSecret === '')
    throw optionError('tokenSecret', 'a non-empty string');
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw optionError('port', 'an integer from 0 to 65535');
  const webhookDelayMs = options.webhookDelayMs ?? 25;
  if (!Number.isFinite(webhookDelayMs) || webhookDelayMs < 0)
    throw optionError('webhookDelayMs', 'a number of milliseconds, 0 or more');
  const lifetime = options.tokenLifetimeSeconds;
  if (lifetime !== undefined && (!Number.isInteger(lifetime) || lifetime <= 0))
    throw optionError('tokenLifetimeSeconds', 'a positive integer');
  let webhookUrl: URL | undefined;
  if (options.webhookUrl !== undefined) {
    webhookUrl = URL.canParse(options.webhookUrl) ? new URL(options.webhookUrl) : undefined;
    if (!webhookUrl || !['http:', 'https:'].includes(webhookUrl.protocol))
      throw optionError('webhookUrl', 'an http or https URL');
  }
  const flaky503Rate = options.flaky503Rate ?? 0;
  if (!(flaky503Rate >= 0 && flaky503Rate <= 1)) throw optionError('flaky503Rate', 'a share from 0 to 1');
  const latencyMs = options.latencyMs ?? 0;
  if (!Number.isInteger(latencyMs) || latencyMs < 0)
    throw optionError('latencyMs', 'a whole number of milliseconds, 0 or more');
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs <= 0)
    throw optionError('requestTimeoutMs', 'a positive number of milliseconds');
  const tokenSecret = options.tokenSecret;
  return {
    tokenSecret,
    port,
    webhookDelayMs,
    tokenLifetimeSeconds: lifetime,
    webhookUrl,
    flaky503Rate,
    latencyMs,
    requestTimeoutMs,
  };
}

/** What the routes share: the behaviour, the faults, the tokens, cases and orders kept, the webhook sender. */
function contextOf(behaviour: CoreBehaviour, options: SandboxOptions, settings: CoreSettings): SandboxContext {
  const faults = new FaultSet(options.faults ?? []);
  return {
    behaviour,
    layout: sandboxLayout(behaviour.layout),
    faults,
    tokens: new TokenIssuer(
      behaviour.tokens.kind,
      settings.tokenSecret,
      settings.tokenLifetimeSeconds ?? behaviour.tokens.lifetimeSeconds,
      options.onTokenIssued,
    ),
    cases: new CaseStore(behaviour),
    webhooks: new WebhookSender(
      settings.webhookUrl,
      settings.webhookDelayMs,
      behaviour.webhookHeaders,
      faults,
      options.webhookWarnings === false ? () => undefined : options.warn,
      options.onDelivery,
      options.webhookRobustness ?? false,
      options.webhookTimeoutMs,
    ),
    placedOrders: new Set(),
    unanswered: 0,
    origin: '',
  };
}

/** The second core of SandboxOptions.beside: the first's options but for its faults and its webhooks' address. */
function secondCore(behaviour: CoreBehaviour, first: SandboxOptions, beside: SecondCore) {
  const options: SandboxOptions = {
    ...first,
    faults: [...beside.faults],
    faultsOf: undefined,
    beside: undefined,
    webhookUrl: beside.webhookUrl,
  };
  const settings = coreSettings(options);
  return { takes: beside.takes, options, settings, ctx: contextOf(behaviour, options, settings) };
}

/**
 * Every request of the core: counted, recorded when asked, answered 503 when the flaky selection picks it, else
 * handed to its route after the latency, within the faults its headers select; a route that throws is answered 500.
 */
function coreListener(
  ctx: SandboxContext,
  options: SandboxOptions,
  settings: CoreSettings,
  count: () => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  const resources = buildResources(ctx.behaviour.layout);
  const flaky = flakySelector(
    settings.flaky503Rate,
    settings.tokenSecret,
    options.flaky503Scope === 'orders' ? (url) => url.includes('/v2/orders') : () => true,
  );
  const { latencyMs } = settings;
  return (req, res) => {
    count();
    if (options.onExchange) record(req, res, options.onExchange);
    if (flaky(req.url ?? '/')) {
      // Read first, so that the recording holds the body the client sent.
      void readBody(req).then(() => sendUnavailable(res));
      return;
    }
    const handled = () =>
      ctx.faults.within(options.faultsOf?.(req.headers), () =>
        handleRequest(ctx, resources, req, res, options.onRequest),
      );
    (latencyMs > 0 ? new Promise((resolve) => setTimeout(resolve, latencyMs)).then(handled) : handled()).catch(
      (error: unknown) => {
        if (res.headersSent) return res.destroy();
        const message = `the sandbox failed: ${error instanceof Error ? error.message : String(error)}`;
        sendRefusal(res, refusal(500, 'internal', message));
      },
    );
  };
}

/**
 * Starts one implementation of the document on one origin, behaving as `behaviour` says (a flavor of
 * sandbox/flavors/): the HTTP server that every flavor is, or stands in front of.
 */
export async function startCore(
  options: SandboxOptions,
  behaviour: CoreBehaviour,
  flavor: Flavor,
): Promise<RunningSandbox> {
  const settings = coreSettings(options);
  const ctx = contextOf(behaviour, options, settings);
  const second = options.beside && secondCore(behaviour, options, options.beside);
  for (const name of ['DocumentRecordsData', 'CaseDecision', 'FulfillmentType'] as const) allowedValues(name);
  let requests = 0;
  // Node checks the timeouts every connectionsCheckingInterval (30 s by default): often enough to cut a slow sender.
  const { requestTimeoutMs } = settings;
  const timeouts = {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(requestTimeoutMs, 60_000),
    connectionsCheckingInterval: Math.min(1_000, requestTimeoutMs),
  };
  const count = () => (requests += 1);
  const first = coreListener(ctx, options, settings, count);
  const other = second && coreListener(second.ctx, second.options, second.settings, count);
  const server = createServer(timeouts, (req, res) =>
    other && second.takes(req.headers) ? other(req, res) : first(req, res),
  );
  server.on('clientError', answerClientError);
  const host = options.host ?? '127.0.0.1';
  const port = await listening(server, settings.port, host);
  server.on('error', (error) => (options.warn ?? console.warn)(`sandbox: server error: ${error.message}`));
  ctx.origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (second) second.ctx.origin = ctx.origin;
  const contexts = second ? [ctx, second.ctx] : [ctx];

  let closing: Promise<void> | undefined;
  return {
    url: ctx.origin,
    flavor,
    layout: ctx.layout,
    faults: ctx.faults.ids,
    tokenLifetimeSeconds: ctx.tokens.lifetimeSeconds,
    get deliveries() {
      return contexts.reduce((sum, c) => sum + c.webhooks.deliveries, 0);
    },
    get requests() {
      return requests;
    },
    webhooksIdle: async () => void (await Promise.all(contexts.map((c) => c.webhooks.idle()))),
    caseOf: (authenticationId) => {
      const found = contexts.map((c) => c.cases.get(authenticationId)).find(Boolean);
      return found ? { inquiryId: found.inquiryId } : undefined;
    },
    checkToken: (token, service) => {
      const checked = ctx.tokens.check(token, service);
      return checked.ok ? { ok: true } : { ok: false, reason: checked.reason };
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const c of contexts) c.webhooks.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
