import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';

// A second reseller client, written apart from examples/reseller-client/: one session object per set of credentials
// that keeps its own tokens, full-jitter backoff on the order endpoint's 503 (AWS Architecture Blog: a delay drawn
// between 0 and min(cap, base * 2^attempt)), a fresh x-correlation-id on every request and every retry, both child
// organisations served at once, and a webhook receiver that answers {} labelled text/html, as Express's res.send('{}')
// does. Its random draws come from a seed, so that a run can be replayed.

export type Env = Readonly<Record<string, string | undefined>>;

export interface JitterClientOptions {
  seed: number;
  /** Full jitter: base and cap of the delay before each retry of an order, and how many retries. */
  backoff?: { baseMs: number; capMs: number; retries: number };
}

export interface RunningClient {
  /** Settles when every call of the flows is answered. */
  done: Promise<void>;
  /** Stops the webhook receiver. */
  close(): Promise<void>;
  /** The delays drawn before each retry of an order, in milliseconds. */
  delays: number[];
}

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function required(env: Env, name: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
}

/** Calls of one caller (its API key and client id) with the token of each token endpoint, fetched once and renewed before expiry. */
class Session {
  private readonly tokens = new Map<string, { value: string; renewAt: number }>();

  constructor(
    private readonly apiKey: string,
    readonly clientId: string,
  ) {}

  async bearer(tokenUrl: string): Promise<string> {
    const held = this.tokens.get(tokenUrl);
    if (held && held.renewAt > Date.now()) return held.value;
    const answer = await fetch(tokenUrl, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${this.apiKey}`,
        'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8',
      },
      body: 'grant_type=client_credentials&scope=k1_integration_api',
    });
    if (!answer.ok) throw new Error(`token endpoint ${tokenUrl} answered ${answer.status}`);
    const { access_token: value, expires_in: lifetime = 300 } = (await answer.json()) as {
      access_token: string;
      expires_in?: number;
    };
    this.tokens.set(tokenUrl, { value, renewAt: Date.now() + lifetime * 900 });
    return value;
  }

  async send(request: {
    url: string;
    method: string;
    tokenUrl: string;
    body?: unknown;
    headers?: Record<string, string>;
    correlated?: boolean;
  }): Promise<Response> {
    const headers = new Headers(request.headers);
    headers.set('Authorization', `Bearer ${await this.bearer(request.tokenUrl)}`);
    headers.set('X-Client-Id', this.clientId);
    if (request.correlated !== false) headers.set('X-Correlation-Id', randomUUID());
    if (request.body !== undefined) headers.set('Content-Type', 'application/json; charset=utf-8');
    return fetch(request.url, {
      method: request.method,
      headers,
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    });
  }
}

/** Serves the part-6 deliveries: every event is acknowledged with an empty JSON object. */
async function receiver(port: number): Promise<Server | undefined> {
  if (!port) return undefined;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

export async function startJitterClient(env: Env, options: JitterClientOptions): Promise<RunningClient> {
  const random = seeded(options.seed);
  const backoff = options.backoff ?? { baseMs: 100, capMs: 1_000, retries: 6 };
  const server = await receiver(Number(env.WEBHOOK_PORT ?? 0));
  const delays: number[] = [];
  const identityToken = required(env, 'IDENTITY_TOKEN_URL');
  const stepupToken = required(env, 'STEPUP_TOKEN_URL');
  const operation = (route: string, base: string, values: Record<string, string> = {}) => {
    const [method = 'POST', template = '/'] = required(env, route).split(' ');
    return {
      method,
      url:
        required(env, base) +
        template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? '')),
    };
  };
  const own = new Session(required(env, 'API_KEY'), required(env, 'CLIENT_ID'));
  const reseller = new Session(required(env, 'RESELLER_API_KEY'), env.RESELLER_CLIENT_ID ?? 'sandbox-reseller');
  const children = required(env, 'RESELLER_CHILD_CLIENT_IDS').split(',');
  const contexts = JSON.parse(required(env, 'RESELLER_CHILD_SHARED_CONTEXTS')) as Record<string, object>;

  /** The same order sent again after each 503, a full-jitter delay before each retry (Retry-After, when longer, wins). */
  async function order(body: object): Promise<Response> {
    for (let attempt = 0; ; attempt += 1) {
      const answer = await own.send({
        method: 'POST',
        url: `${required(env, 'ORDERS_BASE_URL')}/v2/orders`,
        tokenUrl: identityToken,
        body,
      });
      if (answer.status !== 503 || attempt === backoff.retries) return answer;
      const jitter = random() * Math.min(backoff.capMs, backoff.baseMs * 2 ** attempt);
      delays.push(jitter);
      await pause(Math.max(jitter, Number(answer.headers.get('retry-after') ?? 0) * 1000));
    }
  }

  async function forChild(child: string): Promise<void> {
    const sharedContext = contexts[child] ?? {};
    const inquiryId = `inq-${randomUUID()}`;
    const byChild = { 'x-source-client-id': child };
    const assessment = operation('ROUTE_ASSESSMENT', 'IDENTITY_BASE_URL');
    await reseller.send({
      ...assessment,
      tokenUrl: identityToken,
      headers: byChild,
      body: { strategy: env.STRATEGY_ASSESSMENT ?? 'default', inquiryId, channel: 'reseller-portal', sharedContext },
    });
    const verification = operation('ROUTE_DOCUMENT_VERIFICATION', 'IDENTITY_BASE_URL');
    const started = (await (
      await reseller.send({
        ...verification,
        tokenUrl: identityToken,
        headers: byChild,
        body: { strategy: env.STRATEGY_DOCUMENT_VERIFICATION ?? 'docv-default', inquiryId, sharedContext },
      })
    ).json()) as { authenticationId?: string };
    // The records exist once the session completed: a 404 is asked again, with full jitter, a few times.
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const records = operation('ROUTE_DOCUMENT_RECORDS', 'IDENTITY_BASE_URL', {
        authenticationId: started.authenticationId ?? '',
      });
      const answer = await reseller.send({ ...records, tokenUrl: identityToken, headers: byChild });
      if (answer.status !== 404) return;
      await pause(random() * 50 * 2 ** attempt);
    }
  }

  async function flows(): Promise<void> {
    const inquiryId = `inq-${randomUUID()}`;
    const assessment = operation('ROUTE_ASSESSMENT', 'IDENTITY_BASE_URL');
    const opened = (await (
      await own.send({
        ...assessment,
        tokenUrl: identityToken,
        body: { strategy: env.STRATEGY_ASSESSMENT ?? 'default', inquiryId, userIp: '203.0.113.7' },
      })
    ).json()) as { authenticationId: string };
    const update = operation('ROUTE_CASE_UPDATE', 'IDENTITY_BASE_URL');
    await own.send({
      ...update,
      tokenUrl: identityToken,
      body: {
        inquiryId,
        authenticationId: opened.authenticationId,
        decision: 'ALLOW',
        tags: ['jitter-client'],
        notes: 'verified by phone',
      },
    });
    const stepUp = operation('ROUTE_STEP_UP', 'STEPUP_BASE_URL');
    await own.send({
      ...stepUp,
      tokenUrl: stepupToken,
      correlated: false,
      body: { inquiryId, authenticationId: opened.authenticationId, email: 'pat.lee@example.test' },
    });
    await order({
      merchantOrderId: `order-${randomUUID()}`,
      fulfillment: [{ type: 'DIGITAL' }],
      items: [],
      transactions: [],
      promotions: [],
    });
    await Promise.all(children.map(forChild));
  }

  return {
    done: flows(),
    delays,
    close: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
}
