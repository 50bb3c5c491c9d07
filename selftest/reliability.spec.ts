import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { expect, test } from '@playwright/test';
import { isRequirementId } from '../catalog/catalog.ts';
import { CaseStore, MAX_CASES } from '../sandbox/cases.ts';
import { faults } from '../sandbox/faults.ts';
import { reference } from '../sandbox/flavors/reference.ts';
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';

// The sandbox under bad input and injected unavailability: a clear answer each time, no crash. Its correct behaviour,
// concurrency included, is the proof run's; its faults are the kill matrix's.
const secret = 'reliability-secret';

interface Client {
  sandbox: RunningSandbox;
  env: Record<string, string>;
  token: string;
}

async function client(options: Parameters<typeof startSandbox>[0] = { tokenSecret: secret }): Promise<Client> {
  const sandbox = await startSandbox({ warn: () => undefined, ...options });
  const env = sandboxTargetEnv({ url: sandbox.url, flavor: 'reference', tokenSecret: secret });
  let token = '';
  for (let attempt = 0; attempt < 20 && !token; attempt += 1) {
    const reply = await fetch(env['IDENTITY_TOKEN_URL'] ?? '', {
      method: 'POST',
      headers: { authorization: `Basic ${env['API_KEY']}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=k1_integration_api',
    });
    if (reply.status === 200) token = ((await reply.json()) as { access_token: string }).access_token;
  }
  return { sandbox, env, token };
}

const headers = (c: Client) => ({
  authorization: `Bearer ${c.token}`,
  'x-client-id': c.env['CLIENT_ID'] ?? '',
  'x-correlation-id': randomUUID(),
  'content-type': 'application/json',
});
const url = (c: Client, base: string, route: string) => `${c.env[base]}${route.split(' ')[1]}`;

async function newCase(c: Client): Promise<{ inquiryId: string; authenticationId: string }> {
  const inquiryId = `inq-${randomUUID()}`;
  const reply = await fetch(url(c, 'IDENTITY_BASE_URL', c.env['ROUTE_ASSESSMENT'] ?? ''), {
    method: 'POST',
    headers: headers(c),
    body: JSON.stringify({ strategy: 'default', inquiryId }),
  });
  const body = (await reply.json()) as { authenticationId: string };
  return { inquiryId, authenticationId: body.authenticationId };
}

const order = (c: Client, merchantOrderId: string, extra: RequestInit = {}) =>
  fetch(`${c.env['ORDERS_BASE_URL']}/v2/orders`, {
    method: 'POST',
    headers: headers(c),
    body: JSON.stringify({
      merchantOrderId,
      fulfillment: [{ type: 'SHIPPED' }],
      items: [],
      transactions: [],
      promotions: [],
    }),
    ...extra,
  });

/** Sends raw bytes and resolves with the status line, or 'closed' when the server ends the connection first. */
function raw(
  sandbox: RunningSandbox,
  bytes: string | Buffer,
  options: { endAfterWrite?: boolean; waitMs?: number } = {},
): Promise<string> {
  const { port } = new URL(sandbox.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(answer.split('\r\n')[0] || 'no answer');
    }, options.waitMs ?? 5_000);
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer.split('\r\n')[0] || 'closed');
    });
    socket.on('error', () => undefined);
    socket.write(bytes, () => {
      if (options.endAfterWrite) socket.end();
    });
  });
}

test('bad input gets a clear answer and the sandbox keeps serving: huge, nested, not UTF-8, wrong type, slow, half-closed, garbage', async () => {
  const c = await client({ tokenSecret: secret, requestTimeoutMs: 1_500 });
  try {
    const huge = await order(c, 'huge', {
      body: JSON.stringify({ merchantOrderId: 'huge', padding: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(huge.status, 'beyond the 1 MiB limit').toBe(413);
    expect(await huge.json()).toMatchObject({ errorType: 'client', code: 413 });
    const nested = await order(c, 'nested', { body: `${'['.repeat(100_000)}${']'.repeat(100_000)}` });
    expect(nested.status).toBe(400);
    const notUtf8 = await order(c, 'bytes', { body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) });
    expect(notUtf8.status).toBe(400);
    const wrongType = await fetch(url(c, 'IDENTITY_BASE_URL', c.env['ROUTE_ASSESSMENT'] ?? ''), {
      method: 'POST',
      headers: { ...headers(c), 'content-type': 'application/xml' },
      body: '<a/>',
    });
    expect(wrongType.status).toBe(415);
    const slow = await raw(
      c.sandbox,
      'POST /commerce/v2/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a"',
      { waitMs: 5_000 },
    );
    expect(slow, 'a body that stops coming is cut off by the request timeout').toMatch(/^(HTTP\/1\.1 408|closed)/);
    const halfClosed = await raw(c.sandbox, 'GET /__sandbox/health HTTP/1.1\r\nHost: x\r\n\r\n', {
      endAfterWrite: true,
      waitMs: 3_000,
    });
    expect(halfClosed).toMatch(/^HTTP\/1\.1 200/);
    const garbage = [
      ...Array.from({ length: 50 }, (_, i) => randomBytes(64 + i * 13)),
      ...Array.from({ length: 30 }, (_, i) => `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000 + i)}\r\n\r\n`),
    ];
    for (let i = 0; i < garbage.length; i += 20)
      await Promise.all(garbage.slice(i, i + 20).map((bytes) => raw(c.sandbox, bytes, { waitMs: 2_000 })));
    for (const method of ['DELETE', 'OPTIONS', 'PATCH', 'GET'])
      expect((await fetch(url(c, 'IDENTITY_BASE_URL', c.env['ROUTE_ASSESSMENT'] ?? ''), { method })).status).not.toBe(
        500,
      );
    expect((await fetch(`${c.sandbox.url}/__sandbox/health`)).status, 'still serving').toBe(200);
    expect((await newCase(c)).authenticationId, 'still creating cases').toBeTruthy();
  } finally {
    await c.sandbox.close();
  }
});

test('the case store is bounded: past MAX_CASES the oldest case is forgotten, the newest kept and found by inquiry', () => {
  const store = new CaseStore(reference);
  const first = store.create({ inquiryId: 'inq-first', strategyName: 'default' });
  let last = first;
  for (let i = 0; i < MAX_CASES; i += 1) last = store.create({ inquiryId: `inq-${i}`, strategyName: 'default' });
  expect(store.size).toBe(MAX_CASES);
  expect(store.get(first.authenticationId), 'the oldest is forgotten').toBeUndefined();
  expect(store.byInquiry('inq-first')).toBeUndefined();
  expect(store.get(last.authenticationId)).toBe(last);
  expect(store.byInquiry(`inq-${MAX_CASES - 1}`)).toBe(last);
});

test('startSandbox refuses unknown faults and bad options', async () => {
  await expect(startSandbox({ tokenSecret: secret, faults: ['no-such-fault'] })).rejects.toThrow(/no-such-fault/);
  await expect(startSandbox({ tokenSecret: '' })).rejects.toThrow(/tokenSecret/);
  await expect(startSandbox({ tokenSecret: secret, webhookUrl: 'ftp://x' })).rejects.toThrow(/webhookUrl/);
});

// Whether each fault breaks its requirement is the kill matrix's to prove (selftest/proof.spec.ts); what it cannot
// see is a fault entry that no sandbox code reads, or one citing a requirement the catalog does not have.
test('every fault names an existing requirement, once, and is checked in sandbox code', () => {
  const sandboxDir = new URL('../sandbox/', import.meta.url);
  const source = readdirSync(sandboxDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && f !== 'faults.ts')
    .map((f) => readFileSync(new URL(f, sandboxDir), 'utf8'))
    .join('\n');
  expect(new Set(faults.map((f) => f.id)).size).toBe(faults.length);
  for (const f of faults) {
    expect(isRequirementId(f.requirement), `${f.id} -> ${f.requirement}`).toBe(true);
    expect(source.includes(`'${f.family ?? f.id}'`), `${f.family ?? f.id} is named in sandbox code`).toBe(true);
  }
});
