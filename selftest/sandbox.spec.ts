import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { isRequirementId, operation, operations, orderErrorRow, orderErrorTable, tokenEndpoint } from '../catalog/catalog.ts';
import type { OperationId } from '../catalog/catalog.ts';
import { enumValues, schemaDocument, schemaIdFor, schemaIssues } from '../schemas/registry.ts';
import { limitedClient, mainClient, resellerClient } from '../sandbox/credentials.ts';
import { faultSuiteEnv, faults } from '../sandbox/faults.ts';
import type { FaultId } from '../sandbox/faults.ts';
import { flavorModule } from '../sandbox/flavors/index.ts';
import type { Flavor } from '../sandbox/types.ts';
import { startSandbox } from '../sandbox/server.ts';
import type { RunningSandbox, SandboxOptions } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { expiredTokenFor } from '../sandbox/tokens.ts';

const secret = 'selftest-token-secret';
type Service = 'identity' | 'stepup';
type Body = Record<string, unknown>;

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
  /** The JSON body when it is an object, else {}. */
  body: Body;
}

async function toReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const body = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Body) : {};
  return { status: res.status, headers: res.headers, text, json, body };
}

interface Delivery {
  headers: IncomingHttpHeaders;
  method: string;
  text: string;
  body: Body;
}

/** A tiny webhook receiver that records what arrives. */
async function startReceiver() {
  const deliveries: Delivery[] = [];
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
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return {
    url,
    deliveries,
    async waitFor(count: number, timeoutMs = 3000): Promise<Delivery[]> {
      const deadline = Date.now() + timeoutMs;
      while (deliveries.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      return deliveries;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

interface OpOptions {
  body?: unknown;
  /** Sent as is instead of JSON.stringify(body). */
  raw?: string | Buffer;
  /** Header overrides; undefined removes a default header. */
  headers?: Record<string, string | undefined>;
  params?: Record<string, string>;
  query?: string;
}

/** A client of one running sandbox, configured the way the suite is: from sandboxTargetEnv. */
class Api {
  readonly env: Record<string, string>;
  private readonly cachedTokens = new Map<string, string>();

  constructor(
    readonly sandbox: RunningSandbox,
    readonly receiver: Receiver,
  ) {
    this.env = sandboxTargetEnv({ url: sandbox.url, flavor: sandbox.flavor, tokenSecret: secret, faultSuiteEnv: faultSuiteEnv(sandbox.faults) });
  }

  get flavor(): Flavor {
    return this.sandbox.flavor;
  }

  requestToken(
    service: Service,
    options: { apiKey?: string | null; authorization?: string; form?: Record<string, string>; raw?: string; contentType?: string; method?: string } = {},
  ): Promise<Reply> {
    const url = service === 'identity' ? this.env['IDENTITY_TOKEN_URL'] : this.env['STEPUP_TOKEN_URL'];
    const headers: Record<string, string> = { 'content-type': options.contentType ?? tokenEndpoint.contentType };
    const apiKey = options.apiKey === undefined ? this.env['API_KEY'] : options.apiKey;
    if (options.authorization !== undefined) headers['authorization'] = options.authorization;
    else if (apiKey !== null) headers['authorization'] = `Basic ${apiKey}`;
    const form = options.form ?? { grant_type: tokenEndpoint.grantType, scope: tokenEndpoint.scope };
    const method = options.method ?? 'POST';
    const body = method === 'GET' ? undefined : Buffer.from(options.raw ?? new URLSearchParams(form).toString());
    return fetch(url ?? '', { method, headers, ...(body ? { body } : {}) }).then(toReply);
  }

  async token(service: Service, apiKey = this.env['API_KEY'] ?? ''): Promise<string> {
    const key = `${service}:${apiKey}`;
    const cached = this.cachedTokens.get(key);
    if (cached) return cached;
    const reply = await this.requestToken(service, { apiKey });
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
    const reply = await this.op('assessment', { body: { strategy: this.env['STRATEGY_ASSESSMENT'], inquiryId, ...extra } });
    expect(reply.status, reply.text).toBeLessThan(300);
    return { inquiryId, authenticationId: String(reply.body['authenticationId']), reply };
  }

  fetchCase(caseId: string): Promise<Reply> {
    return this.op('fetchAssessment', { params: { caseId } });
  }

  async order(options: { body?: unknown; raw?: string; headers?: Record<string, string | undefined>; method?: string; apiKey?: string } = {}): Promise<Reply> {
    const token = await this.token('identity', options.apiKey);
    const defaults: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'x-client-id': this.env['CLIENT_ID'] ?? '',
      'x-correlation-id': randomUUID(),
      'content-type': 'application/json',
    };
    const method = options.method ?? 'POST';
    const body = method === 'GET' ? undefined : Buffer.from(options.raw ?? JSON.stringify(options.body ?? validOrder()));
    return fetch(`${this.env['ORDERS_BASE_URL']}/v2/orders`, { method, headers: withOverrides(defaults, options.headers), ...(body ? { body } : {}) }).then(toReply);
  }
}

function withOverrides(defaults: Record<string, string>, overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const merged: Record<string, string | undefined> = { ...defaults, ...overrides };
  return Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined));
}

function validOrder(extra: Body = {}): Body {
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

async function withSandbox<T>(options: Partial<SandboxOptions>, fn: (api: Api) => Promise<T>): Promise<T> {
  const receiver = await startReceiver();
  const sandbox = await startSandbox({ tokenSecret: secret, webhookUrl: receiver.url, webhookDelayMs: 2, ...options });
  try {
    return await fn(new Api(sandbox, receiver));
  } finally {
    await sandbox.close();
    await receiver.close();
  }
}

function expectSchema(schemaFile: string, value: unknown): void {
  const issues = schemaIssues(schemaIdFor(schemaFile), value);
  expect(issues, `${schemaFile}: ${JSON.stringify(issues)}`).toEqual([]);
}

/** A part-7 envelope of the given row, with exactly the three fields. */
function expectEnvelope(reply: Reply, row: string): void {
  const tableRow = orderErrorRow(row);
  expect(reply.status, reply.text).toBe(tableRow.status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(reply.body).sort()).toEqual(['code', 'errorType', 'message']);
  expect(reply.body['code']).toBe(tableRow.status);
  const message = String(reply.body['message']);
  if (tableRow.errorTypes) expect(tableRow.errorTypes).toContain(reply.body['errorType']);
  else expect(typeof reply.body['errorType']).toBe('string');
  if (tableRow.messages) expect(tableRow.messages).toContain(message);
  if (tableRow.messagePrefix) expect(message.startsWith(tableRow.messagePrefix) && message.length > tableRow.messagePrefix.length).toBe(true);
  if (tableRow.messagePattern) expect(message).toMatch(new RegExp(tableRow.messagePattern));
}

const bothFlavors: readonly Flavor[] = ['reference', 'alternative'];
const protectedOps = operations.filter((op) => op.service !== 'orders').map((op) => op.id);

/** A request each protected operation accepts, given a case of the sandbox. */
async function validCall(api: Api, id: OperationId): Promise<OpOptions> {
  if (id === 'assessment') return { body: { strategy: 'default', inquiryId: `inq-${randomUUID()}` } };
  if (id === 'documentVerification') return { body: { strategy: 'docv-default' } };
  const c = await api.newCase();
  if (id === 'documentRecords') return { params: { authenticationId: c.authenticationId } };
  if (id === 'fetchAssessment') return { params: { caseId: c.authenticationId } };
  if (id === 'caseUpdate') return { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, tags: ['x'] } };
  return { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, phoneNumber: '+15555550100' } };
}

