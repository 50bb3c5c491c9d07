import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { freePorts } from '../runner/http/free-port.ts';
import { countOption, parseCli } from '../scripts/cli.ts';
import { replaceReadmeBlock } from '../scripts/readme-block.ts';

// npm run load: the sandbox (a process of its own) under autocannon, --connections (64) for --seconds (30), over a
// mix of token, assessment, fetch, case update, step-up and order requests, valid and invalid. Reports crashes, 5xx
// (none is expected: the mix triggers no 500 or 503 row), latency percentiles and the sandbox's memory after the run;
// writes reports/load.json and the README's reliability table (--no-readme: not).
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const cli = parseCli({
  summary: 'Puts the sandbox under load (autocannon) and writes reports/load.json and the README reliability table.',
  usage: 'npm run load -- [options]',
  options: { seconds: { type: 'string' }, connections: { type: 'string' }, 'no-readme': { type: 'boolean' } },
  describe: {
    seconds: 'how long (default 30)',
    connections: 'connections at once (default 64)',
    'no-readme': 'write reports/load.json only, not the README table',
  },
});
const seconds = countOption('seconds', cli.values.seconds, 30);
const connections = countOption('connections', cli.values.connections, 64);

type Mix = autocannon.Request & { name: string };

async function json(url: string, init: RequestInit): Promise<Record<string, unknown>> {
  const reply = await fetch(url, init);
  return (await reply.json()) as Record<string, unknown>;
}

