import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { connect as tcpConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { expect, test } from '@playwright/test';
import { loadConfig } from '../runner/config/load-config.ts';
import { problemsOf } from './config-env.ts';
import { HttpClient } from '../runner/http/client.ts';
import { reach } from '../runner/http/network.ts';
import { retryPolicyOf } from '../runner/http/retry.ts';
import { NoAnswerError } from '../runner/http/wire.ts';
import { Redactor } from '../kit/redact.ts';
import { makeThrowawayPki } from '../sandbox/pki.ts';
import { startSandbox } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { transportOf } from '../scripts/evidence/transport.ts';
import {
  childEnv,
  closedPort,
  filesUnder,
  freePort,
  playwrightCli,
  readText,
  repoRoot,
  runCli,
  scanForSecrets,
} from './evidence-harness.ts';

// HTTPS as companies run it: a target whose certificate comes from a private CA, reached through a CONNECT proxy
// that wants a password. Real servers throughout: the sandbox, a TLS front before it, a proxy, each on its own port.

/** The reference sandbox's variables for a target at `url`. */
const envFor = (url: string, tokenSecret = 'x'.repeat(32)) =>
  sandboxTargetEnv({ url, flavor: 'reference', tokenSecret });
/** The configuration of a run against a real target (not the embedded sandbox). */
const configOf = (env: Record<string, string>) => loadConfig(env, { repoRoot, embedded: false });

/**
 * The sandbox behind a TLS-terminating front: https://localhost:<port>, its certificate (for localhost and 127.0.0.1)
 * issued by a throwaway private CA, the CA's file in a folder of its own.
 */
async function startHttpsTarget() {
  const dir = mkdtempSync(join(tmpdir(), 'tls-proxy-'));
  const { caCert, key, cert } = makeThrowawayPki('/CN=Selftest Private CA/O=Conformance Selftest');
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, caCert);
  const tokenSecret = randomBytes(16).toString('hex');
  const sandbox = await startSandbox({ tokenSecret });
  const sandboxPort = Number(new URL(sandbox.url).port);
  const front = createTlsServer({ key, cert }, (client) => {
    const upstream = tcpConnect(sandboxPort, '127.0.0.1');
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  front.on('tlsClientError', () => undefined);
  const port = await freePort();
  await new Promise<void>((resolve) => front.listen(port, '127.0.0.1', resolve));
  const url = `https://localhost:${port}`;
  return {
    caFile,
    url,
    /** The sandbox itself, over plain HTTP. */
    plainUrl: sandbox.url,
    hostPort: `localhost:${port}`,
    env: envFor(url, tokenSecret),
    close: async () => {
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
type HttpsTarget = Awaited<ReturnType<typeof startHttpsTarget>>;

/** A small CONNECT proxy that wants Basic credentials of user "suite" and counts the hosts it tunnels to. */
async function startProxy() {
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const expected = `Basic ${Buffer.from(`suite:${password}`).toString('base64')}`;
  /** host:port of every tunnel it opened, in order. */
  const tunnelled: string[] = [];
  /** Requests that were not CONNECT (a forwarding proxy's traffic): there must be none. */
  const forwarded: string[] = [];
  /** Tunnels refused for a missing or wrong password. */
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    forwarded.push(`${req.method} ${req.url}`);
    res.writeHead(405).end();
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('error', () => undefined);
    if (req.headers['proxy-authorization'] !== expected) {
      refused.push(req.url ?? '');
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="selftest"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    const target = req.url ?? '';
    tunnelled.push(target);
    const at = target.lastIndexOf(':');
    const upstream = tcpConnect(Number(target.slice(at + 1)), target.slice(0, at).replace(/^\[|\]$/g, ''));
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      client.pipe(upstream).pipe(client);
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    password,
    tunnelled,
    forwarded,
    refused,
    /** The proxy's URL, with user "suite" and this password when one is given. */
    url: (withPassword?: string) => `http://${withPassword ? `suite:${withPassword}@` : ''}127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One HTTPS target for the file's tests; a proxy of each test's own, whose counts are its test's. */
const it = test.extend<{ proxyServer: Awaited<ReturnType<typeof startProxy>> }, { target: HttpsTarget }>({
  target: [
    async ({}, use) => {
      const target = await startHttpsTarget();
      await use(target);
      await target.close();
    },
    { scope: 'worker' },
  ],
  // Not `proxy`: Playwright's own option of that name.
  proxyServer: async ({}, use) => {
    const proxy = await startProxy();
    await use(proxy);
    await proxy.close();
  },
});

test.describe('a target behind HTTPS with a private CA, reached through a CONNECT proxy', () => {
  it("the run passes through the proxy, which saw the target and none of the suite's own servers, and its password is in no artifact", async ({
    target,
    proxyServer: proxy,
  }) => {
    // A conformance run of the auth project (cheap: token checks and the bearer refusals) against the target.
    const work = test.info().outputPath('run');
    mkdirSync(work, { recursive: true });
    const env = {
      ...target.env,
      TLS_CA_FILE: target.caFile,
      HTTPS_PROXY: proxy.url(proxy.password),
      WEBHOOK_MODE: 'off',
      WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`,
      TEST_RESULTS_DIR: join(work, 'test-results'),
      ALLURE_RESULTS_DIR: join(work, 'allure-results'),
      CONFORMANCE_WORKERS: '2',
    };
    const run = await runCli(process.execPath, [playwrightCli, 'test', '--project', 'auth'], childEnv(work, env));
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.code, output.slice(-3000)).toBe(0);
    expect(proxy.refused, 'every tunnel carried the password').toEqual([]);
    expect(proxy.forwarded, 'nothing was forwarded: every request was tunnelled').toEqual([]);
    // The target only: not the run's token broker, its receiver or anything else on loopback.
    expect(proxy.tunnelled.length, 'the preflight and the checks went through the proxy').toBeGreaterThan(1);
    expect(new Set(proxy.tunnelled)).toEqual(new Set([target.hostPort]));
    // Every file the run wrote (reports, Allure results, test results) and its console.
    const artifacts = filesUnder(work).map((path) => ({ name: path.slice(work.length + 1), text: readText(path) }));
    const secrets = { password: proxy.password, basic: Buffer.from(`suite:${proxy.password}`).toString('base64') };
    expect(scanForSecrets([...artifacts, { name: 'console', text: output }], secrets)).toEqual([]);
  });

  // The preflight's one line per host naming its variables, exit 2, is doctor.spec.ts's; here what reach() says of each.
  it("without TLS_CA_FILE the certificate is not trusted; a dead proxy, and one that refuses the credentials, are named in one line, without its password, by the preflight and by a request, which is not retried; through it, the bundle's transport names the proxy's host and the certificate's issuer", async ({
    target,
    proxyServer: proxy,
  }) => {
    const untrusted = (await reach(target.url, configOf(target.env).http.network, 5_000)).problem;
    expect(untrusted).toContain('the certificate is not trusted');
    expect(untrusted).toContain('set TLS_CA_FILE to the CA that issued it');
    const dead = `http://127.0.0.1:${await closedPort()}`;
    expect(
      (await reach(target.url, configOf({ ...target.env, HTTPS_PROXY: dead }).http.network, 5_000)).problem,
    ).toContain(`HTTPS_PROXY ${dead}: connection refused`);
    const wrong = configOf({ ...target.env, TLS_CA_FILE: target.caFile, HTTPS_PROXY: proxy.url('wrong-password') });
    const refusal = `HTTPS_PROXY ${proxy.url()}: the proxy refused the credentials of the proxy URL, answering CONNECT with 407 Proxy Authentication Required`;
    expect((await reach(target.url, wrong.http.network, 5_000)).problem).toBe(refusal);
    const client = new HttpClient({ ...retryPolicyOf(wrong.http), retries: 2 });
    const sent = client.send({ label: 'probe', method: 'GET', url: `${target.url}/x`, headers: [] });
    await expect(sent, "never taken for the target's answer").rejects.toThrow(NoAnswerError);
    await expect(sent).rejects.toThrow(`GET ${target.url}/x got no answer: ${refusal}`);
    const twice = [target.hostPort, target.hostPort];
    expect(proxy.refused, 'reach() once, the request once: not retried, the proxy will refuse again').toEqual(twice);
    const good = configOf({ ...target.env, TLS_CA_FILE: target.caFile, HTTPS_PROXY: proxy.url(proxy.password) });
    expect(await transportOf(good)).toEqual([
      { origin: target.url, proxy: proxy.url(), certificateIssuer: 'CN=Selftest Private CA, O=Conformance Selftest' },
    ]);
    expect(proxy.tunnelled).toEqual([target.hostPort]);
  });
});

it('an http:// target is tunnelled through the proxy with CONNECT too, and its headers arrive exactly as sent', async ({
  target,
  proxyServer: proxy,
}) => {
  const config = configOf({ ...envFor(target.plainUrl), http_proxy: proxy.url(proxy.password) });
  const client = new HttpClient({ ...retryPolicyOf(config.http), retries: 0 });
  const headers: Array<[string, string]> = [
    ['x-client-id', 'c'],
    ['user-agent', 'exact'],
  ];
  const url = `${target.plainUrl}/__sandbox/echo`;
  const exchange = await client.send({ label: 'probe', method: 'GET', url, headers });
  const { host } = new URL(url);
  expect(proxy.tunnelled).toEqual([host]);
  expect(proxy.forwarded).toEqual([]);
  const arrived = ['host', host, 'x-client-id', 'c', 'user-agent', 'exact', 'Connection', 'keep-alive'];
  expect((exchange.json as { rawHeaders: string[] }).rawHeaders).toEqual(arrived);
});

test.describe('the network settings of the configuration', () => {
  const target = envFor('https://api.example.com');

  test('NODE_TLS_REJECT_UNAUTHORIZED=0, a TLS_CA_FILE missing or without a certificate, and a socks5 proxy are refused, each in one line naming the variable and what is wrong; NODE_TLS_REJECT_UNAUTHORIZED=1 is accepted', () => {
    const dir = test.info().outputPath('ca');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'not-pem.txt'), 'hello');
    writeFileSync(join(dir, 'broken.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const refused: Array<[Record<string, string>, RegExp]> = [
      [{ NODE_TLS_REJECT_UNAUTHORIZED: '0' }, /^NODE_TLS_REJECT_UNAUTHORIZED="0" is not valid: .*TLS_CA_FILE/],
      [{ TLS_CA_FILE: join(dir, 'absent.pem') }, /^TLS_CA_FILE=".*absent\.pem" is not valid: .*ENOENT/],
      [{ TLS_CA_FILE: join(dir, 'not-pem.txt') }, /holds no PEM certificate/],
      [{ TLS_CA_FILE: join(dir, 'broken.pem') }, /certificate 1 of 1 does not parse/],
      [
        { HTTPS_PROXY: 'socks5://proxy.corp:1080' },
        /^HTTPS_PROXY="socks5:\/\/proxy\.corp:1080" is not valid: expected an http:\/\/ or https:\/\/ proxy URL/,
      ],
    ];
    for (const [env, problem] of refused)
      expect(problemsOf({ ...target, ...env }), JSON.stringify(env)).toEqual([expect.stringMatching(problem)]);
    expect(problemsOf({ ...target, NODE_TLS_REJECT_UNAUTHORIZED: '1' })).toEqual([]);
  });

  test('the proxy follows the curl conventions: NO_PROXY, lower case first, ALL_PROXY, no upper-case HTTP_PROXY, never for the embedded sandbox', () => {
    const [origin, plain] = ['https://api.example.com', { url: 'http://api.example.com' }];
    /** Each origin the configuration sends through a proxy, with the variable it took the proxy from. */
    const proxied = (env: Record<string, string>, { embedded = false, url = origin } = {}) =>
      Object.entries(loadConfig({ ...envFor(url), ...env }, { repoRoot, embedded }).http.network.proxies)
        .map(([at, p]) => `${at} ${p.variable} ${p.shown}`)
        .join('; ');
    const corp = 'http://proxy.corp:3128';
    const rows: Array<
      [rule: string, env: Record<string, string>, proxied: string, options?: { embedded?: boolean; url?: string }]
    > = [
      ['HTTPS_PROXY', { HTTPS_PROXY: corp }, `${origin} HTTPS_PROXY ${corp}`],
      ['lowercase wins', { HTTPS_PROXY: 'http://u:1', https_proxy: 'http://l:1' }, `${origin} https_proxy http://l:1`],
      ['ALL_PROXY', { ALL_PROXY: 'http://all:3128' }, `${origin} ALL_PROXY http://all:3128`],
      ['NO_PROXY by domain', { HTTPS_PROXY: corp, NO_PROXY: '.example.com' }, ''],
      ['no_proxy by host and port', { HTTPS_PROXY: corp, no_proxy: 'api.example.com:443' }, ''],
      ["the embedded sandbox is the suite's own", { HTTPS_PROXY: corp }, '', { embedded: true }],
      ['upper-case HTTP_PROXY is not read (curl)', { HTTP_PROXY: 'http://ignored:3128' }, '', plain],
      ['http_proxy', { http_proxy: corp }, `http://api.example.com http_proxy ${corp}`, plain],
    ];
    for (const [rule, env, expected, options] of rows) expect(proxied(env, options), rule).toBe(expected);
  });

  test("proxy credentials are secrets: redacted in configuration errors and by the run's redactor", () => {
    const problems = problemsOf({ ...target, HTTPS_PROXY: 'http://me:s3cr3t-pass@proxy.corp:3128/path/not/allowed' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).not.toContain('s3cr3t-pass');
    const config = configOf({ ...target, HTTPS_PROXY: 'http://me:s3cr3t%2Fpass@proxy.corp:3128' });
    expect(config.secrets).toEqual(expect.arrayContaining(['s3cr3t%2Fpass', 's3cr3t/pass']));
    const redactor = new Redactor(config.secrets);
    expect(redactor.text('via http://me:s3cr3t%2Fpass@proxy.corp:3128, password s3cr3t/pass')).toBe(
      'via http://me:[REDACTED]@proxy.corp:3128, password [REDACTED]',
    );
    expect(redactor.text('any URL: https://u:pw@host/x')).toBe('any URL: https://u:[REDACTED]@host/x');
  });
});
