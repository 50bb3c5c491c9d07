import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from '@playwright/test';
import { operation, operations, orderErrorRow, tokenEndpoint } from '../../catalog/catalog.ts';
import type { OperationId } from '../../catalog/catalog.ts';
import { schemaIdFor, schemaIssues } from '../../schemas/registry.ts';
import { isObject } from '../../schemas/json-value.ts';
import type { Flavor } from '../../sandbox/types.ts';
import { startSandbox } from '../../sandbox/server.ts';
import type { RunningSandbox, SandboxOptions } from '../../sandbox/server.ts';
import { sandboxTargetEnv } from '../../sandbox/target-env.ts';

// What the sandbox self-tests (selftest/sandbox-*.spec.ts) share: a sandbox with a receiver, and a small client of it
// configured the way the suite is (sandboxTargetEnv), sending with fetch so that the sandbox is judged on its own.

export const secret = 'selftest-token-secret';
export type Service = 'identity' | 'stepup';
export type Body = Record<string, unknown>;

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
  /** The JSON body when it is an object, else {}. */
  body: Body;
}

export async function toReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const body = isObject(json) ? json : {};
  return { status: res.status, headers: res.headers, text, json, body };
}

export interface Delivery {
  headers: IncomingHttpHeaders;
  method: string;
  text: string;
  body: Body;
}

/** A tiny webhook receiver that records what arrives, and tells whoever waits for deliveries as each one lands. */
export async function startReceiver() {
  const deliveries: Delivery[] = [];
  const waiting = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Body = {};
      try {
        body = JSON.parse(text) as Body;
      } catch {
        body = {};
      }
      deliveries.push({ headers: req.headers, method: req.method ?? '', text, body });
      for (const wake of waiting) wake();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return {
    url,
    deliveries,
    /** The deliveries once `count` have arrived, or those that arrived within timeoutMs (a bound, not a pace). */
    waitFor(count: number, timeoutMs = 10_000): Promise<Delivery[]> {
      return new Promise((resolve) => {
        const done = () => {
          waiting.delete(check);
          clearTimeout(timer);
          resolve(deliveries);
        };
        const check = () => deliveries.length >= count && done();
        const timer = setTimeout(done, timeoutMs);
        waiting.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

export interface OpOptions {
  body?: unknown;
  /** Sent as is instead of JSON.stringify(body). */
  raw?: string | Buffer;
  /** Header overrides; undefined removes a default header. */
  headers?: Record<string, string | undefined>;
  params?: Record<string, string>;
  query?: string;
}

/** A client of one running sandbox, configured the way the suite is: from sandboxTargetEnv. */
export class SandboxClient {
  readonly env: Record<string, string>;
  private readonly cachedTokens = new Map<string, string>();

  constructor(
    readonly sandbox: RunningSandbox,
    readonly receiver: Receiver,
  ) {
    this.env = sandboxTargetEnv({ url: sandbox.url, flavor: sandbox.flavor, tokenSecret: secret });
  }

  get flavor(): Flavor {
    return this.sandbox.flavor;
  }

  async token(service: Service, apiKey = this.env['API_KEY'] ?? ''): Promise<string> {
    const key = `${service}:${apiKey}`;
    const cached = this.cachedTokens.get(key);
    if (cached) return cached;
    const url = service === 'identity' ? this.env['IDENTITY_TOKEN_URL'] : this.env['STEPUP_TOKEN_URL'];
    const reply = await fetch(url ?? '', {
      method: 'POST',
      headers: { 'content-type': tokenEndpoint.contentType, authorization: `Basic ${apiKey}` },
      body: new URLSearchParams({ grant_type: tokenEndpoint.grantType, scope: tokenEndpoint.scope }).toString(),
    }).then(toReply);
    expect(reply.status, `token for ${service}: ${reply.text}`).toBe(200);
    const token = String(reply.body['access_token']);
    this.cachedTokens.set(key, token);
    return token;
  }
  opUrl(id: OperationId, params: Record<string, string> = {}, query = ''): { method: string; url: string } {
    const op = operation(id);
    const [method = 'GET', path = '/'] = (this.env[op.routeEnv ?? ''] ?? '').split(' ');
    const base = op.service === 'stepup' ? this.env['STEPUP_BASE_URL'] : this.env['IDENTITY_BASE_URL'];
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? 'missing'));
    return { method, url: `${base}${filled}${query ? `?${query}` : ''}` };
  }

  async op(id: OperationId, options: OpOptions = {}): Promise<Reply> {
    const { method, url } = this.opUrl(id, options.params, options.query);
    const token = await this.token(operation(id).service === 'stepup' ? 'stepup' : 'identity');
    const defaults: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'x-client-id': this.env['CLIENT_ID'] ?? '',
      'x-correlation-id': randomUUID(),
      'content-type': 'application/json',
    };
    const headers = withOverrides(defaults, options.headers);
    const body = method === 'GET' ? undefined : Buffer.from(options.raw ?? JSON.stringify(options.body ?? {}));
    return fetch(url, { method, headers, ...(body ? { body } : {}) }).then(toReply);
  }

  /** A new case through 4.2; returns its ids. */
  async newCase(extra: Body = {}): Promise<{ inquiryId: string; authenticationId: string; reply: Reply }> {
    const inquiryId = `inq-${randomUUID()}`;
    const reply = await this.op('assessment', {
      body: { strategy: this.env['STRATEGY_ASSESSMENT'], inquiryId, ...extra },
    });
    expect(reply.status, reply.text).toBeLessThan(300);
    return { inquiryId, authenticationId: String(reply.body['authenticationId']), reply };
  }

  fetchCase(caseId: string): Promise<Reply> {
    return this.op('fetchAssessment', { params: { caseId } });
  }

  async order(
    options: {
      body?: unknown;
      raw?: string | Buffer;
      headers?: Record<string, string | undefined>;
      method?: string;
      apiKey?: string;
    } = {},
  ): Promise<Reply> {
    const token = await this.token('identity', options.apiKey);
    const defaults: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'x-client-id': this.env['CLIENT_ID'] ?? '',
      'x-correlation-id': randomUUID(),
      'content-type': 'application/json',
    };
    const method = options.method ?? 'POST';
    const body =
      method === 'GET' ? undefined : Buffer.from(options.raw ?? JSON.stringify(options.body ?? validOrder()));
    return fetch(`${this.env['ORDERS_BASE_URL']}/v2/orders`, {
      method,
      headers: withOverrides(defaults, options.headers),
      ...(body ? { body } : {}),
    }).then(toReply);
  }
}

function withOverrides(
  defaults: Record<string, string>,
  overrides: Record<string, string | undefined> = {},
): Record<string, string> {
  const merged: Record<string, string | undefined> = { ...defaults, ...overrides };
  return Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined));
}

