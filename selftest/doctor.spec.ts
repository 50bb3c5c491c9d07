import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { WebhookReceiver } from '../runner/webhooks/receiver.ts';
import { PROBE_HEADER, webhookProbe } from '../runner/webhooks/probe.ts';
import { loadConfig } from '../runner/config/load-config.ts';
import { probeRoutes } from '../runner/doctor/route-probe.ts';
import { HttpClient } from '../runner/http/client.ts';
import { Redactor } from '../kit/redact.ts';
import { embeddedProbes } from '../runner/preflight.ts';
import { settingsTable } from '../scripts/doctor-settings.ts';
import { optionalSettings } from '../runner/config/optional-settings.ts';
import { settingsNamedIn } from '../schemas/variables.ts';
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { doctorCommand } from '../scripts/doctor.ts';
import {
  childEnv,
  freePort,
  inProcessAsync,
  playwrightCli,
  repoRoot,
  runCli,
  TS_NODE,
  type CliRun,
} from './evidence-harness.ts';

// npm run doctor and the run's preflight, against the embedded sandbox or one started here as a real target: wrong
// routes and a webhook path that does not reach the receiver are named and exit 2; a correct configuration exits 0;
// what the tester cannot connect to is only a warning. The doctor runs through the real command once (a correct
// configuration), and otherwise in this process (doctorCommand is the script's whole work, given the environment a
// child process would get); the run's preflight through the real command.

test.describe.configure({ timeout: 240_000 });

async function doctor(
  env: Record<string, string>,
  how: 'in process' | 'real command' = 'in process',
): Promise<CliRun & { output: string }> {
  const work = mkdtempSync(join(tmpdir(), 'doctor-'));
  try {
    const run =
      how === 'real command'
        ? await runCli(TS_NODE[0], [...TS_NODE.slice(1), 'scripts/doctor.ts'], childEnv(work, env), 120_000)
        : await inProcessAsync(() => doctorCommand([], childEnv(work, env)));
    return { ...run, output: `${run.stdout}\n${run.stderr}` };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function embedded(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return { SANDBOX_PORT: String(await freePort()), WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`, ...extra };
}

/** A sandbox started here, configured as a real target is (IDENTITY_BASE_URL set), with every token it issues kept. */
async function realTarget(): Promise<{ sandbox: RunningSandbox; env: Record<string, string>; issued: string[] }> {
  const issued: string[] = [];
  const tokenSecret = randomBytes(16).toString('hex');
  const sandbox = await startSandbox({
    tokenSecret,
    onTokenIssued: (token) => issued.push(token),
    warn: () => undefined,
  });
  return { sandbox, env: sandboxTargetEnv({ url: sandbox.url, flavor: 'reference', tokenSecret }), issued };
}

/** Something else answering HTTP on a port: what a WEBHOOK_PUBLIC_URL on the wrong port reaches. */
async function somethingElse(): Promise<{ server: Server; port: number; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, requests };
}

const problemLines = (output: string) => output.split('\n').filter((line) => line.includes('PROBLEM'));

test('wrong routes: exit 2, one line per route it could decide, naming the variable and its value; the right routes ok', async () => {
  const wrong = {
    ROUTE_FETCH_ASSESSMENT: 'GET /no-such-assessment/{caseId}',
    ROUTE_STEP_UP: 'POST /no-such-step-up',
    ROUTE_CASE_UPDATE: 'PATCH /case-update',
  };
  const { code, output } = await doctor(await embedded(wrong));
  expect(code, output).toBe(2);
  const problems = problemLines(output);
  for (const [variable, value] of Object.entries(wrong)) {
    expect(
      problems.filter((line) => line.includes(`${variable}: nothing serves ${variable}="${value}"`)),
      `${variable}\n${output}`,
    ).toHaveLength(1);
  }
  expect(problems, output).toHaveLength(3);
  for (const variable of ['ROUTE_ASSESSMENT', 'ROUTE_DOCUMENT_VERIFICATION', 'ROUTE_DOCUMENT_RECORDS'])
    expect(output).toMatch(new RegExp(`ok +${variable}: `));
  expect(output).toContain('was answered 405');
});

test('a configuration that does not validate, or credentials refused: exit 2 naming the variable, the key itself never printed', async () => {
  const malformed = await doctor(await embedded({ ROUTE_STEP_UP: 'SEND /step-up' }));
  expect(malformed.code, malformed.output).toBe(2);
  expect(malformed.stderr).toContain('ROUTE_STEP_UP="SEND /step-up" is not valid');
  const wrongKey = Buffer.from(`nobody:${randomBytes(6).toString('hex')}`).toString('base64');
  const refused = await doctor(await embedded({ API_KEY: wrongKey }));
  expect(refused.code, refused.output).toBe(2);
  expect(refused.output).toMatch(
    /PROBLEM identity, orders: a token request to IDENTITY_TOKEN_URL with API_KEY as Basic credentials: the credentials in API_KEY were refused/,
  );
  expect(refused.output).toContain('Routes: not probed until the hosts answer and the credentials are accepted');
  expect(refused.output).not.toContain(wrongKey);
});

test('a correct configuration against a real target: exit 0, every route and the webhook path ok, no secret printed', async () => {
  const { sandbox, env, issued } = await realTarget();
  const listen = await freePort();
  try {
    const { code, output } = await doctor(
      {
        ...env,
        WEBHOOK_LISTEN: `127.0.0.1:${listen}`,
        WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${listen}/hooks`,
      },
      'real command',
    );
    expect(code, output).toBe(0);
    expect(output).not.toMatch(/PROBLEM|WARNING/);
    for (const variable of [
      'ROUTE_ASSESSMENT',
      'ROUTE_DOCUMENT_VERIFICATION',
      'ROUTE_DOCUMENT_RECORDS',
      'ROUTE_FETCH_ASSESSMENT',
      'ROUTE_CASE_UPDATE',
      'ROUTE_STEP_UP',
    ]) {
      expect(output).toMatch(new RegExp(`ok +${variable}: `));
    }
    expect(output).toMatch(/ok +ORDERS_BASE_URL \(POST \/v2\/orders\): /);
    // Every credential it checked is named, the reseller's and the client's without the entitlements included.
    expect(output).toMatch(/ok +reseller: IDENTITY_TOKEN_URL and STEPUP_TOKEN_URL issued a token for RESELLER_API_KEY/);
    expect(output).toMatch(
      /ok +orders \(a client without the entitlements\): ORDERS_TOKEN_URL issued a token for ORDERS_NO_ENTITLEMENT_API_KEY/,
    );
    expect(output).toMatch(
      /ok +webhooks: a probe posted to WEBHOOK_PUBLIC_URL=\S+ reached the receiver on WEBHOOK_LISTEN=/,
    );
    expect(issued.length, 'the doctor got tokens').toBeGreaterThan(0);
    for (const secret of [
      env.API_KEY as string,
      env.RESELLER_API_KEY as string,
      env.ORDERS_NO_ENTITLEMENT_API_KEY as string,
      ...issued,
    ])
      expect(output).not.toContain(secret);
  } finally {
    await sandbox.close();
  }
});

