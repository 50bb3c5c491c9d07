import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { clientRequirements } from '../catalog/client-catalog.ts';
import { requirements } from '../catalog/catalog.ts';
import type { DsseEnvelope } from '../scripts/evidence/dsse.ts';
import { SOURCE_LIST_FILE } from '../scripts/evidence/source-digest.ts';
import type { Statement } from '../scripts/evidence/statement.ts';
import { verifyBundleCommand } from '../scripts/verify-bundle.ts';
import {
  childEnv,
  filesUnder,
  inProcess,
  outcomesIn,
  readText,
  repoRoot,
  runCli,
  scanForSecrets,
  TS_NODE,
} from './evidence-harness.ts';

// The client side of certification, three runs of npm run certify-client: the example reseller client passes clean,
// one faulty client fails on the rows it breaks, and a client that calls nothing is not certified, its bundle naming
// it and verified in this process by verify-bundle's own function.
const CLIENT = `"${process.execPath}" --import tsx examples/reseller-client/client.ts`;
const SCENARIO = ['--scenario', 'examples/reseller-client/scenario.json'];
const certifyClient = [...TS_NODE.slice(1), 'scripts/certify-client.ts'];
const infoIds = new Set(clientRequirements.filter((r) => r.level === 'INFO').map((r) => r.id));
const held = ([id, outcome]: [string, string]) => outcome === 'passed' || (infoIds.has(id) && outcome === 'observed');
const clientOutcomes = (out: string) => outcomesIn(join(out, 'client-conformance.json'));

test.describe.configure({ timeout: 180_000 });

let work: string;
test.beforeEach(() => void (work = mkdtempSync(join(tmpdir(), 'client-cert-'))));
test.afterEach(() => rmSync(work, { recursive: true, force: true }));

