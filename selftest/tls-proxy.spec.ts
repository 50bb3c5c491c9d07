import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
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

interface Pki {
  dir: string;
  caFile: string;
  key: string;
  cert: string;
}

/** A throwaway CA (sandbox/pki.ts) and a certificate for localhost and 127.0.0.1 that it signed; the CA's file in a folder of its own. */
function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'tls-proxy-'));
  const { caCert, key, cert } = makeThrowawayPki('/CN=Selftest Private CA/O=Conformance Selftest');
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, caCert);
  return { dir, caFile, key, cert };
}

interface HttpsTarget {
  pki: Pki;
  url: string;
  hostPort: string;
  tokenSecret: string;
  close(): Promise<void>;
}

/** The sandbox behind a TLS-terminating front: https://localhost:<port>, its certificate issued by the private CA. */
async function startHttpsTarget(): Promise<HttpsTarget> {
  const pki = makePki();
  const tokenSecret = randomBytes(16).toString('hex');
  const sandbox: RunningSandbox = await startSandbox({ tokenSecret });
  const sandboxPort = Number(new URL(sandbox.url).port);
  const front = createTlsServer({ key: pki.key, cert: pki.cert }, (client) => {
    const upstream = tcpConnect(sandboxPort, '127.0.0.1');
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  front.on('tlsClientError', () => undefined);
  const port = await freePort();
  await new Promise<void>((resolve) => front.listen(port, '127.0.0.1', resolve));
  return {
    pki,
    url: `https://localhost:${port}`,
    hostPort: `localhost:${port}`,
    tokenSecret,
    close: async () => {
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await sandbox.close();
      rmSync(pki.dir, { recursive: true, force: true });
    },
  };
}

interface Proxy {
  url: (credentials?: string) => string;
  /** host:port of every tunnel it opened, in order. */
  tunnelled: string[];
  /** Requests that were not CONNECT (a forwarding proxy's traffic): there must be none. */
  forwarded: string[];
  /** Tunnels refused for a missing or wrong password. */
  refused: string[];
  close(): Promise<void>;
}

/** A small CONNECT proxy that wants Basic credentials and counts the hosts it tunnels to. */
async function startProxy(user: string, password: string): Promise<Proxy> {
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const proxy: Omit<Proxy, 'url' | 'close'> = { tunnelled: [], forwarded: [], refused: [] };
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    proxy.forwarded.push(`${req.method} ${req.url}`);
    res.writeHead(405).end();
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('error', () => undefined);
    if (req.headers['proxy-authorization'] !== expected) {
      proxy.refused.push(req.url ?? '');
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="selftest"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    const target = req.url ?? '';
    proxy.tunnelled.push(target);
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
    ...proxy,
    url: (credentials) => `http://${credentials ? `${credentials}@` : ''}127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Run {
  code: number | null;
  output: string;
  /** Every file the run wrote (reports, Allure results, test results), path and text. */
  artifacts: Array<{ name: string; text: string }>;
}

/** A conformance run of the auth project (cheap: token checks and the bearer refusals) against the target. */
async function authRun(target: HttpsTarget, extra: Record<string, string>): Promise<Run> {
  const work = mkdtempSync(join(tmpdir(), 'tls-proxy-run-'));
  try {
    const env = {
      ...sandboxTargetEnv({ url: target.url, flavor: 'reference', tokenSecret: target.tokenSecret }),
      WEBHOOK_MODE: 'off',
      WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`,
      REPORTS_DIR: join(work, 'reports'),
      TEST_RESULTS_DIR: join(work, 'test-results'),
      ALLURE_RESULTS_DIR: join(work, 'allure-results'),
      CONFORMANCE_WORKERS: '2',
      ...extra,
    };
    const run = await runCli(process.execPath, [playwrightCli, 'test', '--project', 'auth'], childEnv(work, env));
    const artifacts = filesUnder(work).map((path) => ({ name: path.slice(work.length + 1), text: readText(path) }));
    return { code: run.code, output: `${run.stdout}\n${run.stderr}`, artifacts };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

test.describe.configure({ timeout: 240_000 });

/** One HTTPS target for the file's tests: each starts its own proxy, whose counts are its test's. */
const it = test.extend<object, { target: HttpsTarget }>({
  target: [
    async ({}, use) => {
      const target = await startHttpsTarget();
      await use(target);
      await target.close();
    },
    { scope: 'worker' },
  ],
});

test.describe('a target behind HTTPS with a private CA, reached through a CONNECT proxy', () => {
  it("the run passes through the proxy, which saw the target and none of the suite's own servers, and its password is in no artifact", async ({
    target,
  }) => {
    const password = `pw-${randomBytes(12).toString('hex')}`;
    const proxy = await startProxy('suite', password);
    try {
      const run = await authRun(target, {
        TLS_CA_FILE: target.pki.caFile,
        HTTPS_PROXY: proxy.url(`suite:${password}`),
      });
      expect(run.code, run.output.slice(-3000)).toBe(0);
      expect(proxy.refused, 'every tunnel carried the password').toEqual([]);
      expect(proxy.forwarded, 'nothing was forwarded: every request was tunnelled').toEqual([]);
      // The target only: not the run's token broker, its receiver or anything else on loopback.
      expect(proxy.tunnelled.length, 'the preflight and the checks went through the proxy').toBeGreaterThan(1);
      expect(new Set(proxy.tunnelled)).toEqual(new Set([target.hostPort]));
      const basic = Buffer.from(`suite:${password}`).toString('base64');
      expect(scanForSecrets([...run.artifacts, { name: 'console', text: run.output }], { password, basic })).toEqual(
        [],
      );
    } finally {
      await proxy.close();
    }
  });

  // The preflight's one line per host naming its variables, exit 2, is doctor.spec.ts's; here what reach() says of each.
  it("without TLS_CA_FILE the certificate is not trusted; a dead proxy, and one that refuses the credentials, are named in one line, without its password; through it, the bundle's transport names the proxy's host and the certificate's issuer", async ({
    target,
  }) => {
    const proxy = await startProxy('suite', 'the-right-one');
    try {
      const config = loadConfig(
        {
          ...sandboxTargetEnv({ url: target.url, flavor: 'reference', tokenSecret: target.tokenSecret }),
          TLS_CA_FILE: target.pki.caFile,
          HTTPS_PROXY: proxy.url('suite:wrong-password'),
        },
        { repoRoot, embedded: false },
      );
      const withoutCa = loadConfig(
        sandboxTargetEnv({ url: target.url, flavor: 'reference', tokenSecret: target.tokenSecret }),
        { repoRoot, embedded: false },
      );
      const untrusted = (await reach(target.url, withoutCa.http.network, 5_000)).problem;
      expect(untrusted).toContain('the certificate is not trusted');
      expect(untrusted).toContain('set TLS_CA_FILE to the CA that issued it');
      const dead = `http://127.0.0.1:${await closedPort()}`;
      const viaDead = loadConfig(
        {
          ...sandboxTargetEnv({ url: target.url, flavor: 'reference', tokenSecret: 'x'.repeat(32) }),
          HTTPS_PROXY: dead,
        },
        { repoRoot, embedded: false },
      );
      expect((await reach(target.url, viaDead.http.network, 5_000)).problem).toContain(
        `HTTPS_PROXY ${dead}: connection refused`,
      );
      const seen = await reach(target.url, config.http.network, 5_000);
      expect(seen.problem).toBe(
        `HTTPS_PROXY ${proxy.url()}: the proxy refused the credentials of the proxy URL, answering CONNECT with 407 Proxy Authentication Required`,
      );
      expect(proxy.refused).toEqual([target.hostPort]);
      const good = loadConfig(
        {
          ...sandboxTargetEnv({ url: target.url, flavor: 'reference', tokenSecret: target.tokenSecret }),
          TLS_CA_FILE: target.pki.caFile,
          HTTPS_PROXY: proxy.url('suite:the-right-one'),
        },
        { repoRoot, embedded: false },
      );
      expect(await transportOf(good)).toEqual([
        { origin: target.url, proxy: proxy.url(), certificateIssuer: 'CN=Selftest Private CA, O=Conformance Selftest' },
      ]);
      expect(proxy.tunnelled).toEqual([target.hostPort]);
    } finally {
      await proxy.close();
    }
  });
});

test.describe('the HTTP layer through a proxy', () => {
  test('an http:// target is tunnelled with CONNECT too, and its headers arrive exactly as sent', async () => {
    const received: string[][] = [];
    const target = createHttpServer((req, res) => {
      received.push(req.rawHeaders);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const port = await freePort();
    await new Promise<void>((resolve) => target.listen(port, '127.0.0.1', resolve));
    const proxy = await startProxy('suite', 'tunnel-password');
    try {
      const url = `http://127.0.0.1:${port}`;
      const config = loadConfig(
        {
          ...sandboxTargetEnv({ url, flavor: 'reference', tokenSecret: 'x'.repeat(32) }),
          http_proxy: proxy.url('suite:tunnel-password'),
        },
        { repoRoot, embedded: false },
      );
      const client = new HttpClient({ ...retryPolicyOf(config.http), retries: 0 });
      const exchange = await client.send({
        label: 'probe',
        method: 'GET',
        url: `${url}/x`,
        headers: [
          ['x-client-id', 'c'],
          ['user-agent', 'exact'],
        ],
      });
      expect(exchange.status).toBe(200);
      expect(proxy.tunnelled).toEqual([`127.0.0.1:${port}`]);
      expect(proxy.forwarded).toEqual([]);
      expect(received).toEqual([
        ['host', `127.0.0.1:${port}`, 'x-client-id', 'c', 'user-agent', 'exact', 'Connection', 'keep-alive'],
      ]);
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => target.close(() => resolve()));
    }
  });

  test("a proxy's refusal of the tunnel is never taken for the target's answer: the request fails with one line naming the proxy", async () => {
    const proxy = await startProxy('suite', 'the-right-one');
    try {
      const url = 'https://api.example.com';
      const config = loadConfig(
        {
          ...sandboxTargetEnv({ url, flavor: 'reference', tokenSecret: 'x'.repeat(32) }),
          HTTPS_PROXY: proxy.url('suite:not-the-right-one'),
        },
        { repoRoot, embedded: false },
      );
      const client = new HttpClient({ ...retryPolicyOf(config.http), retries: 2 });
      const sent = client.send({ label: 'probe', method: 'GET', url: `${url}/x`, headers: [] });
      await expect(sent).rejects.toThrow(NoAnswerError);
      await expect(sent).rejects.toThrow(
        `GET ${url}/x got no answer: HTTPS_PROXY ${proxy.url()}: the proxy refused the credentials of the proxy URL, answering CONNECT with 407 Proxy Authentication Required`,
      );
      expect(proxy.refused, 'not retried: the proxy will refuse again').toEqual(['api.example.com:443']);
    } finally {
      await proxy.close();
    }
  });
});

test.describe('the network settings of the configuration', () => {
  const target = sandboxTargetEnv({ url: 'https://api.example.com', flavor: 'reference', tokenSecret: 'x'.repeat(32) });

  test('NODE_TLS_REJECT_UNAUTHORIZED=0 is refused with one line naming it; 1 is accepted', () => {
    expect(problemsOf({ ...target, NODE_TLS_REJECT_UNAUTHORIZED: '0' })).toEqual([
      expect.stringMatching(/^NODE_TLS_REJECT_UNAUTHORIZED="0" is not valid: .*TLS_CA_FILE/),
    ]);
    expect(problemsOf({ ...target, NODE_TLS_REJECT_UNAUTHORIZED: '1' })).toEqual([]);
  });

  test('a TLS_CA_FILE that is missing or holds no certificate is refused, naming the variable and what is wrong', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-ca-'));
    try {
      writeFileSync(join(dir, 'not-pem.txt'), 'hello');
      writeFileSync(join(dir, 'broken.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
      expect(problemsOf({ ...target, TLS_CA_FILE: join(dir, 'absent.pem') })).toEqual([
        expect.stringMatching(/^TLS_CA_FILE=".*absent\.pem" is not valid: .*ENOENT/),
      ]);
      expect(problemsOf({ ...target, TLS_CA_FILE: join(dir, 'not-pem.txt') })).toEqual([
        expect.stringContaining('holds no PEM certificate'),
      ]);
      expect(problemsOf({ ...target, TLS_CA_FILE: join(dir, 'broken.pem') })).toEqual([
        expect.stringContaining('certificate 1 of 1 does not parse'),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the proxy follows the curl conventions: NO_PROXY, lower case first, ALL_PROXY, no upper-case HTTP_PROXY, never for the embedded sandbox', () => {
    const proxies = (env: Record<string, string>, embedded = false) =>
      Object.fromEntries(
        Object.entries(loadConfig({ ...target, ...env }, { repoRoot, embedded }).http.network.proxies).map(
          ([origin, p]) => [origin, `${p.variable} ${p.shown}`],
        ),
      );
    const origin = 'https://api.example.com';
    expect(proxies({ HTTPS_PROXY: 'http://proxy.corp:3128' })).toEqual({
      [origin]: 'HTTPS_PROXY http://proxy.corp:3128',
    });
    expect(proxies({ HTTPS_PROXY: 'http://upper:3128', https_proxy: 'http://lower:3128' })).toEqual({
      [origin]: 'https_proxy http://lower:3128',
    });
    expect(proxies({ ALL_PROXY: 'http://all:3128' })).toEqual({ [origin]: 'ALL_PROXY http://all:3128' });
    expect(proxies({ HTTPS_PROXY: 'http://proxy.corp:3128', NO_PROXY: '.example.com' })).toEqual({});
    expect(proxies({ HTTPS_PROXY: 'http://proxy.corp:3128', no_proxy: 'api.example.com:443' })).toEqual({});
    expect(proxies({ HTTPS_PROXY: 'http://proxy.corp:3128' }, true), "the embedded sandbox is the suite's own").toEqual(
      {},
    );
    const plain = {
      ...sandboxTargetEnv({ url: 'http://api.example.com', flavor: 'reference', tokenSecret: 'x'.repeat(32) }),
    };
    const httpProxies = (env: Record<string, string>) =>
      Object.keys(loadConfig({ ...plain, ...env }, { repoRoot, embedded: false }).http.network.proxies);
    expect(httpProxies({ HTTP_PROXY: 'http://ignored:3128' }), 'upper-case HTTP_PROXY is not read (curl)').toEqual([]);
    expect(httpProxies({ http_proxy: 'http://proxy.corp:3128' })).toEqual(['http://api.example.com']);
    expect(problemsOf({ ...target, HTTPS_PROXY: 'socks5://proxy.corp:1080' })).toEqual([
      expect.stringMatching(
        /^HTTPS_PROXY="socks5:\/\/proxy\.corp:1080" is not valid: expected an http:\/\/ or https:\/\/ proxy URL/,
      ),
    ]);
  });

  test("proxy credentials are secrets: redacted in configuration errors and by the run's redactor", () => {
    const problems = problemsOf({ ...target, HTTPS_PROXY: 'http://me:s3cr3t-pass@proxy.corp:3128/path/not/allowed' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).not.toContain('s3cr3t-pass');
    const config = loadConfig(
      { ...target, HTTPS_PROXY: 'http://me:s3cr3t%2Fpass@proxy.corp:3128' },
      { repoRoot, embedded: false },
    );
    expect(config.secrets).toEqual(expect.arrayContaining(['s3cr3t%2Fpass', 's3cr3t/pass']));
    const redactor = new Redactor(config.secrets);
    expect(redactor.text('via http://me:s3cr3t%2Fpass@proxy.corp:3128, password s3cr3t/pass')).toBe(
      'via http://me:[REDACTED]@proxy.corp:3128, password [REDACTED]',
    );
    expect(redactor.text('any URL: https://u:pw@host/x')).toBe('any URL: https://u:[REDACTED]@host/x');
  });
});
