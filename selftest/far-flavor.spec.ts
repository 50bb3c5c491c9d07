import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { tokenEndpoint } from '../catalog/catalog.ts';
import { readSandboxSettings, SandboxSettingsError } from '../sandbox/settings.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import type { QueuedEvent } from '../sandbox/types.ts';
import { childEnv, freePort, playwrightCli, repoRoot, runCli, TS_NODE } from './evidence-harness.ts';
import { startReceiver, type Receiver } from './sandbox/client.ts';

// The far flavor as a user runs it: `npm run sandbox` in a process of its own, HTTPS with a CA it made, every answer
// held, events through a queue that delivers them late, out of order and some twice, records that take a while.

const LATENCY_MS = 20;
/**
 * A seed whose first draws from 200-2200 ms are 2180 ms (the first event), 111 ms (its redelivery, a quarter of a
 * draw) and 241 ms (the second event): two events queued a moment apart cross for certain.
 */
const CROSSING_SEED = 'far-selftest-764';
const secret = 'far-selftest-token-secret';

interface FarProcess {
  url: string;
  caFile: string;
  stdout: () => string;
  /** Whether the CA file existed the first time the port took a connection. */
  caBeforeListening: boolean;
  stop(): Promise<void>;
}

/** Connects until the port takes a connection, and tells whether the CA file existed at that moment. */
async function firstConnection(port: number, caFile: string, child: ChildProcess): Promise<boolean> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the sandbox exited (${child.exitCode}) before it listened`);
    const connected = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (connected) return existsSync(caFile);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function startFarProcess(work: string, settings: Record<string, string>): Promise<FarProcess> {
  const port = await freePort();
  const caFile = join(work, 'trust', 'far-ca.pem');
  const env = childEnv(work, {
    SANDBOX_FLAVOR: 'far',
    SANDBOX_PORT: String(port),
    SANDBOX_TOKEN_SECRET: secret,
    SANDBOX_TLS_CA_OUT: caFile,
    SANDBOX_LATENCY_MS: String(LATENCY_MS),
    ...settings,
  });
  const child = spawn(TS_NODE[0], [...TS_NODE.slice(1), 'sandbox/main.ts'], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    const caBeforeListening = await firstConnection(port, caFile, child);
    // The port listens before the process prints its URLs: wait for the lines a user reads.
    while (!stdout.includes('Health:')) {
      if (child.exitCode !== null) throw new Error(stdout);
      await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
    }
    return {
      url: `https://127.0.0.1:${port}`,
      caFile,
      stdout: () => stdout,
      caBeforeListening,
      stop: async () => {
        child.kill('SIGTERM');
        await exited;
      },
    };
  } catch (error) {
    child.kill('SIGTERM');
    await exited;
    throw error;
  }
}

interface Answer {
  status: number;
  json: Record<string, unknown>;
}

