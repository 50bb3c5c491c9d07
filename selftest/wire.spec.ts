import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { operations } from '../catalog/catalog.ts';
import { OperationRequests } from '../kit/operation-requests.ts';
import { loadConfig } from '../runner/config/load-config.ts';
import { HttpClient } from '../runner/http/client.ts';
import { testKeyIn, userAgent } from '../runner/http/user-agent.ts';
import { Redactor } from '../kit/redact.ts';
import { TokenProvider, tokenRequest } from '../kit/tokens.ts';
import { capitalisedHeaderName } from '../kit/builders/request-variants.ts';
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { TokenCache } from '../runner/tokens.ts';

// What the suite claims it sent is what arrived: the sandbox's echo endpoint reports the raw headers it received.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const http = new HttpClient({ retries: 0, baseMs: 10, maxMs: 10, timeoutMs: 5000 });

// One sandbox for the file, started in a hook: worker-scoped fixtures would give the file a worker of its own, started
// after every other self-test.
let sandbox: RunningSandbox;
let api: OperationRequests;
test.describe.configure({ mode: 'default' });
test.beforeAll(async () => {
  sandbox = await startSandbox({ tokenSecret: 'wire-test-secret' });
  const suite = loadConfig(
    sandboxTargetEnv({ url: sandbox.url, flavor: 'reference', tokenSecret: 'wire-test-secret' }),
    { repoRoot, embedded: false },
  );
  const tokens = new TokenProvider(new TokenCache(http, new Redactor()), new Redactor());
  api = new OperationRequests(suite, tokens, (what) => {
    throw new Error(what);
  });
});
test.afterAll(async () => sandbox?.close());

/** The raw headers, name and value in turn, that the sandbox's echo endpoint received. */
async function echoed(
  headers: Array<[string, string]>,
  { method = 'GET', body }: { method?: string; body?: string } = {},
) {
  const url = `${sandbox.url}/__sandbox/echo`;
  const exchange = await http.send({ label: 'echo', method, url, headers, ...(body !== undefined ? { body } : {}) });
  return (exchange.json as { rawHeaders: string[] }).rawHeaders;
}
const namesOf = (raw: string[]) => raw.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
const valuesOf = (raw: string[], name: string) =>
  raw.filter((_, i) => i % 2 === 1 && raw[i - 1]?.toLowerCase() === name);

// The suite names itself in every request (runner/http/user-agent.ts), unless the request carries a User-Agent.
const SUITE_ADDS = ['user-agent'];

for (const op of operations)
  test(`${op.id}: the mandatory headers arrive, and nothing else but HTTP framing (no Content-Length without a body)`, async () => {
    const headers = await api.headers(op.id);
    const body = op.hasBody ? '{}' : undefined;
    const names = namesOf(await echoed(headers, { method: api.method(op.id), body }));
    const framing = op.hasBody ? ['host', 'connection', 'content-length'] : ['host', 'connection'];
    const expected = headers.map(([name]) => name.toLowerCase());
    expect(names.filter((n) => !framing.includes(n)).sort()).toEqual([...expected, ...SUITE_ADDS].sort());
    expect(names).toContain('host');
  });

// That a test's requests carry its key is the proof's: a round's faults reach its tests by that key.
test('every request names the suite; a User-Agent the request carries is kept, naming no test', async () => {
  const agentOf = async (headers: Array<[string, string]>) => valuesOf(await echoed(headers), 'user-agent');
  expect(await agentOf([])).toEqual([userAgent()]);
  expect(await agentOf([['user-agent', 'curl/8']])).toEqual(['curl/8']);
  expect(testKeyIn('curl/8')).toBeUndefined();
});

test('an empty header value is sent empty, and a replaced header is sent once', async () => {
  const headers = await api.headers('assessment', { set: { 'content-type': 'text/plain', 'x-client-id': '' } });
  const raw = await echoed(headers, { method: 'POST', body: '{}' });
  expect(valuesOf(raw, 'content-type')).toEqual(['text/plain']);
  expect(valuesOf(raw, 'x-client-id')).toEqual(['']);
});

// That the operations' header names written capitalised arrive so is the kill matrix's (header-names-case-sensitive),
// as is a mandatory header left out really being absent (the clean run's refusals): here the token request and framing.
test('a token request with capitalised header names sends Authorization and Content-Type so', async () => {
  const credential = { tokenUrl: `${sandbox.url}/__sandbox/echo`, apiKey: 'a2V5OnNlY3JldA==' };
  const exchange = await http.send(tokenRequest(credential, { headerCase: capitalisedHeaderName }));
  const names = (exchange.json as { rawHeaders: string[] }).rawHeaders.filter((_, i) => i % 2 === 0);
  const capitalised = ['Authorization', 'Content-Type'];
  expect(names.filter((name) => /^(authorization|content-type)$/i.test(name)).sort()).toEqual(capitalised);
});