test.describe('sandbox: the gateway flavor (a service behind a protobuf JSON gateway)', () => {
  test('responses carry every field, unset ones as null, "" or []; decisions in display spelling; tags as objects', async () => {
    await withSandbox({ flavor: 'gateway' }, async (api) => {
      const c = await api.newCase();
      const fields = Object.keys((schemaDocument(schemaIdFor('assessment-response')) as { properties: object }).properties);
      expect(fields.filter((name) => !(name in c.reply.body)), 'every field of 2.2 is emitted').toEqual([]);
      expectSchema('assessment-response', c.reply.body);
      const update = await api.op('caseUpdate', { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, decision: 'DENY', tags: ['vip'] } });
      expect(update.status, update.text).toBe(200);
      expect(update.body['error'], 'an unset message is null').toBeNull();
      expectSchema('case-update-response', update.body);
      const fetched = (await api.fetchCase(c.authenticationId)).body;
      expect(fetched['decision']).toBe('Deny');
      expect(fetched['tags']).toEqual([{ name: 'vip', addedAt: expect.any(String) }]);
    });
  });

  test('requests: unknown fields and nulls are ignored, an enum takes its number, Content-Type is not inspected', async () => {
    await withSandbox({ flavor: 'gateway' }, async (api) => {
      const c = await api.newCase({ somethingNew: 1, channel: null });
      const byNumber = await api.op('caseUpdate', { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, decision: 1 } });
      expect(byNumber.status, byNumber.text).toBe(200);
      expect((await api.fetchCase(c.authenticationId)).body['decision']).toBe('Allow');
      const plain = await api.op('caseUpdate', { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId }, headers: { 'content-type': 'text/plain' } });
      expect(plain.status, plain.text).toBe(200);
    });
  });

  test('errors are google.rpc Status bodies; the order endpoint keeps its part-7 envelope', async () => {
    await withSandbox({ flavor: 'gateway' }, async (api) => {
      const refused = await api.op('caseUpdate', { body: { authenticationId: 'x' } });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ code: 3, message: expect.any(String), details: [] });
      const unauthorized = await api.op('assessment', { body: {}, headers: { authorization: undefined } });
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.body['code']).toBe(16);
      expectEnvelope(await api.order({ headers: { 'x-correlation-id': undefined } }), '400-other');
    });
  });

  test('document records exist only once the session completed: 404 before, 200 after', async () => {
    await withSandbox({ flavor: 'gateway' }, async (api) => {
      const started = await api.op('documentVerification', { body: { strategy: api.env['STRATEGY_DOCUMENT_VERIFICATION'], inquiryId: `inq-${randomUUID()}` } });
      expect(started.status, started.text).toBe(200);
      const params = { authenticationId: String(started.body['authenticationId']) };
      expect((await api.op('documentRecords', { params })).status).toBe(404);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const ready = await api.op('documentRecords', { params });
      expect(ready.status, ready.text).toBe(200);
      expectSchema('document-records', ready.body);
    });
  });
});

test.describe('sandbox: tokens (4.1, RFC 6749)', () => {
  for (const flavor of bothFlavors) {
    test(`${flavor}: issues a token with the RFC 6749 fields, not cacheable`, async () => {
      await withSandbox({ flavor }, async (api) => {
        const reply = await api.requestToken('identity');
        expect(reply.status).toBe(200);
        expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
        expect(reply.headers.get('cache-control')).toBe('no-store');
        expect(reply.headers.get('pragma')).toBe('no-cache');
        expectSchema('token-response', reply.json);
        expect(String(reply.body['token_type']).toLowerCase()).toBe('bearer');
        expect(reply.body['expires_in']).toBe(flavor === 'reference' ? 1200 : 300);
        expect(reply.body['scope']).toBe(tokenEndpoint.scope);
        if (flavor === 'alternative') {
          expect(reply.body['token_type']).toBe('bearer');
          expect(reply.body['access_token']).toMatch(/^[0-9a-f]{40}$/);
          expect(reply.body).toHaveProperty('refresh_expires_in');
        }
        const stepUp = await api.requestToken('stepup');
        expect(stepUp.status).toBe(200);
      });
    });
  }

  const refusals: { name: string; options: Parameters<Api['requestToken']>[1]; status: number; error: string }[] = [
    { name: 'another scope', options: { form: { grant_type: 'client_credentials', scope: 'openid' } }, status: 400, error: 'invalid_scope' },
    { name: 'a case variant of the scope', options: { form: { grant_type: 'client_credentials', scope: 'K1_INTEGRATION_API' } }, status: 400, error: 'invalid_scope' },
    { name: 'an extra scope', options: { form: { grant_type: 'client_credentials', scope: 'k1_integration_api admin' } }, status: 400, error: 'invalid_scope' },
    { name: 'an empty scope', options: { form: { grant_type: 'client_credentials', scope: '' } }, status: 400, error: 'invalid_scope' },
    { name: 'no scope (reference)', options: { form: { grant_type: 'client_credentials' } }, status: 400, error: 'invalid_scope' },
    { name: 'an unknown grant type', options: { form: { grant_type: 'password', scope: 'k1_integration_api' } }, status: 400, error: 'unsupported_grant_type' },
    { name: 'no grant type', options: { form: { scope: 'k1_integration_api' } }, status: 400, error: 'invalid_request' },
    { name: 'no credentials', options: { apiKey: null }, status: 401, error: 'invalid_client' },
    { name: 'a wrong API key', options: { apiKey: Buffer.from('sandbox-client:wrong').toString('base64') }, status: 401, error: 'invalid_client' },
    { name: 'a non-Basic scheme', options: { authorization: `Bearer ${mainClient.apiKey}` }, status: 401, error: 'invalid_client' },
    { name: 'a JSON body', options: { contentType: 'application/json', raw: JSON.stringify({ grant_type: 'client_credentials', scope: 'k1_integration_api' }) }, status: 400, error: 'invalid_request' },
  ];
  for (const r of refusals) {
    test(`refuses ${r.name} with ${r.status} ${r.error}`, async () => {
      await withSandbox({}, async (api) => {
        const reply = await api.requestToken('identity', r.options);
        expect(reply.status, reply.text).toBe(r.status);
        expect(reply.body['error']).toBe(r.error);
        expect(reply.body).not.toHaveProperty('access_token');
        if (r.status === 401) expect(reply.headers.get('www-authenticate')).toBe('Basic realm="sandbox"');
      });
    });
  }

  test('alternative flavor defaults a missing scope; every flavor answers GET with 405 Allow: POST', async () => {
    await withSandbox({ flavor: 'alternative' }, async (api) => {
      const reply = await api.requestToken('identity', { form: { grant_type: 'client_credentials' } });
      expect(reply.status).toBe(200);
      expect(reply.body['scope']).toBe(tokenEndpoint.scope);
      const get = await api.requestToken('stepup', { method: 'GET' });
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
    });
  });

  test('the Basic scheme name is case-insensitive and the limited client gets tokens', async () => {
    await withSandbox({}, async (api) => {
      expect((await api.requestToken('identity', { authorization: `basic ${mainClient.apiKey}` })).status).toBe(200);
      expect((await api.requestToken('identity', { apiKey: limitedClient.apiKey })).status).toBe(200);
    });
  });
});

