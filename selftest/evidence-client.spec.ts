import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { SOURCE_LIST_FILE } from '../scripts/evidence/source-digest.ts';
import type { DsseEnvelope } from '../scripts/evidence/dsse.ts';
import type { Statement } from '../scripts/evidence/statement.ts';
import { childEnv, filesUnder, readText, runCli, scanForSecrets, TS_NODE } from './evidence-harness.ts';

// A client bundle names the client it judged: its command with the credentials in it masked, and the version given.
// The client here does nothing (`true`), which is enough to be named; its verdict is not what is tested.
test("a client bundle names the client by its command, credentials masked, and its version; it pins the judge's source", async () => {
  const work = mkdtempSync(join(tmpdir(), 'evidence-client-'));
  try {
    const canary = `canary-client-secret-${process.pid}`;
    const certification = join(work, 'certification');
    const env = childEnv(work, { CERTIFICATION_DIR: certification });
    const args = [
      '--run',
      `API_KEY=${canary} true --token ${canary}`,
      '--client-version',
      '9.9.9-rc1',
      '--bundle',
      '--no-webhooks',
      '--inject-503',
      '0',
      '--out',
      join(work, 'out'),
    ];
    const run = await runCli(TS_NODE[0], [...TS_NODE.slice(1), 'scripts/certify-client.ts', ...args], env, 120_000);
    const [name] = readdirSync(certification);
    expect(name, `${run.stdout}\n${run.stderr}`).toMatch(/^client-/);
    const bundle = join(certification, name as string);
    const envelope = JSON.parse(readText(join(bundle, 'statement.dsse.json'))) as DsseEnvelope;
    const { predicate } = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as Statement;
    expect(predicate['client']).toEqual({
      command: 'API_KEY=[REDACTED] true --token [REDACTED]',
      version: '9.9.9-rc1',
    });
    expect(predicate.source).toMatchObject({ list: SOURCE_LIST_FILE });
    expect(readText(join(bundle, 'client-conformance.md'))).toContain('- client version: 9.9.9-rc1');
    const leaks = scanForSecrets(
      [...filesUnder(bundle), ...filesUnder(join(work, 'out'))]
        .map((file) => ({ name: file, text: readText(file) }))
        .concat({ name: 'output', text: run.stdout + run.stderr }),
      { canary },
    );
    expect(leaks).toEqual([]);
    const verified = await runCli(
      TS_NODE[0],
      [...TS_NODE.slice(1), 'scripts/verify-bundle.ts', '--public-key', join(bundle, 'signing-key.pub.pem'), bundle],
      env,
    );
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/The run's source: commit \S+/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
