import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect, test } from '@playwright/test';
import { operations } from '../catalog/catalog.ts';
import { WebhookReceiver } from '../runner/webhooks/receiver.ts';
import { webhookProbe } from '../runner/webhooks/probe.ts';
import { loadConfig } from '../runner/config/load-config.ts';
import { probeRoutes } from '../runner/doctor/route-probe.ts';
import { HttpClient } from '../runner/http/client.ts';
import { Redactor } from '../kit/redact.ts';
import { embeddedProbes } from '../runner/preflight.ts';
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { doctorCommand } from '../scripts/doctor.ts';
import { childEnv, closedPort, freePort, inProcess, repoRoot, type CliRun } from './evidence-harness.ts';
import { served } from './served.ts';

// npm run doctor, in this process (doctorCommand is the script's whole work; the real command is package.spec.ts's,
// installed, and cli.spec.ts's, through a link): wrong routes and a webhook path that does not reach the receiver are
// named and exit 2; a correct configuration exits 0.

test.describe.configure({ timeout: 240_000 });

async function doctor(env: Record<string, string>): Promise<CliRun & { output: string }> {
  const run = await inProcess(() => doctorCommand([], childEnv(test.info().outputPath(), env)));
  return { ...run, output: `${run.stdout}\n${run.stderr}` };
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

/** Answers every request `status` (or what `answer` writes), as something else on a port or a gateway; each `seen`. */
function refusing(status: () => number, answer = (_req: IncomingMessage, _res: ServerResponse) => false) {
  const seen: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      if (answer(req, res)) return;
      res.writeHead(status(), { 'content-type': 'application/json' });
      res.end(`{"message":"Missing Authentication Token","requestId":"${randomBytes(8).toString('hex')}"}`);
    });
  };
  return Object.assign(handler, { seen });
}

/** The five URL variables of a target at `base`. */
const targetAt = (base: string) => ({
  IDENTITY_BASE_URL: `${base}/id`,
  IDENTITY_TOKEN_URL: `${base}/token`,
  STEPUP_BASE_URL: `${base}/su`,
  STEPUP_TOKEN_URL: `${base}/token2`,
  ORDERS_BASE_URL: `${base}/orders`,
});

/** The route variables, in the catalog's order. */
const routeVariables = operations.flatMap((op) => (op.routeEnv ? [op.routeEnv] : []));
const problemLines = (output: string) => output.split('\n').filter((line) => line.includes('PROBLEM'));

test('wrong routes, a configuration that does not validate, credentials refused, a dead host: exit 2 naming the variables (and a route its value), the right routes ok, the key never printed', async () => {
  // In the catalog's order, the doctor's.
  const wrong = {
    ROUTE_FETCH_ASSESSMENT: 'GET /no-such-assessment/{caseId}',
    ROUTE_CASE_UPDATE: 'PATCH /case-update',
    ROUTE_STEP_UP: 'POST /no-such-step-up',
  };
  // A fetch route nothing serves answers 404, which a read after a write would wait out: judged at once here.
  const routes = await doctor(await embedded({ ...wrong, READ_AFTER_WRITE_TIMEOUT_MS: '0' }));
  expect(routes.code, routes.output).toBe(2);
  expect(problemLines(routes.output), routes.output).toEqual(
    Object.entries(wrong).map(([name, value]) => expect.stringContaining(`${name}: nothing serves ${name}="${value}"`)),
  );
  for (const variable of ['ROUTE_ASSESSMENT', 'ROUTE_DOCUMENT_VERIFICATION', 'ROUTE_DOCUMENT_RECORDS'])
    expect(routes.output).toMatch(new RegExp(`ok +${variable}: `));
  expect(routes.output).toContain('was answered 405');
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
  const dead = `http://127.0.0.1:${await closedPort()}`;
  const unreachable = await doctor({ ...targetAt(dead), API_KEY: 'a2V5OnNlY3JldA==', CLIENT_ID: 'client' });
  expect(unreachable.code, unreachable.output).toBe(2);
  expect(problemLines(unreachable.output), unreachable.output).toEqual([
    expect.stringMatching(
      /\(IDENTITY_BASE_URL, IDENTITY_TOKEN_URL, STEPUP_BASE_URL, STEPUP_TOKEN_URL, ORDERS_BASE_URL\): the host refused the connection/,
    ),
  ]);
});