/** One HTTPS request with node's own client; `ca` undefined: the system's trust store alone. */
function send(
  url: string,
  options: { ca?: string; method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        agent: false,
        ...(options.ca ? { ca: options.ca } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = {};
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A client of the far process configured the way the suite is (sandboxTargetEnv), trusting its CA. */
function clientOf(far: FarProcess) {
  const env = sandboxTargetEnv({ url: far.url, flavor: 'far', tokenSecret: secret });
  const ca = readFileSync(far.caFile, 'utf8');
  const tokens = new Map<string, string>();
  const token = async (service: 'identity' | 'stepup'): Promise<string> => {
    const known = tokens.get(service);
    if (known) return known;
    const answer = await send(env[service === 'identity' ? 'IDENTITY_TOKEN_URL' : 'STEPUP_TOKEN_URL'] ?? '', {
      ca,
      method: 'POST',
      headers: { authorization: `Basic ${env['API_KEY']}`, 'content-type': tokenEndpoint.contentType },
      body: new URLSearchParams({ grant_type: tokenEndpoint.grantType, scope: tokenEndpoint.scope }).toString(),
    });
    expect(answer.status, `the ${service} token endpoint answers`).toBe(200);
    tokens.set(service, String(answer.json['access_token']));
    return String(answer.json['access_token']);
  };
  const call = async (
    service: 'identity' | 'stepup',
    route: string,
    body?: Record<string, unknown>,
    params: Record<string, string> = {},
  ): Promise<Answer> => {
    const [method = 'GET', path = '/'] = (env[route] ?? '').split(' ');
    const base = env[service === 'identity' ? 'IDENTITY_BASE_URL' : 'STEPUP_BASE_URL'] ?? '';
    const headers = {
      authorization: `Bearer ${await token(service)}`,
      'x-client-id': env['CLIENT_ID'] ?? '',
      'x-correlation-id': randomUUID(),
      'content-type': 'application/json',
    };
    return send(base + path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? '')), {
      ca,
      method,
      headers,
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  };
  return {
    ca,
    env,
    newCase: async () => {
      const inquiryId = `inq-${randomUUID()}`;
      const answer = await call('identity', 'ROUTE_ASSESSMENT', { strategy: env['STRATEGY_ASSESSMENT'], inquiryId });
      expect(answer.status).toBe(200);
      return { inquiryId, authenticationId: String(answer.json['authenticationId']) };
    },
    stepUp: (ref: { inquiryId: string; authenticationId: string }, contact: Record<string, string>) =>
      call('stepup', 'ROUTE_STEP_UP', { ...ref, ...contact }),
    verify: (inquiryId: string) =>
      call('identity', 'ROUTE_DOCUMENT_VERIFICATION', { strategy: env['STRATEGY_DOCUMENT_VERIFICATION'], inquiryId }),
    records: (authenticationId: string) => call('identity', 'ROUTE_DOCUMENT_RECORDS', undefined, { authenticationId }),
    /** What the sandbox did, as it keeps it: its settings, the requests it held, its delivery queue. */
    state: async () =>
      (await send(`${far.url}/__sandbox/far`, { ca })).json as {
        latencyMs: number;
        recordsDelayMs: number;
        https: boolean;
        held: { requests: number; minMs: number };
        queue: QueuedEvent[];
      },
  };
}

test.describe.configure({ timeout: 240_000 });

test.describe('the far flavor as its own process (npm run sandbox, SANDBOX_FLAVOR=far)', () => {
  let work: string;
  let receiver: Receiver;
  let far: FarProcess;

  test.beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), 'far-flavor-'));
    receiver = await startReceiver();
    far = await startFarProcess(work, {
      SANDBOX_WEBHOOK_URL: receiver.url,
      SANDBOX_EVENT_DELAY_MS: '200-2200',
      SANDBOX_EVENT_SEED: CROSSING_SEED,
      SANDBOX_RECORDS_DELAY_MS: '1500',
    });
  });

  test.afterEach(async () => {
    await far?.stop();
    await receiver?.close();
    rmSync(work, { recursive: true, force: true });
  });

  test('its CA file exists before it listens and is printed; HTTPS trusting that CA works, without it the handshake fails', async () => {
    expect(far.caBeforeListening, 'the CA file existed when the port first took a connection').toBe(true);
    expect(far.stdout()).toContain(`Sandbox (far flavor) listening on ${far.url}`);
    expect(far.stdout()).toContain(`TLS_CA_FILE=${far.caFile}`);
    const { ca, state } = clientOf(far);
    expect((await send(`${far.url}/__sandbox/health`, { ca })).status).toBe(200);
    await expect(send(`${far.url}/__sandbox/health`)).rejects.toMatchObject({
      code: expect.stringMatching(
        /UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT/,
      ),
    });
    const shown = await state();
    expect(shown.https).toBe(true);
    expect(JSON.stringify(shown), "the certificate's key is never shown").not.toContain('PRIVATE KEY');
  });

  test("every answer is held SANDBOX_LATENCY_MS; two flows' events arrive late and crossed, one of them twice with the same body", async () => {
    const api = clientOf(far);
    const ref = await api.newCase();
    expect((await api.stepUp(ref, { phoneNumber: '+15555550100' })).status).toBe(200);
    expect((await api.stepUp(ref, { email: 'far@example.com' })).status).toBe(200);
    expect(receiver.deliveries, 'no event arrived before both step-ups were answered').toEqual([]);

    const arrived = await receiver.waitFor(3, 30_000);
    expect(
      arrived.map((d) => d.body['channelType']),
      "the second flow's event first, then the first flow's, twice",
    ).toEqual(['EMAIL_OTP', 'SMS_OTP', 'SMS_OTP']);
    expect(arrived[2]?.text, 'a redelivery carries the same body').toBe(arrived[1]?.text);

    const { held, latencyMs, queue } = await api.state();
    expect(latencyMs).toBe(LATENCY_MS);
    expect(held.requests).toBeGreaterThanOrEqual(5);
    expect(held.minMs, 'the shortest time any request was held').toBeGreaterThanOrEqual(LATENCY_MS);
    expect(
      queue.map((e) => ({
        seq: e.seq,
        kind: e.kind,
        delayMs: e.delayMs,
        deliveries: e.deliveredAt.length,
        redelivered: e.redelivered,
      })),
    ).toEqual([
      { seq: 1, kind: 'verification-session', delayMs: 2180, deliveries: 2, redelivered: true },
      { seq: 2, kind: 'verification-session', delayMs: 241, deliveries: 1, redelivered: false },
    ]);
  });

  test('the records of a document verification answer 404 until SANDBOX_RECORDS_DELAY_MS has passed, then 200', async () => {
    const api = clientOf(far);
    const { inquiryId, authenticationId } = await api.newCase();
    expect((await api.verify(inquiryId)).status).toBe(200);
    expect((await api.records(authenticationId)).status, 'not there yet').toBe(404);
    let answer = await api.records(authenticationId);
    for (let waitMs = 50; answer.status === 404; waitMs = Math.min(waitMs * 2, 400)) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      answer = await api.records(authenticationId);
    }
    expect(answer.status).toBe(200);
    expect(answer.json['authenticationId']).toBe(authenticationId);
    expect((await api.state()).recordsDelayMs).toBe(1500);
  });
});