test.describe('sandbox: bearer tokens on 4.2 to 4.7 (RFC 6750)', () => {
  for (const flavor of bothFlavors) {
    test(`${flavor}: every operation refuses missing, foreign-scheme, malformed, tampered, unknown, expired and wrong-audience tokens`, async () => {
      await withSandbox({ flavor }, async (api) => {
        for (const id of protectedOps) {
          const service = operation(id).service === 'stepup' ? 'stepup' : 'identity';
          const good = await api.token(service);
          const other = await api.token(service === 'identity' ? 'stepup' : 'identity');
          const tampered = flavor === 'reference' ? good.slice(0, -2) + (good.endsWith('AA') ? 'BB' : 'AA') : randomBytes(20).toString('hex');
          const variants: [string, string | undefined, string | null][] = [
            ['missing', undefined, 'Bearer'],
            ['Basic scheme', `Basic ${good}`, 'Bearer'],
            ['empty token', 'Bearer ', 'Bearer error="invalid_token"'],
            ['malformed token', 'Bearer not a token', 'Bearer error="invalid_token"'],
            ['tampered or unknown token', `Bearer ${tampered}`, 'Bearer error="invalid_token"'],
            ['expired token', `Bearer ${expiredTokenFor(flavorModule(flavor).tokenKind, secret, service)}`, 'Bearer error="invalid_token"'],
            ['token of the other service', `Bearer ${other}`, 'Bearer error="invalid_token"'],
          ];
          const call = await validCall(api, id);
          for (const [name, authorization, challenge] of variants) {
            const reply = await api.op(id, { ...call, headers: { authorization } });
            expect(reply.status, `${id} with ${name}: ${reply.text}`).toBe(401);
            expect(reply.headers.get('www-authenticate'), `${id} with ${name}`).toBe(challenge);
          }
          const lowerCase = await api.op(id, { ...(await validCall(api, id)), headers: { authorization: `bearer ${good}` } });
          expect(lowerCase.status, `${id} with scheme "bearer": ${lowerCase.text}`).toBeLessThan(300);
        }
      });
    });
  }
});