async function main(): Promise<void> {
  const [port] = await freePorts(1);
  const tokenSecret = randomBytes(16).toString('hex');
  const sandbox = spawn(process.execPath, ['--import', 'tsx', 'sandbox/main.ts'], {
    cwd: repoRoot,
    // eslint-disable-next-line no-restricted-properties -- the environment given to a child process
    env: { ...process.env, SANDBOX_PORT: String(port), SANDBOX_TOKEN_SECRET: tokenSecret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exited: number | null | undefined;
  sandbox.on('exit', (code) => (exited = code));
  await new Promise<void>((resolve, reject) => {
    sandbox.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('listening on') && resolve());
    sandbox.on('exit', () => reject(new Error('the sandbox exited before it listened')));
  });
  const origin = `http://127.0.0.1:${port}`;
  const env = sandboxTargetEnv({ url: origin, flavor: 'reference', tokenSecret });
  const path = (base: string, route: string | undefined) =>
    new URL(env[base] ?? '').pathname + (route ?? '').split(' ')[1];
  const form = 'grant_type=client_credentials&scope=k1_integration_api';
  const basic = { authorization: `Basic ${env['API_KEY']}`, 'content-type': 'application/x-www-form-urlencoded' };
  const token = (await json(env['IDENTITY_TOKEN_URL'] ?? '', { method: 'POST', headers: basic, body: form }))[
    'access_token'
  ] as string;
  const stepupToken = (await json(env['STEPUP_TOKEN_URL'] ?? '', { method: 'POST', headers: basic, body: form }))[
    'access_token'
  ] as string;
  const headers = (bearer: string, ...omit: string[]) =>
    Object.fromEntries(
      Object.entries({
        authorization: `Bearer ${bearer}`,
        'x-client-id': env['CLIENT_ID'] ?? '',
        'x-correlation-id': randomUUID(),
        'content-type': 'application/json',
      }).filter(([name]) => !omit.includes(name)),
    );
  const assessmentPath = path('IDENTITY_BASE_URL', env['ROUTE_ASSESSMENT']);
  const inquiryId = `inq-load-${randomUUID()}`;
  const created = await json(`${origin}${assessmentPath}`, {
    method: 'POST',
    headers: headers(token),
    body: JSON.stringify({ strategy: 'default', inquiryId }),
  });
  const ref = { inquiryId, authenticationId: created['authenticationId'] as string };

  let counter = 0;
  const mix: Mix[] = [
    {
      name: 'token',
      method: 'POST',
      path: new URL(env['IDENTITY_TOKEN_URL'] ?? '').pathname,
      headers: basic,
      body: form,
    },
    {
      name: 'assessment',
      method: 'POST',
      path: assessmentPath,
      headers: headers(token),
      setupRequest: (r) => ({
        ...r,
        body: JSON.stringify({ strategy: 'default', inquiryId: `inq-load-${(counter += 1)}` }),
      }),
    },
    {
      name: 'fetch',
      method: 'GET',
      path: path('IDENTITY_BASE_URL', env['ROUTE_FETCH_ASSESSMENT']).replace('{caseId}', ref.authenticationId),
      headers: headers(token),
    },
    {
      name: 'case update',
      method: 'POST',
      path: path('IDENTITY_BASE_URL', env['ROUTE_CASE_UPDATE']),
      headers: headers(token),
      body: JSON.stringify({ ...ref, notes: 'load' }),
    },
    {
      name: 'step-up',
      method: 'POST',
      path: path('STEPUP_BASE_URL', env['ROUTE_STEP_UP']),
      headers: headers(stepupToken, 'x-correlation-id'),
      body: JSON.stringify({ ...ref, phoneNumber: '+15555550100' }),
    },
    {
      name: 'order',
      method: 'POST',
      path: `${new URL(env['ORDERS_BASE_URL'] ?? '').pathname}/v2/orders`,
      headers: headers(token),
      setupRequest: (r) => ({
        ...r,
        body: JSON.stringify({
          merchantOrderId: `load-${(counter += 1)}`,
          fulfillment: [{ type: 'SHIPPED' }],
          items: [],
          transactions: [],
          promotions: [],
        }),
      }),
    },
    {
      name: 'invalid: no x-client-id',
      method: 'POST',
      path: assessmentPath,
      headers: headers(token, 'x-client-id'),
      body: JSON.stringify({ strategy: 'default', inquiryId: 'x' }),
    },
    {
      name: 'invalid: malformed order',
      method: 'POST',
      path: `${new URL(env['ORDERS_BASE_URL'] ?? '').pathname}/v2/orders`,
      headers: headers(token),
      body: '{"merchantOrderId": ',
    },
    {
      name: 'invalid: bad token',
      method: 'GET',
      path: path('IDENTITY_BASE_URL', env['ROUTE_FETCH_ASSESSMENT']).replace('{caseId}', ref.authenticationId),
      headers: headers('not-a-token'),
    },
  ];
  console.log(
    `load: ${connections} connections for ${seconds} s against the sandbox at ${origin}, ${mix.length} kinds of request`,
  );
  const result = await autocannon({ url: origin, connections, duration: seconds, requests: mix });
  const health = await json(`${origin}/__sandbox/health`, {});
  const alive = exited === undefined;
  sandbox.kill('SIGTERM');
  const statuses = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count ?? 0]),
  );
  const summary = {
    measuredAt: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version },
    connections,
    seconds,
    requests: result.requests.total,
    requestsPerSecond: Math.round(result.requests.average),
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    statuses,
    unexpected5xx: result['5xx'],
    errors: result.errors,
    timeouts: result.timeouts,
    sandboxAliveAfter: alive && health['status'] === 'ok',
    sandboxRssMiBAfter: Math.round(Number(health['rssBytes']) / 1024 / 1024),
    casesKept: health['cases'],
  };
  mkdirSync(join(repoRoot, 'reports'), { recursive: true });
  writeFileSync(join(repoRoot, 'reports/load.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const table = loadTable(summary);
  console.log(`\n${table}`);
  if (!cli.values['no-readme']) replaceReadmeBlock('load', table);
  const broken = summary.unexpected5xx > 0 || !summary.sandboxAliveAfter;
  if (broken)
    console.error(`load: ${summary.unexpected5xx} unexpected 5xx, sandbox alive after: ${summary.sandboxAliveAfter}`);
  process.exit(broken ? 1 : 0);
}

function loadTable(s: {
  measuredAt: string;
  machine: { cpus: number; node: string };
  connections: number;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  latencyMs: Record<string, number>;
  statuses: Record<string, number>;
  unexpected5xx: number;
  errors: number;
  timeouts: number;
  sandboxAliveAfter: boolean;
  sandboxRssMiBAfter: number;
  casesKept: unknown;
}): string {
  return [
    `Measured ${s.measuredAt.slice(0, 10)} on a ${s.machine.cpus}-core machine, Node ${s.machine.node} (\`reports/load.json\`): ${s.connections} connections for ${s.seconds} s.`,
    '',
    '| Measure | Value |',
    '|---|---|',
    `| Requests (per second) | ${s.requests} (${s.requestsPerSecond}/s) |`,
    `| Latency p50 / p90 / p99 / max | ${s.latencyMs['p50']} / ${s.latencyMs['p90']} / ${s.latencyMs['p99']} / ${s.latencyMs['max']} ms |`,
    `| Answers by status | ${Object.entries(s.statuses)
      .map(([code, n]) => `${code}: ${n}`)
      .join(', ')} |`,
    `| Unexpected 5xx, connection errors, timeouts | ${s.unexpected5xx}, ${s.errors}, ${s.timeouts} |`,
    `| Sandbox after the run | ${s.sandboxAliveAfter ? 'up' : '**down**'}, ${s.sandboxRssMiBAfter} MiB resident, ${String(s.casesKept)} cases kept (at most 50 000) |`,
  ].join('\n');
}

await main();