test('against a real target: a correct configuration exits 0, every route, credential and the webhook path ok, no secret printed; a public URL reaching something else than the receiver exits 2 naming WEBHOOK_PUBLIC_URL and WEBHOOK_LISTEN, the probe sent there', async () => {
  const { sandbox, env, issued } = await realTarget();
  const elsewhere = refusing(() => 404);
  const listen = await freePort();
  try {
    const webhook = { WEBHOOK_LISTEN: `127.0.0.1:${listen}`, WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${listen}/hooks` };
    const { code, output } = await doctor({ ...env, ...webhook });
    expect(code, output).toBe(0);
    expect(output).not.toMatch(/PROBLEM|WARNING/);
    for (const variable of routeVariables) expect(output).toMatch(new RegExp(`ok +${variable}: `));
    for (const line of [
      /ok +ORDERS_BASE_URL \(POST \/v2\/orders\): /,
      /ok +reseller: IDENTITY_TOKEN_URL and STEPUP_TOKEN_URL issued a token for RESELLER_API_KEY/,
      /ok +orders \(a client without the entitlements\): ORDERS_TOKEN_URL issued a token for ORDERS_NO_ENTITLEMENT_API_KEY/,
      /ok +webhooks: a probe posted to WEBHOOK_PUBLIC_URL=\S+ reached the receiver on WEBHOOK_LISTEN=/,
    ])
      expect(output).toMatch(line);
    expect(issued.length, 'the doctor got tokens').toBeGreaterThan(0);
    for (const secret of [env.API_KEY, env.RESELLER_API_KEY, env.ORDERS_NO_ENTITLEMENT_API_KEY, ...issued])
      expect(output).not.toContain(secret as string);
    await served(elsewhere, async (url) => {
      const publicUrl = `${url}/hooks`;
      const stray = await doctor({ ...env, ...webhook, WEBHOOK_PUBLIC_URL: publicUrl });
      expect(stray.code, stray.output).toBe(2);
      expect(problemLines(stray.output), stray.output).toEqual([
        expect.stringContaining(
          `webhooks: WEBHOOK_PUBLIC_URL=${publicUrl} does not reach the receiver on WEBHOOK_LISTEN=127.0.0.1:${listen}: a probe posted there was answered 404`,
        ),
      ]);
    });
    expect(elsewhere.seen).toEqual(['POST /hooks']);
  } finally {
    await sandbox.close();
  }
});

test('the probe is answered like a delivery and kept out of the deliveries and the journal; a request only partly marked is a delivery', async () => {
  const journal = test.info().outputPath('journal.jsonl');
  const redactor = { headers: (h: unknown) => h, text: (t: unknown) => t, json: (j: unknown) => j } as never;
  const receiver = new WebhookReceiver({ host: '127.0.0.1', port: 0, journal: { path: journal, redactor } });
  await receiver.start();
  const [probe, other] = [webhookProbe(), webhookProbe()];
  const post = async (body: string) =>
    (await fetch(`${receiver.url}/hooks`, { method: 'POST', headers: probe.headers, body })).status;
  try {
    expect(await post(probe.body)).toBe(200);
    expect([receiver.sawProbe(probe.nonce), receiver.deliveries()]).toEqual([true, []]);
    // The header of one probe with the body of another: not the tester's probe, so it is judged like any delivery.
    expect(await post(other.body)).toBe(200);
    expect([receiver.sawProbe(other.nonce), receiver.deliveries().length]).toEqual([false, 1]);
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(1);
  } finally {
    await receiver.close();
  }
});

test("against the embedded sandbox the run's preflight probes only what a variable changed: a route, or the public URL of the webhooks", () => {
  expect(embeddedProbes(new Set(['SANDBOX_PORT', 'WEBHOOK_LISTEN', 'SEED']))).toEqual({
    routes: false,
    webhook: false,
  });
  expect(embeddedProbes(new Set(['ROUTE_STEP_UP']))).toEqual({ routes: true, webhook: false });
  expect(embeddedProbes(new Set(['WEBHOOK_PUBLIC_URL']))).toEqual({ routes: false, webhook: true });
});

async function routeFindings(base: string) {
  const env = { ...targetAt(base), API_KEY: 'a2V5OnNlY3JldA==', CLIENT_ID: 'client', HTTP_503_RETRIES: '0' };
  const config = loadConfig(env, { repoRoot, embedded: false });
  const token = async () => ({ ok: true as const, token: 'a-token-of-the-run', expiresAt: null });
  const http = new HttpClient({ retries: 0, baseMs: 1, maxMs: 1, timeoutMs: 5_000 });
  const findings = await probeRoutes({ config, http, tokens: { get: token, renew: token }, redactor: new Redactor() });
  return new Map(findings.map((f) => [f.subject, f.severity]));
}

// Behind a gateway answering 403 to unknown paths, a route answered like an unknown path is missed for certain once
// another route of its service took the token (no step-up or order route did: a 403 there may be a refused client).
// Answering 401 (the token may be refused everywhere) or 200 (a web page) to every path alike decides no route.
const gateways = [
  { refusal: 403, routed: true, expected: ['ok', 'problem', 'problem', 'problem', 'problem', 'warning', 'warning'] },
  { refusal: 401, routed: false, expected: Array(7).fill('warning') },
  { refusal: 200, routed: false, expected: Array(7).fill('warning') },
];
const probed = [...routeVariables, 'ORDERS_BASE_URL (POST /v2/orders)'];

test('the route probe behind a target answering 403 to unknown paths with one route served, or 401 or 200 to every path alike', async () => {
  let gateway = gateways[0] as (typeof gateways)[number];
  // Only POST /id/assessment is routed (unless not even that), every other path gets the gateway's refusal.
  const answer = refusing(
    () => gateway.refusal,
    (req, res) => {
      if (!gateway.routed || req.method !== 'POST' || req.url !== '/id/assessment') return false;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"authenticationId":"case-1"}');
      return true;
    },
  );
  await served(answer, async (base) => {
    for (gateway of gateways) {
      const severities = await routeFindings(base);
      const said = `answering ${gateway.refusal}`;
      expect(
        probed.map((subject) => severities.get(subject)),
        said,
      ).toEqual(gateway.expected);
      expect(severities.size, said).toBe(7);
    }
  });
});