test.describe('sandbox: identity and step-up operations', () => {
  for (const flavor of bothFlavors) {
    test(`${flavor}: assessment round trip through fetch by case identifier`, async () => {
      await withSandbox({ flavor }, async (api) => {
        const inquiryId = `inq-${randomUUID()}`;
        const request = { strategy: 'default', inquiryId, deviceSessionId: 'dev-session-1', coApplicant: {}, sharedContext: { resellerId: 'r' }, entryUser: 'clerk' };
        const created = await api.op('assessment', { body: request });
        expect(created.status).toBe(flavor === 'reference' ? 200 : 201);
        expect(created.headers.get('content-type')).toMatch(/^application\/json/);
        expectSchema('assessment-response', created.json);
        const authenticationId = String(created.body['authenticationId']);
        expect(authenticationId).toMatch(flavor === 'reference' ? /^[0-9a-f-]{36}$/ : /^CASE-\d{6}$/);
        expect(created.body).toMatchObject({ inquiryId, deviceSessionId: 'dev-session-1', tags: [], decision: flavor === 'reference' ? 'REVIEW' : 'ALLOW', strategy: { name: 'default' } });
        if (flavor === 'alternative') expect(created.body).toHaveProperty('_links');

        const fetched = await api.op('fetchAssessment', { params: { caseId: authenticationId }, headers: { 'x-client-id': undefined, 'x-correlation-id': undefined } });
        expect(fetched.status).toBe(200);
        expectSchema('assessment-response', fetched.json);
        expect(fetched.body).toMatchObject({ inquiryId, authenticationId });
        expect((await api.fetchCase('no-such-case')).status).toBe(404);
      });
    });
  }

  test('the mandatory headers of each operation come from the catalog; step-up does not need x-correlation-id', async () => {
    await withSandbox({}, async (api) => {
      for (const id of protectedOps) {
        for (const name of operation(id).mandatoryHeaders.filter((h) => h !== 'authorization')) {
          const reply = await api.op(id, { ...(await validCall(api, id)), headers: { [name]: undefined } });
          const expected = name === 'content-type' && operation(id).hasBody ? 415 : 400;
          expect(reply.status, `${id} without ${name}: ${reply.text}`).toBe(expected);
        }
      }
      const stepUp = await api.op('stepUp', { ...(await validCall(api, 'stepUp')), headers: { 'x-correlation-id': undefined } });
      expect(stepUp.status).toBe(200);
      const charset = await api.op('assessment', { ...(await validCall(api, 'assessment')), headers: { 'content-type': 'application/json; charset=utf-8' } });
      expect(charset.status).toBe(200);
    });
  });

  test('alternative flavor: headers before Authorization, 400 for Content-Type, 422 for fields, no Content-Type on the GET', async () => {
    await withSandbox({ flavor: 'alternative' }, async (api) => {
      const noHeaderNoAuth = await api.op('assessment', { body: {}, headers: { authorization: undefined, 'x-client-id': undefined } });
      expect(noHeaderNoAuth.status).toBe(400);
      const wrongType = await api.op('caseUpdate', { body: {}, headers: { 'content-type': 'text/plain' } });
      expect(wrongType.status).toBe(400);
      const invalid = await api.op('assessment', { body: { inquiryId: 'x' } });
      expect(invalid.status).toBe(422);
      const c = await api.newCase();
      const records = await api.op('documentRecords', { params: { authenticationId: c.authenticationId }, headers: { 'content-type': undefined } });
      expect(records.status).toBe(200);
    });
  });

  test('assessment validation: required fields, 2.1 types, JSON errors', async () => {
    await withSandbox({}, async (api) => {
      const cases: [string, OpOptions, number][] = [
        ['no strategy', { body: { inquiryId: 'i' } }, 400],
        ['no inquiryId', { body: { strategy: 's' } }, 400],
        ['empty inquiryId', { body: { strategy: 's', inquiryId: '' } }, 400],
        ['numeric inquiryId', { body: { strategy: 's', inquiryId: 1 } }, 400],
        ['string applicant', { body: { strategy: 's', inquiryId: 'i', applicant: 'x' } }, 400],
        ['array account', { body: { strategy: 's', inquiryId: 'i', account: [] } }, 400],
        ['numeric userIp', { body: { strategy: 's', inquiryId: 'i', userIp: 1 } }, 400],
        ['array body', { raw: '[]' }, 400],
        ['broken JSON', { raw: '{"strategy":' }, 400],
        ['invalid UTF-8', { raw: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) }, 400],
        ['deeply nested JSON', { raw: `{"strategy":"s","inquiryId":"i","customFields":${'['.repeat(50_000)}${']'.repeat(50_000)}}` }, 400],
      ];
      for (const [name, options, status] of cases) {
        expect((await api.op('assessment', options)).status, name).toBe(status);
      }
    });
  });

  test('document verification: response, records by data value, unknown case', async () => {
    await withSandbox({}, async (api) => {
      const c = await api.newCase();
      const docv = await api.op('documentVerification', { body: { inquiryId: c.inquiryId, images: { front: 'x' }, phoneNumber: '+1555' } });
      expect(docv.status).toBe(200);
      expectSchema('document-verification-response', docv.json);
      expect(docv.body).toMatchObject({ inquiryId: c.inquiryId, authenticationId: c.authenticationId });
      const fresh = await api.op('documentVerification', { body: {} });
      expect(fresh.status).toBe(200);
      expect(fresh.body['authenticationId']).not.toBe(c.authenticationId);
      expect((await api.op('documentVerification', { body: { images: 'x' } })).status).toBe(400);

      const parts = ['ocrData', 'scoreData', 'imageData', 'formData'];
      for (const data of [undefined, ...enumValues('DocumentRecordsData')]) {
        const reply = await api.op('documentRecords', { params: { authenticationId: c.authenticationId }, ...(data ? { query: `data=${data}` } : {}), headers: { 'x-source-client-id': 'child-org-001' } });
        expect(reply.status, `data=${data}`).toBe(200);
        expectSchema('document-records', reply.json);
        const expected = data === undefined || data === 'all' ? parts : parts.filter((p) => p.toLowerCase() === data.toLowerCase());
        expect(Object.keys(reply.body).sort(), `data=${data}`).toEqual(['authenticationId', ...expected].sort());
      }
      expect((await api.op('documentRecords', { params: { authenticationId: c.authenticationId }, query: 'data=formData' })).status).toBe(400);
      expect((await api.op('documentRecords', { params: { authenticationId: 'nope' } })).status).toBe(404);
    });
  });

  test('case update: tags appended, decision kept when omitted, unknown queue and rejection code accepted and left unchanged', async () => {
    await withSandbox({}, async (api) => {
      const c = await api.newCase();
      const ids = { inquiryId: c.inquiryId, authenticationId: c.authenticationId };
      const first = await api.op('caseUpdate', { body: { ...ids, decision: 'DENY', tags: ['a'], queue: 'fraud-ops', rejectionCode: 'R02' }, headers: { 'x-correlation-id': 'corr-1' } });
      expect(first.status).toBe(200);
      expectSchema('case-update-response', first.json);
      expect(first.body).toEqual({ ...ids, correlationId: 'corr-1', message: 'case updated' });
      const second = await api.op('caseUpdate', { body: { ...ids, tags: ['b', 'a'], queue: 'no-such-queue', rejectionCode: 'R99', externalAgent: 'anyone', verifiedFraud: true, documents: [{ kind: 'passport' }], customFields: { k: 'v' }, notes: 'n', strategy: 's', sharedContext: {} } });
      expect(second.status, second.text).toBe(200);
      const fetched = await api.fetchCase(c.authenticationId);
      expect(fetched.body).toMatchObject({ decision: 'DENY', tags: ['a', 'b', 'a'] });
      const state = (await fetch(`${api.sandbox.url}/__sandbox/cases/${c.authenticationId}`).then(toReply)).body;
      expect(state).toMatchObject({ queue: 'fraud-ops', rejectionCode: 'R02', verifiedFraud: true, externalAgent: 'anyone' });

      for (const decision of enumValues('CaseDecision')) {
        expect((await api.op('caseUpdate', { body: { ...ids, decision } })).status).toBe(200);
        expect((await api.fetchCase(c.authenticationId)).body['decision']).toBe(decision);
      }
      const refused: [string, Body, number][] = [
        ['lower-case decision', { ...ids, decision: 'allow' }, 400],
        ['string verifiedFraud', { ...ids, verifiedFraud: 'yes' }, 400],
        ['tags not strings', { ...ids, tags: [1] }, 400],
        ['no inquiryId', { authenticationId: c.authenticationId }, 400],
        ['no authenticationId', { inquiryId: c.inquiryId }, 400],
        ['unknown case', { inquiryId: c.inquiryId, authenticationId: 'nope' }, 404],
        ['inquiry of another case', { inquiryId: 'inq-other', authenticationId: c.authenticationId }, 400],
      ];
      for (const [name, body, status] of refused) expect((await api.op('caseUpdate', { body })).status, name).toBe(status);
    });
  });

  test('step-up: channels, required ids, unknown case, inquiry mismatch', async () => {
    await withSandbox({}, async (api) => {
      const c = await api.newCase();
      const ids = { inquiryId: c.inquiryId, authenticationId: c.authenticationId };
      for (const channel of [{ phoneNumber: '+15555550100' }, { email: 'a@example.com' }, { images: { selfie: 'x' } }]) {
        const reply = await api.op('stepUp', { body: { ...ids, ...channel, sharedContext: { resellerId: 'r' }, strategy: { name: 'su' } } });
        expect(reply.status, reply.text).toBe(200);
        expectSchema('step-up-response', reply.json);
        expect(reply.body).toEqual({ ...ids, decision: 'CHALLENGE', strategy: { name: 'su' } });
      }
      expect((await api.op('stepUp', { body: { inquiryId: c.inquiryId } })).status).toBe(400);
      expect((await api.op('stepUp', { body: { ...ids, authenticationId: 'nope' } })).status).toBe(404);
      expect((await api.op('stepUp', { body: { ...ids, inquiryId: 'other' } })).status).toBe(400);
      expect((await api.op('stepUp', { body: { ...ids, strategy: 'name' } })).status).toBe(400);
    });
  });
});

