import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { expect, test } from '@playwright/test';
import { isRequirementId, operations } from '../catalog/catalog.ts';
import { faults } from '../sandbox/faults.ts';
import { startSandbox } from '../sandbox/server.ts';
import { secret, toReply, validCall, withSandbox } from './sandbox/client.ts';
import type { Body } from './sandbox/client.ts';

test.describe('sandbox: plumbing', () => {
  test('/__sandbox/echo returns the raw headers as they went on the wire', async () => {
    await withSandbox({}, async (api) => {
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(api.sandbox.url).port), '127.0.0.1', () => {
          socket.write(
            'POST /__sandbox/echo?x=1 HTTP/1.1\r\nHost: sandbox\r\nX-Mixed-Case: One\r\nx-mixed-case: Two\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc',
          );
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
        rawHeaders: [
          'Host',
          'sandbox',
          'X-Mixed-Case',
          'One',
          'x-mixed-case',
          'Two',
          'Content-Length',
          '3',
          'Connection',
          'close',
        ],
        bodyBase64: Buffer.from('abc').toString('base64'),
      });
      expect((await fetch(`${api.sandbox.url}/__sandbox/health`).then(toReply)).body).toMatchObject({
        status: 'ok',
        cases: expect.any(Number),
        rssBytes: expect.any(Number),
      });
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
      for (let i = 0; i < 30; i += 1)
        attempts.push(() =>
          rawSend(Buffer.from(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000 + i)}\r\n\r\n`)),
        );
      for (let i = 0; i < 50; i += 1)
        attempts.push(() => api.op('assessment', { raw: randomBytes(i * 7) }).catch(() => undefined));
      for (let i = 0; i < 30; i += 1)
        attempts.push(() => api.order({ raw: `{"merchantOrderId": ${'['.repeat(i * 1000)}` }).catch(() => undefined));
      for (let i = 0; i < 30; i += 1)
        attempts.push(() =>
          fetch(assessmentUrl, { method: ['DELETE', 'OPTIONS', 'PATCH', 'GET', 'TRACE'][i % 5] ?? 'DELETE' }).catch(
            () => undefined,
          ),
        );
      for (let i = 0; i < 10; i += 1)
        attempts.push(() => api.order({ raw: 'x'.repeat(1024 * 1024 + 1) }).catch(() => undefined));
      expect(attempts.length).toBe(200);
      for (let i = 0; i < attempts.length; i += 25) await Promise.all(attempts.slice(i, i + 25).map((a) => a()));
      const tooLarge = await api.order({ raw: 'x'.repeat(1024 * 1024 + 1) });
      expect(tooLarge.status, 'over the 1 MiB limit: 413, a limit part 8 does not show').toBe(413);
      expect(tooLarge.body).toEqual({
        message: expect.stringContaining('larger than the limit'),
        errorType: 'client',
        code: 413,
      });
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
      expect(JSON.parse(env['RESELLER_SHARED_CONTEXT'] ?? '')).toMatchObject({
        childOrganizationId: env['RESELLER_SOURCE_CLIENT_ID'],
      });
      const expired = await api.op('assessment', {
        ...(await validCall(api, 'assessment')),
        headers: { authorization: `Bearer ${env['IDENTITY_EXPIRED_TOKEN']}` },
      });
      expect(expired.status).toBe(401);
    });
    await withSandbox({ faults: ['bearer-expiry-unchecked-on-step-up'] }, async (api) => {
      const expired = await api.op('stepUp', {
        ...(await validCall(api, 'stepUp')),
        headers: { authorization: `Bearer ${api.env['STEPUP_EXPIRED_TOKEN']}` },
      });
      expect(expired.status, 'the expired token is genuine: accepted once expiry is not checked').toBe(200);
    });
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
      expect(
        source.includes(`'${f.family ?? f.id}'`),
        `${f.family ?? f.id} is named in sandbox code, where it changes a behaviour`,
      ).toBe(true);
    }
  });
});
