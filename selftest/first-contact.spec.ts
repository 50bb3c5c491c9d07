import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { MARKDOWN_MAX_CHARS } from '../reporters/matrix-markdown.ts';
import { startSandbox } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { childEnv, closedPort, freePort, playwrightCli, runCli, type CliRun } from './evidence-harness.ts';

// What a new user meets on day one against a deployment that is not our sandbox: a precise verdict in seconds.

interface Report {
  result: string;
  reasons: string[];
  cost?: { tokenFetches: number; tokenRequests: number; requests: number };
  requirements: Array<{
    id: string;
    level: string;
    outcome: string;
    tests: Array<{ outcome: string; detail?: string }>;
  }>;
}

interface Run {
  run: CliRun;
  output: string;
  report?: Report;
  markdown?: string;
}

async function conformanceRun(env: Record<string, string>, args: string[] = []): Promise<Run> {
  const work = mkdtempSync(join(tmpdir(), 'first-contact-'));
  const reportsDir = join(work, 'reports');
  try {
    const run = await runCli(
      process.execPath,
      [playwrightCli, 'test', ...args],
      childEnv(work, {
        REPORTS_DIR: reportsDir,
        TEST_RESULTS_DIR: join(work, 'test-results'),
        CONFORMANCE_WORKERS: '2',
        ...env,
      }),
    );
    const read = (name: string) => {
      try {
        return readFileSync(join(reportsDir, name), 'utf8');
      } catch {
        return undefined;
      }
    };
    const json = read('conformance.json');
    const markdown = read('conformance.md');
    return {
      run,
      output: `${run.stdout}\n${run.stderr}`,
      ...(json ? { report: JSON.parse(json) as Report } : {}),
      ...(markdown ? { markdown } : {}),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function embedded(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return { SANDBOX_PORT: String(await freePort()), WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`, ...extra };
}

test.describe.configure({ timeout: 240_000 });

test('a dead host stops the run before any test: exit 2, one line for the host naming every variable that points to it and what came back', async () => {
  const dead = `http://127.0.0.1:${await closedPort()}`;
  const { run, output, report } = await conformanceRun({
    IDENTITY_BASE_URL: `${dead}/identity`,
    IDENTITY_TOKEN_URL: `${dead}/auth/v1/token`,
    STEPUP_BASE_URL: `${dead}/stepup`,
    STEPUP_TOKEN_URL: `${dead}/auth2/v1/token`,
    ORDERS_BASE_URL: `${dead}/commerce`,
    API_KEY: 'a2V5OnNlY3JldA==',
    CLIENT_ID: 'client',
  });
  expect(run.code, output).toBe(2);
  expect(report?.result, 'no test ran: the matrix says so').toBe('not run: configuration');
  expect(report?.requirements).toEqual([]);
  // One line for the one host, naming every variable that points to it and the kind of failure.
  const lines = run.stderr.split('\n').filter((line) => line.startsWith(`  ${dead}`));
  expect(lines, output).toEqual([
    expect.stringMatching(
      /^ {2}\S+ \(IDENTITY_BASE_URL, IDENTITY_TOKEN_URL, STEPUP_BASE_URL, STEPUP_TOKEN_URL, ORDERS_BASE_URL\): the host refused the connection \(connect ECONNREFUSED /,
    ),
  ]);
  expect(output).not.toMatch(/\d+ (passed|failed)/);
});

test('a SANDBOX_PORT another process holds stops the run before any test: exit 2, one line naming the variable', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = (holder.address() as AddressInfo).port;
  try {
    const { run, output, report } = await conformanceRun(
      { SANDBOX_PORT: String(port), WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}` },
      ['--project', 'auth'],
    );
    expect(run.code, output).toBe(2);
    expect(report?.result, 'no test ran: the matrix says so').toBe('not run: configuration');
    expect(report?.requirements).toEqual([]);
    expect(run.stderr).toContain(`SANDBOX_PORT=${port}: the embedded sandbox could not listen on 127.0.0.1:${port}`);
    expect(output).not.toMatch(/\d+ (passed|failed)/);
  } finally {
    holder.close();
  }
});

test('a wrong API key stops the run before any test: exit 2, a line per service naming API_KEY and the refusal, the key itself redacted', async () => {
  const wrongKey = Buffer.from(`nobody:${randomBytes(6).toString('hex')}`).toString('base64');
  const { run, output } = await conformanceRun(await embedded({ API_KEY: wrongKey }));
  expect(run.code, output).toBe(2);
  expect(output).toMatch(
    /identity, orders: a token request to IDENTITY_TOKEN_URL with API_KEY as Basic credentials: the credentials in API_KEY were refused: POST http:\/\/127\.0\.0\.1:\d+\/identity-auth\/v1\/token was answered 401/,
  );
  expect(output).toMatch(
    /stepup: a token request to STEPUP_TOKEN_URL with API_KEY as Basic credentials: the credentials in API_KEY were refused/,
  );
  expect(output).not.toContain(wrongKey);
});

test('a token endpoint answering its token form-encoded fails the gate fast: TOK-ISSUED failed and named as the reason of exit 1, the rest blocked by it, named once and first, no stack of the suite, a matrix that fits a PR comment', async () => {
  // The token checks and the checks of two MUST rows of the step-up service that stand on a case (an identity token)
  // and a step-up token: every blocked test fails, and each failed test costs the child run a worker restart; the
  // matrix's size bound is checked on the worst case in evidence-units.spec.ts.
  const { run, output, report, markdown } = await conformanceRun(
    await embedded({ SANDBOX_FAULTS: 'token-response-not-json', WEBHOOK_WAIT_MS: '300' }),
    ['--project', 'auth', '--project', 'stepup', '--grep', '@TOK-ISSUED|@SU-RES-SCHEMA|@HDR-CLIENT-ID'],
  );
  expect(run.code, output.slice(-3000)).toBe(1);
  expect(report?.requirements.find((r) => r.id === 'TOK-ISSUED')?.outcome).toBe('failed');
  expect(report?.reasons).toContainEqual(expect.stringMatching(/^MUST requirements failed: .*TOK-ISSUED/));
  const blocked = report?.requirements.filter((r) => r.level === 'MUST' && r.outcome === 'blocked') ?? [];
  expect(blocked.map((r) => r.id)).toEqual(expect.arrayContaining(['SU-RES-SCHEMA', 'HDR-CLIENT-ID']));
  const firstBlocked = output.indexOf('Blocked: no access token for the');
  expect(firstBlocked, 'the broken precondition is named as soon as it blocks').toBeGreaterThan(-1);
  expect(firstBlocked).toBeLessThan(output.indexOf('Conformance by requirement'));
  expect(output.indexOf('Broken preconditions')).toBeLessThan(output.indexOf('Conformance by requirement'));
  expect(
    output.match(/Blocked: no access token for the identity service/g),
    'named once, not once per test',
  ).toHaveLength(1);
  expect(output).not.toMatch(/at (Verdict|Api|TokenProvider)\.\w+ \(/);
  expect(markdown?.length).toBeLessThan(MARKDOWN_MAX_CHARS);
});

test('every test stands on one token per token endpoint and credential for the whole run, whatever the number of workers, and the summary counts them', async () => {
  const issued: string[] = [];
  const tokenSecret = randomBytes(16).toString('hex');
  const sandbox = await startSandbox({ tokenSecret, onTokenIssued: (token) => issued.push(token) });
  try {
    const env = { ...sandboxTargetEnv({ url: sandbox.url, flavor: 'reference', tokenSecret }), WEBHOOK_MODE: 'off' };
    const { run, output, report } = await conformanceRun(env, ['--project', 'stepup', '--project', 'reseller']);
    expect(run.code, output.slice(-3000)).toBe(0);
    // Each configured credential once (the preflight asks for all of them): identity and step-up for the main client
    // and for the reseller, and the orders client without entitlements, on the identity token endpoint.
    expect(issued).toHaveLength(5);
    expect(report?.cost?.tokenFetches).toBe(issued.length);
    expect(output).toMatch(
      new RegExp(
        `token endpoints asked ${issued.length} times \\(${issued.length} for the run's tokens, 0 by the token checks\\)`,
      ),
    );
  } finally {
    await sandbox.close();
  }
});

// A target that cannot reach a receiver on this machine (no WEBHOOK_PUBLIC_URL): its event rows not configured, each
// naming WEBHOOK_PUBLIC_URL, the rest judged, passed-incomplete under gate, is proof.spec.ts's detached target; the
// words of such a row and verdict ("not configured (set X)", "; incomplete: N MUST not configured (set X)", never
// "not conformant" with exit 0) are the reporter's units (evidence-units.spec.ts, harness.spec.ts).

test('a control answered 404 names the route variable to check and its current value', async () => {
  // The preflight stops a run with this route (selftest/doctor.spec.ts); the hint is for the routes it cannot decide.
  const { run, output, report } = await conformanceRun(
    await embedded({ ROUTE_ASSESSMENT: 'POST /assessments/evaluate', PREFLIGHT: '0' }),
    ['--project', 'identity', '--grep', '@ASM-REQ-TYPES|@HDR-CLIENT-ID'],
  );
  expect(run.code, output.slice(-3000)).toBe(1);
  const detail =
    report?.requirements.find((r) => r.id === 'HDR-CLIENT-ID')?.tests.find((t) => t.outcome === 'blocked')?.detail ??
    '';
  expect(detail).toContain(
    'check ROUTE_ASSESSMENT (now "POST /assessments/evaluate") and IDENTITY_BASE_URL (now http://127.0.0.1:',
  );
});