test.describe('sandbox: orders (part 7)', () => {
  test('every row of the part-7 table, each as an exact envelope', async () => {
    await withSandbox({}, async (api) => {
      expectEnvelope(await api.order({ headers: { 'x-correlation-id': undefined } }), '400-other');
      expectEnvelope(await api.order({ headers: { 'x-client-id': undefined } }), '400-other');
      expectEnvelope(await api.order({ raw: '{"merchantOrderId":' }), '400-other');
      expectEnvelope(await api.order({ method: 'PUT' }), '400-other');
      expectEnvelope(await api.order({ body: validOrder({ fulfillment: [{ type: 'TELEPORT' }] }) }), '400-validation');
      expectEnvelope(await api.order({ body: validOrder({ merchantOrderId: '' }) }), '400-validation');
      expectEnvelope(await api.order({ body: [] }), '400-validation');
      expectEnvelope(await api.order({ headers: { authorization: undefined } }), '401');
      expectEnvelope(await api.order({ headers: { authorization: `Bearer ${expiredTokenFor('signed', secret, 'orders')}` } }), '401');
      expectEnvelope(await api.order({ headers: { authorization: `Bearer ${await api.token('stepup')}` } }), '401');
      expectEnvelope(await api.order({ apiKey: limitedClient.apiKey }), '403');
      for (const status of ['404', '500', '503']) {
        const trigger = api.env[`ORDER_TRIGGER_${status}`] ?? '';
        const [name = '', value = ''] = trigger.replace(/^header:/, '').split('=');
        const reply = await api.order({ headers: { [name]: value } });
        expectEnvelope(reply, status);
        if (status === '503') expect(reply.headers.get('retry-after')).toBe('1');
      }
      const order = validOrder();
      const placed = await api.order({ body: order });
      expect(placed.status).toBe(200);
      expect(placed.body).toMatchObject({ merchantOrderId: order['merchantOrderId'], decision: 'APPROVE' });
      expectEnvelope(await api.order({ body: order }), '409');
      for (const type of enumValues('FulfillmentType')) {
        expect((await api.order({ body: validOrder({ fulfillment: [{ type }] }) })).status, type).toBe(200);
      }
      expect((await api.order({ apiKey: resellerClient.apiKey })).status).toBe(200);
      expect(orderErrorTable.length).toBeGreaterThan(0);
    });
  });

  test('order of checks: headers before Authorization (reference), Authorization first (alternative)', async () => {
    await withSandbox({}, async (api) => {
      expectEnvelope(await api.order({ headers: { authorization: undefined, 'x-correlation-id': undefined } }), '400-other');
    });
    await withSandbox({ flavor: 'alternative' }, async (api) => {
      expectEnvelope(await api.order({ headers: { authorization: undefined, 'x-correlation-id': undefined } }), '401');
      expect((await api.order()).status).toBe(201);
    });
  });
});

test.describe('sandbox: webhooks (part 6)', () => {
  test('document verification delivers 6.1 then 6.2; a phone step-up delivers 6.3', async () => {
    await withSandbox({}, async (api) => {
      const c = await api.newCase();
      const docv = await api.op('documentVerification', { body: { inquiryId: c.inquiryId } });
      const [onboarding, results] = await api.receiver.waitFor(2);
      expect(onboarding?.method).toBe('POST');
      expect(onboarding?.headers['content-type']).toBe('application/json');
      expectSchema('webhook-document-onboarding', onboarding?.body);
      expect(onboarding?.body).toEqual({ sessionId: docv.body['interviewId'], status: 'STARTED' });
      expectSchema('webhook-document-results', results?.body);
      expect(results?.body).toMatchObject({ sessionId: docv.body['interviewId'], inquiryId: c.inquiryId });

      await api.op('stepUp', { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, email: 'a@example.com' } });
      const session = (await api.receiver.waitFor(3))[2];
      expectSchema('webhook-verification-session', session?.body);
      expect(session?.body).toMatchObject({ channelType: 'EMAIL_OTP', verificationStatus: 'VERIFIED', sendAttempts: '1', autoTrustDevice: false });
      await api.sandbox.webhooksIdle();
      expect(api.sandbox.deliveries).toBe(3);
    });
  });

  test('alternative flavor writes proto3 JSON (defaults left out) and adds x-webhook-id', async () => {
    await withSandbox({ flavor: 'alternative' }, async (api) => {
      const c = await api.newCase();
      await api.op('stepUp', { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, phoneNumber: '+15555550100' } });
      const [session] = await api.receiver.waitFor(1);
      expectSchema('webhook-verification-session', session?.body);
      expect(session?.headers['x-webhook-id']).toBeTruthy();
      for (const omitted of ['mfaType', 'channelType', 'autoTrustDevice', 'docVerification']) expect(session?.body).not.toHaveProperty(omitted);
      expect(session?.body).toHaveProperty('verificationStatus', 'VERIFIED');
    });
  });

  test('an unreachable receiver does not stop the sandbox', async () => {
    const sandbox = await startSandbox({ tokenSecret: secret, webhookUrl: 'http://127.0.0.1:9/unreachable', webhookDelayMs: 0 });
    const receiver = await startReceiver();
    try {
      const api = new Api(sandbox, receiver);
      for (let i = 0; i < 3; i += 1) expect((await api.op('documentVerification', { body: {} })).status).toBe(200);
      await sandbox.webhooksIdle();
      expect(sandbox.deliveries).toBe(0);
      expect((await fetch(`${sandbox.url}/__sandbox/health`)).status).toBe(200);
    } finally {
      await sandbox.close();
      await receiver.close();
    }
  });
});