test.describe("the far flavor's settings", () => {
  const problemOf = (env: Record<string, string>): string => {
    try {
      readSandboxSettings(env);
      return '';
    } catch (error) {
      if (error instanceof SandboxSettingsError) return error.message;
      throw error;
    }
  };

  test("a wrong value is refused with a line naming its variable; the far flavor's variables with another flavor too", () => {
    expect(problemOf({ SANDBOX_FLAVOR: 'far', SANDBOX_EVENT_DELAY_MS: '9000-6000' })).toMatch(
      /^SANDBOX_EVENT_DELAY_MS="9000-6000" is not valid: expected MIN-MAX/,
    );
    expect(problemOf({ SANDBOX_FLAVOR: 'far', SANDBOX_EVENT_DELAY_MS: '6s' })).toMatch(/^SANDBOX_EVENT_DELAY_MS=/);
    expect(problemOf({ SANDBOX_FLAVOR: 'far', SANDBOX_LATENCY_MS: '-1' })).toMatch(/^SANDBOX_LATENCY_MS=/);
    expect(problemOf({ SANDBOX_FLAVOR: 'far', SANDBOX_RECORDS_DELAY_MS: 'soon' })).toMatch(
      /^SANDBOX_RECORDS_DELAY_MS=/,
    );
    expect(problemOf({ SANDBOX_FLAVOR: 'far', SANDBOX_EVENT_REDELIVERY: 'often' })).toMatch(
      /^SANDBOX_EVENT_REDELIVERY=/,
    );
    expect(problemOf({ SANDBOX_FLAVOR: 'reference', SANDBOX_LATENCY_MS: '150' })).toBe(
      'SANDBOX_LATENCY_MS: a variable of the far flavor only, and SANDBOX_FLAVOR is reference: set SANDBOX_FLAVOR=far or unset it',
    );
    expect(problemOf({ SANDBOX_FLAVOR: 'far', SANDBOX_LATENCY_MS: '0', SANDBOX_EVENT_DELAY_MS: '500' })).toBe('');
  });

  test('the defaults: 150 ms, events 6 to 9 s late, every third twice, records after 2 s', () => {
    const { far } = readSandboxSettings({ SANDBOX_FLAVOR: 'far', SANDBOX_EVENT_SEED: 'x' });
    expect(far).toEqual({
      latencyMs: 150,
      eventDelayMs: { min: 6000, max: 9000 },
      redeliverEvery: 3,
      seed: 'x',
      recordsDelayMs: 2000,
    });
    expect(readSandboxSettings({}).far, 'no far settings for another flavor').toBeUndefined();
  });
});

// The whole suite against the far flavor is the proof's (selftest/proof.spec.ts, in-process over HTTPS): here the part only
// a process of its own shows, its late, crossed and repeated events meeting the run's receiver through the CA file.
test('the webhook flows against the far process, as a user runs them (its URLs, TLS_CA_FILE, WEBHOOK_PUBLIC_URL, active mode): no failure, each wait ended by its event', async () => {
  const work = mkdtempSync(join(tmpdir(), 'far-run-'));
  const listen = `127.0.0.1:${await freePort()}`;
  const far = await startFarProcess(work, {
    SANDBOX_WEBHOOK_URL: `http://${listen}/webhooks`,
    SANDBOX_LATENCY_MS: '5',
    SANDBOX_EVENT_DELAY_MS: '200-600',
    SANDBOX_EVENT_REDELIVERY: '1',
    SANDBOX_RECORDS_DELAY_MS: '300',
  });
  try {
    const env = {
      ...sandboxTargetEnv({ url: far.url, flavor: 'far', tokenSecret: secret }),
      TLS_CA_FILE: far.caFile,
      WEBHOOK_LISTEN: listen,
      WEBHOOK_PUBLIC_URL: `http://${listen}/webhooks`,
      WEBHOOK_MODE: 'active',
      CONFORMANCE_WORKERS: '2',
      REPORTS_DIR: join(work, 'reports'),
      TEST_RESULTS_DIR: join(work, 'test-results'),
      ALLURE_RESULTS_DIR: join(work, 'allure-results'),
    };
    const run = await runCli(
      process.execPath,
      [playwrightCli, 'test', '--project', 'webhooks', '--project', 'run-end'],
      childEnv(work, env),
    );
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.code, output.slice(-3000)).toBe(0);
    expect(output).toMatch(/Verdict \(gate profile\): partial run: \d+ of \d+ MUST exercised, no failures/);
    // The event window is the default (60 s): each wait ended with its event. Every event comes twice here; that they
    // cross is proved above, with a seed that makes them, and by the proof.
    expect(output).toMatch(
      /Events: 4 awaited, the latest [0-9.]+ s after its request \(window 60 s, WEBHOOK_WAIT_MS\)/,
    );
    const { queue } = await clientOf(far).state();
    expect(
      queue.filter((e) => e.deliveredAt.length === 2).length,
      "events the run's receiver took twice",
    ).toBeGreaterThan(0);
  } finally {
    await far.stop();
    rmSync(work, { recursive: true, force: true });
  }
});