test('a public URL reaching something else than the receiver: exit 2 naming WEBHOOK_PUBLIC_URL and WEBHOOK_LISTEN; the probe was sent there', async () => {
  const { sandbox, env } = await realTarget();
  const other = await somethingElse();
  const listen = await freePort();
  try {
    const { code, output } = await doctor({
      ...env,
      WEBHOOK_LISTEN: `127.0.0.1:${listen}`,
      WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${other.port}/hooks`,
    });
    expect(code, output).toBe(2);
    expect(problemLines(output), output).toEqual([
      expect.stringContaining(
        `webhooks: WEBHOOK_PUBLIC_URL=http://127.0.0.1:${other.port}/hooks does not reach the receiver on WEBHOOK_LISTEN=127.0.0.1:${listen}: a probe posted there was answered 404`,
      ),
    ]);
    expect(other.requests).toEqual(['POST /hooks']);
  } finally {
    other.server.close();
    await sandbox.close();
  }
});

test("a target on this machine's loopback and a public URL nobody serves: exit 2 naming WEBHOOK_PUBLIC_URL and WEBHOOK_LISTEN, in the doctor and in the run's preflight", async () => {
  const { sandbox, env } = await realTarget();
  const [listen, nobody] = [await freePort(), await freePort()];
  const wrong = {
    ...env,
    WEBHOOK_LISTEN: `127.0.0.1:${listen}`,
    WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${nobody}/hooks`,
  };
  const named = `webhooks: WEBHOOK_PUBLIC_URL=http://127.0.0.1:${nobody}/hooks does not reach the receiver on WEBHOOK_LISTEN=127.0.0.1:${listen}: a probe posted there got no answer`;
  try {
    const { code, output } = await doctor(wrong);
    expect(code, output).toBe(2);
    expect(problemLines(output), output).toEqual([expect.stringContaining(named)]);
    expect(output).toContain("the target's base URLs are on this machine's loopback like the public URL");
    const { run, output: runOutput, reports, results } = await conformanceRun(wrong);
    expect(run.code, runOutput).toBe(2);
    expect(run.stderr).toContain(named);
    expect(results, 'no test ran').toEqual([]);
    expect(reports.markdown).toContain('Result: **not run: configuration**');
    expect(reports.json.reasons.join('\n')).toContain(named);
  } finally {
    await sandbox.close();
  }
});

/** An address of this machine that is not loopback: a target there looks remote (undefined when it has none). */
function outsideAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}

