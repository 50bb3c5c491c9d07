import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { expect, test } from '@playwright/test';
import { operation } from '../catalog/catalog.ts';
import { accessTokenOf, tokenRequest } from '../kit/tokens.ts';
import { HttpClient } from '../runner/http/client.ts';
import { CaseStore, MAX_CASES } from '../sandbox/cases.ts';
import { faults } from '../sandbox/faults.ts';
import { reference } from '../sandbox/flavors/reference.ts';
import { operationPath } from '../sandbox/layout.ts';
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { sandboxTarget } from '../sandbox/target-env.ts';

// The sandbox under bad input: a clear answer each time, no crash. Its correct behaviour, concurrency included, is the
// proof run's; its faults are the kill matrix's.
const secret = 'selftest-token-secret';

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
  const sandbox = await startSandbox({ tokenSecret: secret, requestTimeoutMs: 1_500, warn: () => undefined });
  try {
    // Sent by the suite's own HTTP client, with the run's token.
    const http = new HttpClient({ retries: 0, baseMs: 5, maxMs: 50, timeoutMs: 10_000 });
    const target = sandboxTarget({ url: sandbox.url, flavor: 'reference', tokenSecret: secret });
    const token = accessTokenOf(
      await http.send(tokenRequest({ tokenUrl: target.IDENTITY_TOKEN_URL, apiKey: target.API_KEY })),
    );
    expect(token, 'the run has its token').toBeDefined();
    const url = sandbox.url + operationPath('reference', operation('assessment'));
    const assess = (body: string | Buffer, contentType = 'application/json') =>
      http.send({
        label: 'assessment',
        method: 'POST',
        url,
        headers: [
          ['authorization', `Bearer ${token}`],
          ['x-client-id', target.CLIENT_ID],
          ['x-correlation-id', 'selftest-bad-input'],
          ['content-type', contentType],
        ],
        body,
      });
    const huge = await assess(JSON.stringify({ strategy: 'x'.repeat(2 * 1024 * 1024) }));
    expect(huge.status, 'beyond the 1 MiB limit').toBe(413);
    expect(huge.json).toMatchObject({ error: { code: 'body_too_large' } });
    expect((await assess(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).status, 'nested deep').toBe(400);
    expect((await assess(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]))).status, 'not UTF-8').toBe(400);
    expect((await assess('<a/>', 'application/xml')).status, 'not JSON').toBe(415);
    const slow = await raw(sandbox, 'POST /commerce/v2/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a"');
    expect(slow, 'a body that stops coming is cut off by the request timeout').toMatch(/^(HTTP\/1\.1 408|closed)/);
    const halfClosed = await raw(sandbox, 'GET /__sandbox/health HTTP/1.1\r\nHost: x\r\n\r\n', {
      endAfterWrite: true,
      waitMs: 3_000,
    });
    expect(halfClosed).toMatch(/^HTTP\/1\.1 200/);
    const garbage = [
      ...Array.from({ length: 50 }, (_, i) => randomBytes(64 + i * 13)),
      ...Array.from({ length: 30 }, (_, i) => `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000 + i)}\r\n\r\n`),
    ];
    for (let i = 0; i < garbage.length; i += 20)
      await Promise.all(garbage.slice(i, i + 20).map((bytes) => raw(sandbox, bytes, { waitMs: 2_000 })));
    for (const method of ['DELETE', 'OPTIONS', 'PATCH', 'GET'])
      expect((await fetch(url, { method })).status, method).not.toBe(500);
    expect((await fetch(`${sandbox.url}/__sandbox/health`)).status, 'still serving').toBe(200);
    const created = await assess(JSON.stringify({ strategy: 'default', inquiryId: 'inq-after' }));
    expect(created.json, 'still creating cases').toMatchObject({ authenticationId: expect.any(String) });
  } finally {
    await sandbox.close();
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

// Whether each fault breaks its requirement is the kill matrix's to prove (selftest/proof.spec.ts), and sandbox/faults.ts
// refuses to load with a fault listed twice or citing a requirement the catalog does not have; what neither sees is a
// fault entry that no sandbox code reads.
test('every fault is checked in sandbox code', () => {
  const sandboxDir = new URL('../sandbox/', import.meta.url);
  const source = readdirSync(sandboxDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && f !== 'faults.ts')
    .map((f) => readFileSync(new URL(f, sandboxDir), 'utf8'))
    .join('\n');
  for (const f of faults)
    expect(source.includes(`'${f.family ?? f.id}'`), `${f.family ?? f.id} is named in sandbox code`).toBe(true);
});