export function validOrder(extra: Body = {}): Body {
  return {
    merchantOrderId: `order-${randomUUID()}`,
    fulfillment: [{ type: 'SHIPPED' }],
    account: { id: 'acct-1' },
    items: [{ sku: 'SKU-1' }],
    transactions: [],
    promotions: [],
    ...extra,
  };
}

export async function withSandbox<T>(
  options: Partial<SandboxOptions>,
  fn: (api: SandboxClient) => Promise<T>,
): Promise<T> {
  const receiver = await startReceiver();
  const sandbox = await startSandbox({ tokenSecret: secret, webhookUrl: receiver.url, webhookDelayMs: 2, ...options });
  try {
    return await fn(new SandboxClient(sandbox, receiver));
  } finally {
    await sandbox.close();
    await receiver.close();
  }
}

export function expectSchema(schemaFile: string, value: unknown): void {
  const issues = schemaIssues(schemaIdFor(schemaFile), value);
  expect(issues, `${schemaFile}: ${JSON.stringify(issues)}`).toEqual([]);
}

/** A part-7 envelope of the given row, with exactly the three fields. */
export function expectEnvelope(reply: Reply, row: string): void {
  const tableRow = orderErrorRow(row);
  expect(reply.status, reply.text).toBe(tableRow.status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(reply.body).sort()).toEqual(['code', 'errorType', 'message']);
  expect(reply.body['code']).toBe(tableRow.status);
  const message = String(reply.body['message']);
  if (tableRow.errorTypes) expect(tableRow.errorTypes).toContain(reply.body['errorType']);
  else expect(typeof reply.body['errorType']).toBe('string');
  if (tableRow.messages) expect(tableRow.messages).toContain(message);
  if (tableRow.messagePrefix)
    expect(message.startsWith(tableRow.messagePrefix) && message.length > tableRow.messagePrefix.length).toBe(true);
  if (tableRow.messagePattern) expect(message).toMatch(new RegExp(tableRow.messagePattern));
}

export const protectedOps = operations.filter((op) => op.service !== 'orders').map((op) => op.id);

/** A request each protected operation accepts, given a case of the sandbox. */
export async function validCall(api: SandboxClient, id: OperationId): Promise<OpOptions> {
  if (id === 'assessment') return { body: { strategy: 'default', inquiryId: `inq-${randomUUID()}` } };
  if (id === 'documentVerification') return { body: { strategy: 'docv-default' } };
  const c = await api.newCase();
  if (id === 'documentRecords') return { params: { authenticationId: c.authenticationId } };
  if (id === 'fetchAssessment') return { params: { caseId: c.authenticationId } };
  if (id === 'caseUpdate')
    return { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, tags: ['x'] } };
  return { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, phoneNumber: '+15555550100' } };
}