test('a remote-looking target and a public URL the tester cannot connect to: a warning in the doctor (exit 0) and in every report of the run; with no delivery at all, the flows are blocked naming both suspects, never "by the target"', async () => {
  const address = outsideAddress();
  test.skip(!address, 'this machine has no address besides loopback to stand for a remote target');
  const tokenSecret = randomBytes(16).toString('hex');
  const sandbox = await startSandbox({ host: address, tokenSecret, warn: () => undefined });
  const [listen, nobody] = [await freePort(), await freePort()];
  const env = {
    ...sandboxTargetEnv({ url: sandbox.url, flavor: 'reference', tokenSecret }),
    WEBHOOK_LISTEN: `127.0.0.1:${listen}`,
    WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${nobody}/hooks`,
    WEBHOOK_WAIT_MS: '300',
  };
  const warning = `webhooks: could not decide whether WEBHOOK_PUBLIC_URL=http://127.0.0.1:${nobody}/hooks reaches the receiver on WEBHOOK_LISTEN=127.0.0.1:${listen}: the tester cannot connect to it`;
  try {
    const { code, output } = await doctor(env);
    expect(code, output).toBe(0);
    expect(output).toContain(`WARNING ${warning}`);
    const {
      run,
      output: runOutput,
      reports,
    } = await conformanceRun(env, ['--project', 'webhooks', '--project', 'run-end']);
    expect(run.code, runOutput).toBe(1);
    const notice = `the preflight could not decide: ${warning}`;
    expect(reports.json.preflight?.warnings).toEqual([expect.stringContaining(warning)]);
    expect(reports.json.verdict.notices).toEqual([expect.stringContaining(notice)]);
    expect(reports.markdown.replace(/\\(.)/g, '$1').replace(/\n +/g, ' ')).toContain(notice);
    expect(reports.html).toContain(notice);
    expect(reports.junit).toContain(notice);
    const flow = reports.json.requirements.find((r) => r.id === 'EVT-FLOW-DELIVERY');
    expect(flow?.outcome).toBe('blocked');
    const cause = flow?.tests.find((t) => t.outcome === 'blocked')?.detail ?? '';
    expect(cause).toContain('no webhook delivery reached the receiver during the run: either the target sends none');
    expect(cause).toContain(`or WEBHOOK_PUBLIC_URL=http://127.0.0.1:${nobody}/hooks does not reach the receiver`);
    expect(cause).toContain("the preflight's probe of that path: the tester could not connect to the public URL");
    expect(reports.json.result).toMatch(/MUST blocked, no webhook reached the receiver \(/);
    expect(reports.json.result).not.toContain('by the target');
  } finally {
    await sandbox.close();
  }
});

interface RunReports {
  markdown: string;
  html: string;
  junit: string;
  results: string;
  json: {
    result: string;
    reasons: string[];
    preflight?: { warnings: string[] };
    verdict: { exitCode?: number; notices: string[] };
    requirements: Array<{ id: string; outcome: string; tests: Array<{ outcome: string; detail?: string }> }>;
  };
}

/** A conformance run in a scratch folder: its output, what its reports say, and the test results it wrote. */
async function conformanceRun(
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ run: CliRun; output: string; reports: RunReports; written: string[]; results: string[] }> {
  const work = mkdtempSync(join(tmpdir(), 'doctor-preflight-'));
  const reportsDir = join(work, 'reports');
  const resultsDir = join(work, 'test-results');
  try {
    const run = await runCli(
      process.execPath,
      [playwrightCli, 'test', ...args],
      childEnv(work, {
        REPORTS_DIR: reportsDir,
        TEST_RESULTS_DIR: resultsDir,
        ALLURE_RESULTS_DIR: join(work, 'allure-results'),
        ...env,
      }),
    );
    const list = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : []);
    const read = (name: string) => readFileSync(join(reportsDir, name), 'utf8');
    return {
      run,
      output: `${run.stdout}\n${run.stderr}`,
      reports: {
        markdown: read('conformance.md'),
        html: read('conformance.html'),
        junit: read('junit.xml'),
        results: read('results.json'),
        json: JSON.parse(read('conformance.json')) as RunReports['json'],
      },
      written: [...list(reportsDir), ...list(join(work, 'allure-results')).map((name) => `allure-results/${name}`)],
      results: list(resultsDir),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** What a run that ended before any test leaves: its own verdict in each report, one Allure result, no test result. */
function expectNotRun(
  written: readonly string[],
  results: readonly string[],
  reports: RunReports,
  problem: string,
): void {
  expect(results, 'no test ran: no test result or attachment').toEqual([]);
  const allure = written.filter((name) => name.startsWith('allure-results/'));
  expect(allure, 'one Allure result: the verdict').toEqual([expect.stringMatching(/-result\.json$/)]);
  expect(written.filter((name) => !allure.includes(name)).sort()).toEqual([
    'conformance.html',
    'conformance.json',
    'conformance.md',
    'junit.xml',
    'results.json',
  ]);
  expect(reports.json.result).toBe('not run: configuration');
  expect(reports.json.verdict.exitCode).toBe(2);
  expect(reports.json.reasons.join('\n')).toContain(problem);
  expect(reports.markdown).toContain('Result: **not run: configuration**');
  expect(reports.markdown).toContain('Exit code 2: no test was run.');
  expect(reports.junit).toMatch(/<failure type="verdict" message="not run: configuration">/);
  expect(reports.junit).toContain('<property name="exit-code" value="2"/>');
  expect(JSON.parse(reports.results).conformance).toMatchObject({ result: 'not run: configuration', exitCode: 2 });
}

// The run's preflight with a wrong route (exit 2 before any test result is written, naming the variable and its
// value): the run of run-reports.spec.ts stopped in preflight.

test("the run's preflight with a public URL on another port than the listener, against the embedded sandbox: exit 2 naming both, no test result", async () => {
  const env = await embedded();
  const elsewhere = await freePort();
  const { run, output, written, results, reports } = await conformanceRun({
    ...env,
    WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${elsewhere}/webhooks`,
  });
  expect(run.code, output).toBe(2);
  const problem = `webhooks: WEBHOOK_PUBLIC_URL=http://127.0.0.1:${elsewhere}/webhooks does not reach the receiver on WEBHOOK_LISTEN=${env.WEBHOOK_LISTEN}`;
  expect(run.stderr).toContain(problem);
  expectNotRun(written, results, reports, problem);
});

// A whole run against a real target with no optional setting, whose rows not configured are exactly those
// runner/config/optional-settings.ts names, each naming a variable of its setting: proof.spec.ts, on the detached target.

test('the probe is answered like a delivery and kept out of the deliveries and the journal; a request only partly marked is a delivery', async () => {
  const work = mkdtempSync(join(tmpdir(), 'doctor-probe-'));
  const journal = join(work, 'journal.jsonl');
  const receiver = new WebhookReceiver({
    host: '127.0.0.1',
    port: 0,
    journal: {
      path: journal,
      redactor: {
        headers: (h: Array<[string, string]>) => h,
        text: (t: string) => t,
        json: (j: unknown) => j,
      } as never,
    },
  });
  await receiver.start();
  const post = (headers: Array<[string, string]>, body: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(`${receiver.url}/hooks`, { method: 'POST', headers: Object.fromEntries(headers) }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
  try {
    const probe = webhookProbe();
    expect(await post(probe.headers, probe.body)).toBe(200);
    expect(receiver.sawProbe(probe.nonce)).toBe(true);
    expect(receiver.deliveries()).toEqual([]);
    const other = webhookProbe();
    // The header of one probe with the body of another: not the tester's probe, so it is judged like any delivery.
    expect(
      await post(
        [
          [PROBE_HEADER, probe.nonce],
          ['content-type', 'application/json'],
        ],
        other.body,
      ),
    ).toBe(200);
    expect(receiver.sawProbe(other.nonce)).toBe(false);
    expect(receiver.deliveries()).toHaveLength(1);
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(1);
  } finally {
    await receiver.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test('docs/doctor.md holds the table of optional settings the doctor generates from the catalog', () => {
  const docs = readFileSync(join(repoRoot, 'docs/doctor.md'), 'utf8');
  const block = docs
    .slice(docs.indexOf('<!-- settings -->') + '<!-- settings -->'.length, docs.indexOf('<!-- /settings -->'))
    .trim();
  expect(block, 'regenerate with npm run doctor -- --write-docs').toBe(settingsTable());
});

test('the doctor names every setting a check calls not configured without: the one table of optional settings', () => {
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? sources(join(dir, entry.name))
        : entry.name.endsWith('.ts')
          ? [readFileSync(join(dir, entry.name), 'utf8')]
          : [],
    );
  const named = sources(join(repoRoot, 'tests')).flatMap((text) =>
    [...text.matchAll(/notConfigured\(\s*(['"`])((?:(?!\1).)*)\1/g)].flatMap((m) => settingsNamedIn(m[2] ?? '')),
  );
  // CONCURRENCY_ROUNDS=0 is a choice to send nothing at once, not a setting left unset.
  const tabled = new Set([...optionalSettings.flatMap((s) => s.variables), 'CONCURRENCY_ROUNDS']);
  expect(named).toContain('SECOND_CLIENT_ID');
  expect(named.filter((name) => !tabled.has(name))).toEqual([]);
});

test("against the embedded sandbox the run's preflight probes only what a variable changed: a route, or the public URL of the webhooks", () => {
  expect(embeddedProbes(new Set(['SANDBOX_PORT', 'WEBHOOK_LISTEN', 'SEED']))).toEqual({
    routes: false,
    webhook: false,
  });
  expect(embeddedProbes(new Set(['ROUTE_STEP_UP']))).toEqual({ routes: true, webhook: false });
  expect(embeddedProbes(new Set(['WEBHOOK_PUBLIC_URL']))).toEqual({ routes: false, webhook: true });
});

/**
 * A target behind a gateway that answers every path it does not route with the same refusal (as API gateways answer 403
 * "Missing Authentication Token" or 401 to unknown paths): only POST /id/assessment is routed (unless not even that),
 * and `refusal` is what every other path gets, whatever the token.
 */
async function gatewayTarget(refusal: number, routed = true): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (routed && req.method === 'POST' && req.url === '/id/assessment')
        return res.writeHead(200, { 'content-type': 'application/json' }).end('{"authenticationId":"case-1"}');
      res
        .writeHead(refusal, { 'content-type': 'application/json' })
        .end(`{"message":"Missing Authentication Token","requestId":"${randomBytes(8).toString('hex')}"}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function routeFindings(base: string) {
  const config = loadConfig(
    {
      IDENTITY_BASE_URL: `${base}/id`,
      IDENTITY_TOKEN_URL: `${base}/token`,
      STEPUP_BASE_URL: `${base}/su`,
      STEPUP_TOKEN_URL: `${base}/token`,
      ORDERS_BASE_URL: `${base}/orders`,
      API_KEY: 'a2V5OnNlY3JldA==',
      CLIENT_ID: 'client',
      HTTP_503_RETRIES: '0',
    },
    { repoRoot, embedded: false },
  );
  const tokens = {
    get: async () => ({ ok: true as const, token: 'a-token-of-the-run', expiresAt: null }),
    renew: async () => ({ ok: true as const, token: 'a-token-of-the-run', expiresAt: null }),
  };
  const http = new HttpClient({ retries: 0, baseMs: 1, maxMs: 1, timeoutMs: 5_000 });
  const findings = await probeRoutes({ config, http, tokens, redactor: new Redactor() });
  return new Map(findings.map((f) => [f.subject, f.severity]));
}

test('behind a gateway answering 403 to unknown paths, a route answered like an unknown path is missed for certain once another route of its service took the token; elsewhere it is undecided', async () => {
  const { server, base } = await gatewayTarget(403);
  try {
    const severities = await routeFindings(base);
    expect(severities.get('ROUTE_ASSESSMENT')).toBe('ok');
    for (const variable of [
      'ROUTE_DOCUMENT_VERIFICATION',
      'ROUTE_FETCH_ASSESSMENT',
      'ROUTE_CASE_UPDATE',
      'ROUTE_DOCUMENT_RECORDS',
    ])
      expect(severities.get(variable), variable).toBe('problem');
    // No step-up or order route took the token: a 403 there may be the gateway refusing the client.
    expect(severities.get('ROUTE_STEP_UP')).toBe('warning');
    expect(severities.get('ORDERS_BASE_URL (POST /v2/orders)')).toBe('warning');
  } finally {
    server.close();
  }
});

for (const [status, why] of [
  [401, 'the token may be refused everywhere'],
  [200, 'a base URL answering every path alike, a web page say, serves no operation for certain'],
] as const) {
  test(`a target answering ${status} to every path alike: no route is called missed or served, each is undecided (${why})`, async () => {
    const { server, base } = await gatewayTarget(status, false);
    try {
      const severities = await routeFindings(base);
      expect([...severities.values()]).toEqual(Array(7).fill('warning'));
    } finally {
      server.close();
    }
  });
}
