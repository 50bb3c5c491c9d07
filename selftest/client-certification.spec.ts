import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { clientRequirements } from '../catalog/client-catalog.ts';
import { requirements } from '../catalog/catalog.ts';
import { childEnv, readText, repoRoot, runCli, scanForSecrets, TS_NODE } from './evidence-harness.ts';

// The client side of certification: the example reseller client, run by npm run certify-client against a recording
// sandbox, passes clean; each way of misbehaving it can be switched to is caught by the client requirement it breaks.
const CLIENT = `"${process.execPath}" --import tsx examples/reseller-client/client.ts`;

interface Judged {
  code: number | null;
  output: string;
  outcomes: Record<string, string>;
}

/** The README's command (every MUST exercised by default: 503s injected, events delivered to WEBHOOK_PORT), plus `extra`. */
async function certify(fault: string | undefined, extra: string[] = [], run = CLIENT): Promise<Judged> {
  const work = mkdtempSync(join(tmpdir(), 'client-cert-'));
  try {
    const env = childEnv(work, { WEBHOOK_GRACE_MS: '700', ...(fault ? { CLIENT_FAULT: fault } : {}) });
    const result = await runCli(
      TS_NODE[0],
      [
        ...TS_NODE.slice(1),
        'scripts/certify-client.ts',
        '--run',
        run,
        '--scenario',
        'examples/reseller-client/scenario.json',
        '--out',
        join(work, 'out'),
        ...extra,
      ],
      env,
      170_000,
    );
    const report = JSON.parse(readText(join(work, 'out', 'client-conformance.json'))) as {
      requirements: Array<{ id: string; outcome: string }>;
    };
    return {
      code: result.code,
      output: `${result.stdout}\n${result.stderr}`,
      outcomes: Object.fromEntries(report.requirements.map((r) => [r.id, r.outcome])),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

test('client requirement IDs are unique across both catalogs', () => {
  const ids = [...requirements.map((r) => r.id), ...clientRequirements.map((r) => r.id)];
  expect(new Set(ids).size).toBe(ids.length);
});

const infoIds = new Set(clientRequirements.filter((r) => r.level === 'INFO').map((r) => r.id));

test("the example reseller client passes with the README's command: every MUST and SHOULD exercised and held, retries and webhook answers included", async () => {
  test.setTimeout(180_000);
  const judged = await certify(undefined);
  expect(judged.code, judged.output).toBe(0);
  const notPassed = Object.entries(judged.outcomes).filter(
    ([id, outcome]) => outcome !== 'passed' && !(infoIds.has(id) && outcome === 'observed'),
  );
  expect(notPassed, judged.output).toEqual([]);
  expect(judged.output, 'the console summary lists every requirement').toMatch(/passed\s+CLI-ORDER-RETRY\s+MUST/);
});

test('a client that calls nothing does not pass: the scenario fails and the MUSTs its traffic never reached are named', async () => {
  const judged = await certify(undefined, [], 'true');
  expect(judged.code).toBe(1);
  expect(judged.outcomes['CLI-SCENARIO']).toBe('failed');
  expect(judged.output).toMatch(/MUST requirements not exercised \(certify profile\): CLI-TOKEN-REQUEST/);
});

test('503 injection and webhook deliveries turned off leave their rows not configured, naming the option, and the client not certified', async () => {
  test.setTimeout(180_000);
  const judged = await certify(undefined, ['--inject-503', '0', '--no-webhooks']);
  expect(judged.code, judged.output).toBe(1);
  expect(judged.output).toMatch(
    /MUST requirements not configured \(certify profile\): CLI-ORDER-RETRY, CLI-WEBHOOK-ANSWER \(set --inject-503, --no-webhooks\)/,
  );
  expect([judged.outcomes['CLI-ORDER-RETRY'], judged.outcomes['CLI-WEBHOOK-ANSWER']]).toEqual([
    'not-configured',
    'not-configured',
  ]);
  expect(judged.output).toContain('not configured: --inject-503 0');
});

interface ClientFault {
  fault: string;
  requirement: string;
  outcome: 'failed' | 'not-exercised';
}

// Faults that break different requirements in ways that cannot touch each other's run together, as the proof's
// rounds do: a run per group instead of one per fault. A fault that stops the client's flow (no token, or identity
// calls refused for a missing x-correlation-id) stands alone, and two faults of one requirement are in different groups.
const faultGroups: ReadonlyArray<readonly ClientFault[]> = [
  [
    { fault: 'retry-storm', requirement: 'CLI-ORDER-RETRY', outcome: 'failed' },
    { fault: 'webhook-500', requirement: 'CLI-WEBHOOK-ANSWER', outcome: 'failed' },
    { fault: 'child-id-leak', requirement: 'CLI-CHILD-ISOLATION', outcome: 'failed' },
    { fault: 'no-bearer', requirement: 'CLI-BEARER', outcome: 'failed' },
    { fault: 'body-text-plain', requirement: 'CLI-JSON-BODY', outcome: 'failed' },
  ],
  [
    { fault: 'one-correlation-id', requirement: 'CLI-CORRELATION-UNIQUE', outcome: 'failed' },
    { fault: 'no-retry', requirement: 'CLI-ORDER-RETRY', outcome: 'failed' },
    { fault: 'webhook-strict', requirement: 'CLI-WEBHOOK-ANSWER', outcome: 'failed' },
    { fault: 'one-child', requirement: 'CLI-SCENARIO', outcome: 'failed' },
    { fault: 'made-up-authentication-id', requirement: 'CLI-KNOWN-CASE', outcome: 'failed' },
    { fault: 'no-shared-context', requirement: 'CLI-RESELLER-CONTEXT', outcome: 'failed' },
  ],
  [
    { fault: 'webhook-text', requirement: 'CLI-WEBHOOK-ANSWER', outcome: 'failed' },
    { fault: 'shared-get-correlation-id', requirement: 'CLI-CORRELATION-UNIQUE', outcome: 'failed' },
    { fault: 'no-source-client-id', requirement: 'CLI-RESELLER-CONTEXT', outcome: 'failed' },
    { fault: 'no-client-id', requirement: 'CLI-CLIENT-ID', outcome: 'failed' },
    { fault: 'decision-lowercase', requirement: 'CLI-BODY-SCHEMA', outcome: 'failed' },
  ],
  [{ fault: 'no-correlation-id', requirement: 'CLI-CORRELATION-ID', outcome: 'failed' }],
  [{ fault: 'wrong-scope', requirement: 'CLI-TOKEN-REQUEST', outcome: 'failed' }],
];

test('every client MUST has a client fault that breaks it', () => {
  const broken = new Set(faultGroups.flat().map((f) => f.requirement));
  expect(clientRequirements.filter((r) => r.level === 'MUST' && !broken.has(r.id)).map((r) => r.id)).toEqual([]);
});

test('the client fault groups hold each fault once, and no two faults of a group break the same requirement', () => {
  const all = faultGroups.flat().map((f) => f.fault);
  expect(new Set(all).size).toBe(all.length);
  for (const group of faultGroups) expect(new Set(group.map((f) => f.requirement)).size).toBe(group.length);
});

for (const group of faultGroups) {
  const names = group.map((f) => f.fault).join(',');
  test(`client faults ${names} are caught by ${group.map((f) => f.requirement).join(', ')}`, async () => {
    test.setTimeout(180_000);
    const judged = await certify(names);
    for (const { fault, requirement, outcome } of group)
      expect(judged.outcomes[requirement], `${fault}\n${judged.output}`).toBe(outcome);
    expect(judged.code, 'a MUST failure fails the certification (each group holds one)').toBe(1);
    if (group.length > 1) {
      // Each fault of a group caught by its own requirement only: every other requirement held as in the clean run, so
      // none of the group's faults reached another's row.
      const targeted = new Set(group.map((f) => f.requirement));
      const elsewhere = Object.entries(judged.outcomes).filter(
        ([id, outcome]) => !targeted.has(id) && outcome !== 'passed' && !(infoIds.has(id) && outcome === 'observed'),
      );
      expect(elsewhere, judged.output).toEqual([]);
    }
  });
}

test('--listen: a client started by hand in another process is recorded until Ctrl-C, judged, and no secret or issued token reaches any artifact or output', async () => {
  test.setTimeout(180_000);
  const work = mkdtempSync(join(tmpdir(), 'client-listen-'));
  try {
    const issued = join(work, 'issued-tokens.txt');
    writeFileSync(issued, '');
    const out = join(work, 'out');
    const listener = spawn(
      TS_NODE[0],
      [
        ...TS_NODE.slice(1),
        'scripts/certify-client.ts',
        '--listen',
        '--scenario',
        'examples/reseller-client/scenario.json',
        '--out',
        out,
      ],
      {
        cwd: repoRoot,
        env: childEnv(work, { SANDBOX_ISSUED_TOKENS_FILE: issued }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
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
    const report = JSON.parse(readText(join(out, 'client-conformance.json'))) as { result: string };
    expect(report.result).toBe('conformant');

    const secrets: Record<string, string> = Object.fromEntries(
      [
        ['API_KEY', variables['API_KEY'] ?? ''],
        ['RESELLER_API_KEY', variables['RESELLER_API_KEY'] ?? ''],
        ...readText(issued)
          .split('\n')
          .filter(Boolean)
          .map((token, index) => [`issued token ${index + 1}`, token]),
      ].filter(([, value]) => value),
    );
    expect(Object.keys(secrets).length).toBeGreaterThan(2);
    const sources = [
      ...readdirSync(out).map((name) => ({ name, text: readText(join(out, name)) })),
      { name: 'console', text: printed.replace(/^ {2}(API_KEY|RESELLER_API_KEY)=.*$/gm, '') },
    ];
    expect(scanForSecrets(sources, secrets)).toEqual([]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
