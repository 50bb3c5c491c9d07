import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { expect, test } from '@playwright/test';
import { isRequirementId } from '../catalog/catalog.ts';
import { CaseStore, MAX_CASES } from '../sandbox/cases.ts';
import { faults } from '../sandbox/faults.ts';
import { reference } from '../sandbox/flavors/reference.ts';
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { SandboxClient, secret } from './sandbox/client.ts';

// The sandbox under bad input and injected unavailability: a clear answer each time, no crash. Its correct behaviour,
// concurrency included, is the proof run's; its faults are the kill matrix's.
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
  const c = new SandboxClient(sandbox);
  try {
    const huge = await c.op('assessment', { raw: JSON.stringify({ strategy: 'x'.repeat(2 * 1024 * 1024) }) });
    expect(huge.status, 'beyond the 1 MiB limit').toBe(413);
    expect(huge.body).toMatchObject({ error: { code: 'body_too_large' } });
    expect((await c.op('assessment', { raw: `${'['.repeat(100_000)}${']'.repeat(100_000)}` })).status).toBe(400);
    const notUtf8 = await c.op('assessment', { raw: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) });
    expect(notUtf8.status).toBe(400);
    const wrongType = await c.op('assessment', { raw: '<a/>', headers: { 'content-type': 'application/xml' } });
    expect(wrongType.status).toBe(415);
    const slow = await raw(sandbox, 'POST /commerce/v2/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a"', {
      waitMs: 5_000,
    });
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
      expect((await fetch(c.url('assessment'), { method })).status).not.toBe(500);
    expect((await fetch(`${sandbox.url}/__sandbox/health`)).status, 'still serving').toBe(200);
    const created = await c.op('assessment', { body: { strategy: 'default', inquiryId: 'inq-after' } });
    expect(created.body['authenticationId'], 'still creating cases').toBeTruthy();
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