test('--listen: the example client started by hand in another process is recorded until Ctrl-C and passes every MUST and SHOULD, retries and webhook answers included; no secret or issued token reaches any artifact or output', async () => {
  const issued = join(work, 'issued-tokens.txt');
  writeFileSync(issued, '');
  const out = join(work, 'out');
  const listener = spawn(TS_NODE[0], [...certifyClient, '--listen', ...SCENARIO, '--out', out], {
    cwd: repoRoot,
    env: childEnv(work, { SANDBOX_ISSUED_TOKENS_FILE: issued }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  listener.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  listener.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  await expect.poll(() => /Ctrl-C to judge:\n(?: {2}\w+=.*\n)+/.test(printed), { timeout: 30_000 }).toBe(true);
  const variables = Object.fromEntries(
    [...printed.matchAll(/^ {2}(\w+)=(.*)$/gm)].map((m) => [m[1] as string, m[2] as string]),
  );
  const client = await runCli(TS_NODE[0], [...TS_NODE.slice(1), 'examples/reseller-client/client.ts'], {
    ...childEnv(work, { WEBHOOK_GRACE_MS: '700' }),
    ...variables,
  });
  expect(client.code, client.stderr).toBe(0);
  const ended = new Promise<number | null>((resolve) => listener.on('close', resolve));
  listener.kill('SIGINT');
  expect(await ended, printed.slice(-2000)).toBe(0);
  expect(
    Object.entries(clientOutcomes(out)).filter((row) => !held(row)),
    printed,
  ).toEqual([]);
  expect(printed, 'the console summary lists every requirement').toMatch(/passed\s+CLI-ORDER-RETRY\s+MUST/);

  const issuedTokens = readText(issued).split('\n').filter(Boolean);
  const secrets: Record<string, string> = Object.fromEntries(
    [
      ...['API_KEY', 'RESELLER_API_KEY'].map((name) => [name, variables[name] ?? '']),
      ...issuedTokens.map((token, index) => [`issued token ${index + 1}`, token]),
    ].filter(([, value]) => value),
  );
  expect(Object.keys(secrets).length).toBeGreaterThan(2);
  const sources = [
    ...readdirSync(out).map((name) => ({ name, text: readText(join(out, name)) })),
    { name: 'console', text: printed.replace(/^ {2}(API_KEY|RESELLER_API_KEY)=.*$/gm, '') },
  ];
  expect(scanForSecrets(sources, secrets)).toEqual([]);
});

// Every client fault with the requirement it breaks. Faults of different requirements that cannot touch each other's
// rows share a run: group a runs here; b and c are recorded (tools/check-units/record.ts) and judged by their checks'
// units (check-units/client.ts), as are no-correlation-id and wrong-scope, which stop the flow, on the clean traffic
// changed alike.
type Fault = readonly [fault: string, requirement: string];
const faults: Fault[] = [
  ['retry-storm', 'CLI-ORDER-RETRY'],
  ['webhook-500', 'CLI-WEBHOOK-ANSWER'],
  ['child-id-leak', 'CLI-CHILD-ISOLATION'],
  ['no-bearer', 'CLI-BEARER'],
  ['body-text-plain', 'CLI-JSON-BODY'],
];
const elsewhere: Fault[] = [
  ['one-correlation-id', 'CLI-CORRELATION-UNIQUE'],
  ['no-retry', 'CLI-ORDER-RETRY'],
  ['webhook-strict', 'CLI-WEBHOOK-ANSWER'],
  ['one-child', 'CLI-SCENARIO'],
  ['made-up-authentication-id', 'CLI-KNOWN-CASE'],
  ['no-shared-context', 'CLI-RESELLER-CONTEXT'],
  ['webhook-text', 'CLI-WEBHOOK-ANSWER'],
  ['shared-get-correlation-id', 'CLI-CORRELATION-UNIQUE'],
  ['no-source-client-id', 'CLI-RESELLER-CONTEXT'],
  ['no-client-id', 'CLI-CLIENT-ID'],
  ['decision-lowercase', 'CLI-BODY-SCHEMA'],
  ['no-correlation-id', 'CLI-CORRELATION-ID'],
  ['wrong-scope', 'CLI-TOKEN-REQUEST'],
];

test('client requirement IDs are unique across both catalogs, and every client MUST has a client fault that breaks it', () => {
  const ids = [...requirements.map((r) => r.id), ...clientRequirements.map((r) => r.id)];
  expect(new Set(ids).size, 'no ID twice').toBe(ids.length);
  const broken = new Set([...faults, ...elsewhere].map(([, requirement]) => requirement));
  expect(clientRequirements.filter((r) => r.level === 'MUST' && !broken.has(r.id)).map((r) => r.id)).toEqual([]);
});

test(`client faults ${faults.map(([f]) => f).join(',')} are caught by ${faults.map(([, r]) => r).join(', ')}, and only by them`, async () => {
  const env = childEnv(work, { WEBHOOK_GRACE_MS: '700', CLIENT_FAULT: faults.map(([f]) => f).join(',') });
  const out = join(work, 'out');
  const run = await runCli(TS_NODE[0], [...certifyClient, '--run', CLIENT, ...SCENARIO, '--out', out], env, 170_000);
  const output = `${run.stdout}\n${run.stderr}`;
  const outcomes = clientOutcomes(out);
  for (const [fault, requirement] of faults) expect(outcomes[requirement], `${fault}\n${output}`).toBe('failed');
  expect(run.code, 'a MUST failure fails the certification').toBe(1);
  const targeted = new Set(faults.map(([, requirement]) => requirement));
  const others = Object.entries(outcomes).filter((row) => !targeted.has(row[0]) && !held(row));
  expect(others, output).toEqual([]);
});

test("a client that calls nothing, 503 injection and webhooks off, is not certified: the scenario failed, the MUSTs never reached and the rows turned off named; its bundle names it by its command, credentials masked, with its version, and verifies offline pinning the judge's source", async () => {
  const canary = `canary-client-secret-${process.pid}`;
  const certification = join(work, 'certification');
  const env = childEnv(work, { CERTIFICATION_DIR: certification });
  const out = join(work, 'out');
  const args = ['--run', `API_KEY=${canary} true --token ${canary}`, '--client-version', '9.9.9-rc1', '--bundle'];
  const run = await runCli(
    TS_NODE[0],
    [...certifyClient, ...args, '--no-webhooks', '--inject-503', '0', ...SCENARIO, '--out', out],
    env,
    120_000,
  );
  const output = `${run.stdout}\n${run.stderr}`;
  expect(run.code, output).toBe(1);
  const outcomes = clientOutcomes(out);
  expect(outcomes['CLI-SCENARIO']).toBe('failed');
  expect([outcomes['CLI-ORDER-RETRY'], outcomes['CLI-WEBHOOK-ANSWER']]).toEqual(['not-configured', 'not-configured']);
  expect(output).toMatch(/MUST requirements not exercised \(certify profile\): CLI-TOKEN-REQUEST/);
  expect(output).toMatch(
    /MUST requirements not configured \(certify profile\): CLI-ORDER-RETRY, CLI-WEBHOOK-ANSWER \(set --inject-503, --no-webhooks\)/,
  );
  expect(output).toContain('not configured: --inject-503 0');

  const [name] = readdirSync(certification);
  expect(name, output).toMatch(/^client-/);
  const bundle = join(certification, name as string);
  const envelope = JSON.parse(readText(join(bundle, 'statement.dsse.json'))) as DsseEnvelope;
  const { predicate } = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as Statement;
  expect(predicate['client']).toEqual({ command: 'API_KEY=[REDACTED] true --token [REDACTED]', version: '9.9.9-rc1' });
  expect(predicate.source).toMatchObject({ list: SOURCE_LIST_FILE });
  expect(readText(join(bundle, 'client-conformance.md'))).toContain('- client version: 9.9.9-rc1');
  const files = [...filesUnder(bundle), ...filesUnder(out)].map((file) => ({ name: file, text: readText(file) }));
  expect(scanForSecrets([...files, { name: 'output', text: output }], { canary })).toEqual([]);
  const verified = await inProcess(() =>
    verifyBundleCommand(['--public-key', join(bundle, 'signing-key.pub.pem'), bundle]),
  );
  expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  expect(verified.stdout).toMatch(/The run's source: commit \S+/);
});
