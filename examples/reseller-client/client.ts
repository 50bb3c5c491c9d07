import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

// A small, well-behaved client of the API acting for a reseller's child organisation, as a certifier would run it:
//   npm run certify-client -- --run "npx tsx examples/reseller-client/client.ts" --scenario examples/reseller-client/scenario.json
// It reads the URLs, routes and credentials from its environment (the certification sets them), performs the default
// scenario and answers the webhook deliveries. CLIENT_FAULT=<name>[,<name>…] makes it misbehave in each way named, for
// the self-tests.
const env = process.env;
const faults = new Set((env.CLIENT_FAULT ?? '').split(',').filter(Boolean));
const fault = (name: string): boolean => faults.has(name);
const need = (name: string): string => env[name] ?? (console.error(`client: ${name} is not set`), process.exit(2));

type Service = 'identity' | 'stepup';
const tokenUrls: Record<Service, string> = { identity: need('IDENTITY_TOKEN_URL'), stepup: need('STEPUP_TOKEN_URL') };
const cached = new Map<string, { token: string; expiresAt: number }>();

/** A token of the service's token endpoint, reused until a minute before it expires. */
async function token(service: Service, apiKey: string): Promise<string> {
  const key = `${service} ${apiKey}`;
  const hit = cached.get(key);
  if (hit && hit.expiresAt > Date.now()) return hit.token;
  const scope = fault('wrong-scope') ? 'k1_integration_api openid' : 'k1_integration_api';
  const reply = await fetch(tokenUrls[service], {
    method: 'POST',
    headers: { authorization: `Basic ${apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
  if (reply.status !== 200) throw new Error(`token endpoint answered ${reply.status}`);
  const body = (await reply.json()) as { access_token: string; expires_in: number };
  cached.set(key, { token: body.access_token, expiresAt: Date.now() + (body.expires_in - 60) * 1000 });
  return body.access_token;
}

interface Caller {
  apiKey: string;
  clientId: string;
}

const main: Caller = { apiKey: need('API_KEY'), clientId: need('CLIENT_ID') };
const reseller: Caller = { apiKey: need('RESELLER_API_KEY'), clientId: env.RESELLER_CLIENT_ID ?? 'sandbox-reseller' };
// Every child organisation it acts for, each with its own sharedContext (one child when only RESELLER_SOURCE_CLIENT_ID is given).
const children = (env.RESELLER_CHILD_CLIENT_IDS ?? need('RESELLER_SOURCE_CLIENT_ID')).split(',');
const contexts = JSON.parse(
  env.RESELLER_CHILD_SHARED_CONTEXTS ??
    JSON.stringify({ [children[0] as string]: JSON.parse(env.RESELLER_SHARED_CONTEXT ?? '{}') }),
) as Record<string, Record<string, unknown>>;

function route(name: string, params: Record<string, string> = {}): { method: string; path: string } {
  const [method = 'POST', path = '/'] = need(name).split(' ');
  return { method, path: path.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(params[p] ?? '')) };
}

const oneCorrelationId = randomUUID();
// CLIENT_FAULT=shared-get-correlation-id: the record fetches of both children (different GETs, no body) share one id.
const recordsCorrelationId = randomUUID();

async function call(
  service: Service | 'orders',
  routeName: string | undefined,
  caller: Caller,
  options: {
    body?: unknown;
    params?: Record<string, string>;
    headers?: Record<string, string>;
    correlationId?: string;
  } = {},
): Promise<Response> {
  const base =
    service === 'stepup'
      ? need('STEPUP_BASE_URL')
      : service === 'orders'
        ? need('ORDERS_BASE_URL')
        : need('IDENTITY_BASE_URL');
  const { method, path } = routeName ? route(routeName, options.params) : { method: 'POST', path: '/v2/orders' };
  const tokenService: Service = service === 'stepup' ? 'stepup' : 'identity';
  const bearer = await token(tokenService, caller.apiKey);
  // CLIENT_FAULT=no-bearer, no-client-id: the step-up call (nothing waits on its answer) without them.
  const stepUpFault = (name: string) => service === 'stepup' && fault(name);
  const headers: Record<string, string> = {
    authorization: stepUpFault('no-bearer') ? bearer : `Bearer ${bearer}`,
    ...(stepUpFault('no-client-id') ? {} : { 'x-client-id': caller.clientId }),
    ...(options.headers ?? {}),
  };
  if (service !== 'stepup' && !fault('no-correlation-id'))
    headers['x-correlation-id'] = fault('one-correlation-id')
      ? oneCorrelationId
      : (options.correlationId ?? randomUUID());
  // CLIENT_FAULT=body-text-plain: the case update's JSON labelled text/plain.
  if (options.body !== undefined)
    headers['content-type'] =
      routeName === 'ROUTE_CASE_UPDATE' && fault('body-text-plain') ? 'text/plain' : 'application/json';
  return fetch(`${base}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
}

/** The order endpoint's 503 is transient (part 7): retried with growing delays, Retry-After honoured. */
async function placeOrder(body: unknown): Promise<Response> {
  // CLIENT_FAULT=retry-storm: fifty retries with no delay at all.
  const retries = fault('retry-storm') ? 50 : 3;
  for (let attempt = 0; ; attempt += 1) {
    const reply = await call('orders', undefined, main, { body });
    if (reply.status !== 503 || attempt >= retries || fault('no-retry')) return reply;
    const retryAfter = Number(reply.headers.get('retry-after') ?? 0) * 1000;
    const delay = fault('retry-storm') ? 0 : Math.max(retryAfter, 150 * 2 ** attempt);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function webhookReceiver(): Promise<() => Promise<void>> {
  const port = Number(env.WEBHOOK_PORT ?? 0);
  if (!port) return Promise.resolve(async () => undefined);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const known = [
        'sessionId',
        'status',
        'ocr',
        'score',
        'image',
        'inquiryId',
        'form',
        'sessionIdHash',
        'mfaType',
        'sendAttempts',
        'verificationStatus',
        'error',
        'verificationAttempts',
        'resendStatus',
        'autoTrustDevice',
        'sentTimeStamp',
        'channelType',
        'docVerification',
        'remainingSendAttempts',
        'remainingVerificationAttempts',
      ];
      const strictAndSurprised = fault('webhook-strict') && Object.keys(event).some((name) => !known.includes(name));
      if (fault('webhook-500') || strictAndSurprised)
        res.writeHead(fault('webhook-500') ? 500 : 400, { 'content-type': 'text/plain' }).end('no');
      else if (fault('webhook-text')) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve(() => new Promise((done) => server.close(() => done())))),
  );
}

/** An assessment, a document verification and its records for one child organisation, as the reseller. */
async function actFor(child: string, index: number): Promise<void> {
  const context = { sharedContext: contexts[child] ?? {} };
  // CLIENT_FAULT=child-id-leak: the second child's calls name the first child in x-source-client-id.
  const source = fault('child-id-leak') && index > 0 ? (children[0] as string) : child;
  const childInquiry = `inq-${randomUUID()}`;
  const childCase = (await (
    await call('identity', 'ROUTE_ASSESSMENT', reseller, {
      body: { strategy: env.STRATEGY_ASSESSMENT ?? 'default', inquiryId: childInquiry, ...context },
    })
  ).json()) as { authenticationId: string };
  const started = (await (
    await call('identity', 'ROUTE_DOCUMENT_VERIFICATION', reseller, {
      body: {
        strategy: env.STRATEGY_DOCUMENT_VERIFICATION ?? 'docv-default',
        inquiryId: childInquiry,
        ...(fault('no-shared-context') ? {} : context),
      },
      headers: source === child ? {} : { 'x-source-client-id': source },
    })
  ).json()) as { authenticationId?: string };
  const recordsOf = started.authenticationId ?? childCase.authenticationId;
  // The records exist once the session completed: a 404 is waited out for up to 2 s.
  const until = Date.now() + 2_000;
  for (let delay = 50; ; delay = Math.min(delay * 2, 400)) {
    const records = await call('identity', 'ROUTE_DOCUMENT_RECORDS', reseller, {
      params: { authenticationId: recordsOf ?? '' },
      headers: fault('no-source-client-id') ? {} : { 'x-source-client-id': source },
      ...(fault('shared-get-correlation-id') ? { correlationId: recordsCorrelationId } : {}),
    });
    if (records.status !== 404 || Date.now() + delay > until) break;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

async function run(): Promise<void> {
  const stopReceiver = await webhookReceiver();
  const inquiryId = `inq-${randomUUID()}`;
  const assessment = (await (
    await call('identity', 'ROUTE_ASSESSMENT', main, {
      body: { strategy: env.STRATEGY_ASSESSMENT ?? 'default', inquiryId },
    })
  ).json()) as { authenticationId: string };
  const authenticationId = fault('made-up-authentication-id') ? randomUUID() : assessment.authenticationId;
  await call('identity', 'ROUTE_CASE_UPDATE', main, {
    body: {
      inquiryId,
      authenticationId,
      decision: fault('decision-lowercase') ? 'review' : 'REVIEW',
      tags: ['certification'],
    },
  });
  await call('stepup', 'ROUTE_STEP_UP', main, {
    body: { inquiryId, authenticationId: assessment.authenticationId, email: 'jane@example.test' },
  });
  await placeOrder({
    merchantOrderId: `order-${randomUUID()}`,
    fulfillment: [{ type: 'SHIPPED' }],
    items: [],
    transactions: [],
    promotions: [],
  });

  // For each child organisation, as the reseller.
  for (const [index, child] of (fault('one-child') ? children.slice(0, 1) : children).entries())
    await actFor(child, index);
  // Deliveries of the flows above arrive shortly after them.
  await new Promise((resolve) => setTimeout(resolve, Number(env.WEBHOOK_GRACE_MS ?? 500)));
  await stopReceiver();
}

run().catch((error: unknown) => {
  console.error(`client: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