test.describe('sandbox: plumbing', () => {
  test('/__sandbox/echo returns the raw headers as they went on the wire', async () => {
    await withSandbox({}, async (api) => {
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(api.sandbox.url).port), '127.0.0.1', () => {
          socket.write('POST /__sandbox/echo?x=1 HTTP/1.1\r\nHost: sandbox\r\nX-Mixed-Case: One\r\nx-mixed-case: Two\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc');
        });
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.on('error', reject);
      });
      const echoed = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as Body;
      expect(echoed).toEqual({
        method: 'POST',
        url: '/__sandbox/echo?x=1',
        rawHeaders: ['Host', 'sandbox', 'X-Mixed-Case', 'One', 'x-mixed-case', 'Two', 'Content-Length', '3', 'Connection', 'close'],
        bodyBase64: Buffer.from('abc').toString('base64'),
      });
      expect((await fetch(`${api.sandbox.url}/__sandbox/health`).then(toReply)).body).toMatchObject({ status: 'ok', cases: expect.any(Number), rssBytes: expect.any(Number) });
      expect((await fetch(`${api.sandbox.url}/nowhere`)).status).toBe(404);
    });
  });

  test('200 garbage requests leave the sandbox answering', async () => {
    await withSandbox({}, async (api) => {
      const port = Number(new URL(api.sandbox.url).port);
      const rawSend = (bytes: Buffer): Promise<void> =>
        new Promise((resolve) => {
          const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
          socket.setTimeout(2000, () => socket.destroy());
          socket.on('data', () => undefined);
          socket.on('close', () => resolve());
          socket.on('error', () => resolve());
        });
      const assessmentUrl = api.opUrl('assessment').url;
      const attempts: (() => Promise<unknown>)[] = [];
      for (let i = 0; i < 50; i += 1) attempts.push(() => rawSend(randomBytes(64 + i * 13)));
      for (let i = 0; i < 30; i += 1) attempts.push(() => rawSend(Buffer.from(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000 + i)}\r\n\r\n`)));
      for (let i = 0; i < 50; i += 1) attempts.push(() => api.op('assessment', { raw: randomBytes(i * 7) }).catch(() => undefined));
      for (let i = 0; i < 30; i += 1) attempts.push(() => api.order({ raw: `{"merchantOrderId": ${'['.repeat(i * 1000)}` }).catch(() => undefined));
      for (let i = 0; i < 30; i += 1) attempts.push(() => fetch(assessmentUrl, { method: ['DELETE', 'OPTIONS', 'PATCH', 'GET', 'TRACE'][i % 5] ?? 'DELETE' }).catch(() => undefined));
      for (let i = 0; i < 10; i += 1) attempts.push(() => api.order({ raw: 'x'.repeat(1024 * 1024 + 1) }).catch(() => undefined));
      expect(attempts.length).toBe(200);
      for (let i = 0; i < attempts.length; i += 25) await Promise.all(attempts.slice(i, i + 25).map((a) => a()));
      const tooLarge = await api.order({ raw: 'x'.repeat(1024 * 1024 + 1) });
      expect(tooLarge.status, 'over the 1 MiB limit: 413, a limit part 8 does not show').toBe(413);
      expect(tooLarge.body).toEqual({ message: expect.stringContaining('larger than the limit'), errorType: 'client', code: 413 });
      expect((await api.op('assessment', { raw: 'x'.repeat(1024 * 1024 + 1) })).status).toBe(413);
      expect((await fetch(`${api.sandbox.url}/__sandbox/health`)).status).toBe(200);
      expect(api.sandbox.requests).toBeGreaterThan(100);
    });
  });

  test('sandboxTargetEnv gives every variable the suite reads, and the expired tokens are refused as expired', async () => {
    await withSandbox({ flavor: 'alternative' }, async (api) => {
      const env = api.env;
      for (const op of operations) if (op.routeEnv) expect(env[op.routeEnv]).toBe(op.alternativeRoute);
      expect(env['ORDER_TRIGGER_503']).toBe('header:x-sandbox-respond=503');
      expect(JSON.parse(env['RESELLER_SHARED_CONTEXT'] ?? '')).toMatchObject({ childOrganizationId: env['RESELLER_SOURCE_CLIENT_ID'] });
      const expired = await api.op('assessment', { ...(await validCall(api, 'assessment')), headers: { authorization: `Bearer ${env['IDENTITY_EXPIRED_TOKEN']}` } });
      expect(expired.status).toBe(401);
    });
    await withSandbox({ faults: ['bearer-expiry-unchecked'] }, async (api) => {
      const expired = await api.op('stepUp', { ...(await validCall(api, 'stepUp')), headers: { authorization: `Bearer ${api.env['STEPUP_EXPIRED_TOKEN']}` } });
      expect(expired.status, 'the expired token is genuine: accepted once expiry is not checked').toBe(200);
    });
  });

  test('startSandbox refuses unknown faults and bad options', async () => {
    await expect(startSandbox({ tokenSecret: secret, faults: ['no-such-fault'] })).rejects.toThrow(/no-such-fault/);
    await expect(startSandbox({ tokenSecret: '' })).rejects.toThrow(/tokenSecret/);
    await expect(startSandbox({ tokenSecret: secret, webhookUrl: 'ftp://x' })).rejects.toThrow(/webhookUrl/);
  });
});

/** For each fault: a check that passes on the clean sandbox and fails with the fault on. */
type Conforms = (api: Api) => Promise<boolean>;

const stepUpOf = async (api: Api, extra: Body = {}): Promise<Reply> => {
  const c = await api.newCase();
  return api.op('stepUp', { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, ...extra } });
};
const updateOf = async (api: Api, extra: Body = {}, headers: Record<string, string | undefined> = {}): Promise<Reply> => {
  const c = await api.newCase();
  return api.op('caseUpdate', { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, ...extra }, headers });
};
const recordsOf = async (api: Api, query = '', headers: Record<string, string | undefined> = {}): Promise<Reply> => {
  const c = await api.newCase();
  return api.op('documentRecords', { params: { authenticationId: c.authenticationId }, query, headers });
};
const eventsOf = async (api: Api, kind: string, trigger: (api: Api) => Promise<unknown>): Promise<Delivery[]> => {
  await trigger(api);
  await api.sandbox.webhooksIdle();
  return api.receiver.deliveries.filter((d) => d.headers['x-sandbox-event'] === kind);
};
const docvEvents = (api: Api, kind: string) => eventsOf(api, kind, (a) => a.op('documentVerification', { body: { inquiryId: `inq-${randomUUID()}` } }));
const sessionEventValid = async (api: Api): Promise<boolean> => {
  const [event] = await eventsOf(api, 'verification-session', (a) => stepUpOf(a, { phoneNumber: '+15555550100' }));
  return event !== undefined && schemaIssues(schemaIdFor('webhook-verification-session'), event.body).length === 0;
};
const isRow = (reply: Reply, row: string): boolean => {
  const r = orderErrorRow(row);
  const typeOk = r.errorTypes === null ? typeof reply.body['errorType'] === 'string' : r.errorTypes.includes(String(reply.body['errorType']));
  return reply.status === r.status && reply.body['code'] === r.status && typeOk && Object.keys(reply.body).length === 3;
};
const decisionAfter = async (api: Api, updates: Body[]): Promise<unknown> => {
  const c = await api.newCase();
  for (const update of updates) await api.op('caseUpdate', { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, ...update } });
  return (await api.fetchCase(c.authenticationId)).body;
};


/** Probes of the faults that drop one listed header of one operation: clean, the request without it is refused. */
const headerFaultProbes = [
  ['client-id-optional-on-assessment', 'assessment', { 'x-client-id': undefined }],
  ['client-id-optional-on-document-verification', 'documentVerification', { 'x-client-id': undefined }],
  ['client-id-optional-on-document-records', 'documentRecords', { 'x-client-id': undefined }],
  ['client-id-optional-on-step-up', 'stepUp', { 'x-client-id': undefined }],
  ['correlation-id-optional-on-document-verification', 'documentVerification', { 'x-correlation-id': undefined }],
  ['correlation-id-optional-on-document-records', 'documentRecords', { 'x-correlation-id': undefined }],
  ['correlation-id-optional-on-case-update', 'caseUpdate', { 'x-correlation-id': undefined }],
  ['content-type-unchecked-on-assessment', 'assessment', { 'content-type': 'text/plain' }],
  ['content-type-unchecked-on-document-verification', 'documentVerification', { 'content-type': 'text/plain' }],
  ['content-type-unchecked-on-case-update', 'caseUpdate', { 'content-type': 'text/plain' }],
] as const satisfies ReadonlyArray<readonly [FaultId, OperationId, Record<string, string | undefined>]>;

function headerFaultChecks(): Record<(typeof headerFaultProbes)[number][0], Conforms> {
  return Object.fromEntries(
    headerFaultProbes.map(([fault, id, headers]) => [fault, async (api: Api) => (await api.op(id, { ...(await validCall(api, id)), headers })).status >= 400]),
  ) as Record<(typeof headerFaultProbes)[number][0], Conforms>;
}

const faultChecks: Record<FaultId, Conforms> = {
  'json-as-text-plain': async (api) => (await api.newCase()).reply.headers.get('content-type')?.startsWith('application/json') === true,
  'token-response-not-json': async (api) => typeof (await api.requestToken('identity')).body['access_token'] === 'string',
  'token-answered-201': async (api) => (await api.requestToken('identity')).status === 200,
  'token-any-scope': async (api) => (await api.requestToken('identity', { form: { grant_type: 'client_credentials', scope: 'admin' } })).status === 400,
  'token-any-grant': async (api) => (await api.requestToken('identity', { form: { grant_type: 'password', scope: 'k1_integration_api' } })).status === 400,
  'token-no-client-auth': async (api) => (await api.requestToken('identity', { apiKey: 'd3Jvbmc6d3Jvbmc=' })).status === 401,
  'token-no-cache-control': async (api) => (await api.requestToken('identity')).headers.get('cache-control') === 'no-store',
  'bearer-optional-on-records': async (api) => (await recordsOf(api, '', { authorization: undefined })).status === 401,
  'bearer-any-scheme': async (api) => (await api.op('assessment', { ...(await validCall(api, 'assessment')), headers: { authorization: `Token ${await api.token('identity')}` } })).status === 401,
  'bearer-signature-unchecked': async (api) => {
    const good = await api.token('identity');
    const forged = api.flavor === 'reference' ? `${good.split('.')[0]}.${'A'.repeat(43)}` : randomBytes(20).toString('hex');
    return (await api.op('assessment', { ...(await validCall(api, 'assessment')), headers: { authorization: `Bearer ${forged}` } })).status === 401;
  },
  'bearer-expiry-unchecked': async (api) => (await api.op('caseUpdate', { ...(await validCall(api, 'caseUpdate')), headers: { authorization: `Bearer ${api.env['IDENTITY_EXPIRED_TOKEN']}` } })).status === 401,
  'bearer-no-challenge': async (api) => (await api.op('assessment', { body: {}, headers: { authorization: undefined } })).headers.get('www-authenticate') !== null,
  'client-id-optional-on-case-update': async (api) => (await updateOf(api, {}, { 'x-client-id': undefined })).status === 400,
  'correlation-id-optional-on-assessment': async (api) => (await api.op('assessment', { ...(await validCall(api, 'assessment')), headers: { 'x-correlation-id': undefined } })).status === 400,
  'content-type-unchecked-on-step-up': async (api) => {
    const call = await validCall(api, 'stepUp');
    return (await api.op('stepUp', { ...call, headers: { 'content-type': 'text/plain' } })).status >= 400;
  },
  ...headerFaultChecks(),
  'correlation-id-required-on-step-up': async (api) => (await api.op('stepUp', { ...(await validCall(api, 'stepUp')), headers: { 'x-correlation-id': undefined } })).status === 200,
  'assessment-device-session-unique': async (api) => {
    const body = () => ({ strategy: 'default', inquiryId: `inq-${randomUUID()}`, deviceSessionId: 'device-session-1' });
    await api.op('assessment', { body: body() });
    return (await api.op('assessment', { body: body() })).status === 200;
  },
  'assessment-strategy-optional': async (api) => (await api.op('assessment', { body: { inquiryId: 'inq-1' } })).status === 400,
  'assessment-types-unchecked': async (api) => (await api.op('assessment', { body: { strategy: 'default', inquiryId: 'inq-1', applicant: 'Jane' } })).status === 400,
  'assessment-co-applicant-refused': async (api) => (await api.op('assessment', { body: { strategy: 'default', inquiryId: 'inq-1', coApplicant: { firstName: 'A' } } })).status === 200,
  'assessment-tags-as-string': async (api) => {
    const c = await api.newCase();
    return Array.isArray(c.reply.body['tags']) && Array.isArray((await api.fetchCase(c.authenticationId)).body['tags']);
  },
  'assessment-inquiry-not-echoed': async (api) => {
    const c = await api.newCase();
    return c.reply.body['inquiryId'] === c.inquiryId;
  },
  'fetch-returns-latest-case': async (api) => {
    const first = await api.newCase();
    await api.newCase();
    return (await api.fetchCase(first.authenticationId)).body['authenticationId'] === first.authenticationId;
  },
  'docv-images-refused': async (api) => (await api.op('documentVerification', { body: { images: { front: 'x' } } })).status === 200,
  'docv-types-unchecked': async (api) => (await api.op('documentVerification', { body: { phoneNumber: 5550100 } })).status === 400,
  'docv-interview-id-number': async (api) => typeof (await api.op('documentVerification', { body: {} })).body['interviewId'] === 'string',
  'records-formdata-refused': async (api) => {
    const reply = await recordsOf(api, 'data=formdata');
    return reply.status === 200 && typeof reply.body['formData'] === 'object';
  },
  'records-ocr-as-string': async (api) => typeof (await recordsOf(api)).body['ocrData'] === 'object',
  'records-source-client-refused': async (api) => (await recordsOf(api, '', { 'x-source-client-id': 'child-org-001' })).status === 200,
  'update-inquiry-optional': async (api) => {
    const c = await api.newCase();
    return (await api.op('caseUpdate', { body: { authenticationId: c.authenticationId } })).status === 400;
  },
  'update-unknown-case-accepted': async (api) => (await api.op('caseUpdate', { body: { inquiryId: 'inq-x', authenticationId: 'no-such-case' } })).status === 404,
  'update-inquiry-unchecked': async (api) => {
    const [a, b] = [await api.newCase(), await api.newCase()];
    return (await api.op('caseUpdate', { body: { inquiryId: b.inquiryId, authenticationId: a.authenticationId } })).status === 400;
  },
  'update-types-unchecked': async (api) => (await updateOf(api, { notes: 42 })).status === 400,
  'update-valid-refused': async (api) => (await updateOf(api, {})).status === 200,
  'update-documents-refused': async (api) => (await updateOf(api, { documents: [{ type: 'passport' }] })).status === 200,
  'update-decision-any': async (api) => (await updateOf(api, { decision: 'MAYBE' })).status === 400,
  'update-decision-ignored': async (api) => ((await decisionAfter(api, [{ decision: 'DENY' }])) as Body)['decision'] === 'DENY',
  'update-decision-reset': async (api) => ((await decisionAfter(api, [{ decision: 'DENY' }, { tags: ['t'] }])) as Body)['decision'] === 'DENY',
  'update-tags-replaced': async (api) => JSON.stringify(((await decisionAfter(api, [{ tags: ['a'] }, { tags: ['b'] }])) as Body)['tags']) === '["a","b"]',
  'update-agent-validated': async (api) => (await updateOf(api, { externalAgent: 'someone-else' })).status === 200,
  'update-unknown-queue-fails': async (api) => (await updateOf(api, { queue: 'no-such-queue' })).status === 200,
  'update-unknown-rejection-fails': async (api) => (await updateOf(api, { rejectionCode: 'R99' })).status === 200,
  'update-error-as-string': async (api) => schemaIssues(schemaIdFor('case-update-response'), (await updateOf(api)).json).length === 0,
  'update-response-without-ids': async (api) => typeof (await updateOf(api)).body['authenticationId'] === 'string',
  'update-correlation-not-echoed': async (api) => (await updateOf(api, {}, { 'x-correlation-id': 'corr-42' })).body['correlationId'] === 'corr-42',
  'step-up-email-refused': async (api) => (await stepUpOf(api, { email: 'a@example.com' })).status === 200,
  'step-up-authentication-id-optional': async (api) => {
    const c = await api.newCase();
    return (await api.op('stepUp', { body: { inquiryId: c.inquiryId, phoneNumber: '+1555' } })).status === 400;
  },
  'step-up-types-unchecked': async (api) => {
    const call = await validCall(api, 'stepUp');
    return (await api.op('stepUp', { ...call, body: { ...(call.body as object), strategy: 'x' } })).status === 400;
  },
  'step-up-unknown-case-accepted': async (api) => (await api.op('stepUp', { body: { inquiryId: 'inq-x', authenticationId: 'no-such-case', phoneNumber: '+1555' } })).status === 404,
  'step-up-inquiry-unchecked': async (api) => (await stepUpOf(api, { inquiryId: 'inq-other', phoneNumber: '+1555' })).status === 400,
  'step-up-strategy-as-string': async (api) => typeof (await stepUpOf(api, { phoneNumber: '+1555' })).body['strategy'] === 'object',
  'step-up-ids-swapped': async (api) => {
    const c = await api.newCase();
    const reply = await api.op('stepUp', { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, phoneNumber: '+1555' } });
    return reply.body['inquiryId'] === c.inquiryId && reply.body['authenticationId'] === c.authenticationId;
  },
  'shared-context-refused-on-step-up': async (api) => (await stepUpOf(api, { phoneNumber: '+1555', sharedContext: { resellerId: 'r' } })).status === 200,
  'webhooks-never-sent': async (api) => (await docvEvents(api, 'document-onboarding')).length > 0,
  'webhook-text-plain': async (api) => (await docvEvents(api, 'document-onboarding'))[0]?.headers['content-type'] === 'application/json',
  'webhook-onboarding-status-number': async (api) => typeof (await docvEvents(api, 'document-onboarding'))[0]?.body['status'] === 'string',
  'webhook-results-ocr-string': async (api) => typeof (await docvEvents(api, 'document-results'))[0]?.body['ocr'] === 'object',
  'webhook-results-wrong-inquiry': async (api) => {
    const inquiryId = `inq-${randomUUID()}`;
    const [event] = await eventsOf(api, 'document-results', (a) => a.op('documentVerification', { body: { inquiryId } }));
    return event?.body['inquiryId'] === inquiryId;
  },
  'webhook-session-missing-session-id': sessionEventValid,
  'webhook-int64-as-number': sessionEventValid,
  'webhook-status-outside-enum': sessionEventValid,
  'webhook-resend-outside-enum': sessionEventValid,
  'webhook-mfa-outside-enum': sessionEventValid,
  'webhook-channel-outside-enum': sessionEventValid,
  'order-code-as-string': async (api) => typeof (await api.order({ headers: { 'x-client-id': undefined } })).body['code'] === 'number',
  'order-extra-error-fields': async (api) => isRow(await api.order({ headers: { 'x-client-id': undefined } }), '400-other'),
  'order-code-differs': async (api) => {
    const body = validOrder();
    await api.order({ body });
    return isRow(await api.order({ body }), '409');
  },
  'order-401-unauthenticated': async (api) => isRow(await api.order({ headers: { authorization: undefined } }), '401'),
  'order-validation-without-prefix': async (api) =>
    String((await api.order({ body: validOrder({ fulfillment: [{ type: 'TELEPORT' }] }) })).body['message']).startsWith(orderErrorRow('400-validation').messagePrefix ?? '?'),
  'order-fulfillment-unchecked': async (api) => isRow(await api.order({ body: validOrder({ fulfillment: [{ type: 'TELEPORT' }] }) }), '400-validation'),
  'order-in-person-refused': async (api) => (await api.order({ body: validOrder({ fulfillment: [{ type: 'IN_PERSON' }] }) })).status === 200,
  'order-correlation-optional': async (api) => isRow(await api.order({ headers: { 'x-correlation-id': undefined } }), '400-other'),
  'order-client-id-optional': async (api) => isRow(await api.order({ headers: { 'x-client-id': undefined } }), '400-other'),
  'order-malformed-500': async (api) => isRow(await api.order({ raw: '{"merchantOrderId"' }), '400-other'),
  'order-expired-accepted': async (api) => isRow(await api.order({ headers: { authorization: `Bearer ${api.env['ORDERS_EXPIRED_TOKEN']}` } }), '401'),
  'order-entitlements-unchecked': async (api) => isRow(await api.order({ apiKey: api.env['ORDERS_NO_ENTITLEMENT_API_KEY'] ?? '' }), '403'),
  'order-404-not-found-type': async (api) => isRow(await api.order({ headers: { 'x-sandbox-respond': '404' } }), '404'),
  'order-duplicate-400': async (api) => {
    const body = validOrder();
    await api.order({ body });
    return (await api.order({ body })).status === 409;
  },
  'order-500-server-error-type': async (api) => isRow(await api.order({ headers: { 'x-sandbox-respond': '500' } }), '500'),
  'order-503-service-unavailable-type': async (api) => isRow(await api.order({ headers: { 'x-sandbox-respond': '503' } }), '503'),
};

/** Faults whose behaviour differs by flavor are checked in both. */
const checkedInBothFlavors: readonly FaultId[] = ['bearer-signature-unchecked', 'bearer-expiry-unchecked', 'webhook-mfa-outside-enum', 'order-expired-accepted'];

test.describe('sandbox: faults', () => {
  test('every fault names an existing requirement, once, and is checked in sandbox code', () => {
    const source = readdirSync(new URL('../sandbox/', import.meta.url))
      .filter((f) => f.endsWith('.ts') && f !== 'faults.ts')
      .map((f) => readFileSync(new URL(`../sandbox/${f}`, import.meta.url), 'utf8'))
      .join('\n');
    expect(new Set(faults.map((f) => f.id)).size).toBe(faults.length);
    for (const f of faults) {
      expect(isRequirementId(f.requirement), `${f.id} -> ${f.requirement}`).toBe(true);
      expect(source.includes(`'${f.id}'`), `${f.id} is named in sandbox code, where it changes a behaviour`).toBe(true);
    }
    expect(Object.keys(faultChecks).sort()).toEqual(faults.map((f) => f.id).sort());
  });

  for (const f of faults) {
    const flavorsToCheck: readonly Flavor[] = checkedInBothFlavors.includes(f.id as FaultId) ? bothFlavors : ['reference'];
    test(`${f.id} breaks ${f.requirement}`, async () => {
      const check = faultChecks[f.id as FaultId];
      for (const flavor of flavorsToCheck) {
        const clean = await withSandbox({ flavor }, check);
        expect(clean, `${flavor}: the clean sandbox conforms to ${f.requirement}`).toBe(true);
        const broken = await withSandbox({ flavor, faults: [f.id] }, check);
        expect(broken, `${flavor}: with ${f.id} the sandbox no longer conforms to ${f.requirement}`).toBe(false);
      }
    });
  }
});
