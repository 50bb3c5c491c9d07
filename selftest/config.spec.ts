import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { loadConfig } from '../runner/config/load-config.ts';
import { handedOff, handOff } from '../runner/config/hand-off.ts';
import { resolveRun } from '../runner/config/resolve.ts';
import { problemsOf, repoRoot, validEnv } from './config-env.ts';
import { configSchema, configVariables } from '../schemas/variables.ts';
import { flavors } from '../sandbox/server.ts';
import { configurationPage, envExample, routeTable, variableTable } from '../scripts/env-example.ts';

/** What resolving the run refuses, its variables read from `env` and a .env file holding `text`. */
function resolveProblems(env: Record<string, string | undefined>, text: string): string[] {
  const file = test.info().outputPath(`${Math.random()}.env`);
  writeFileSync(file, text);
  return problemsOf({ ...env, ENV_FILE: file }, (given) => resolveRun(given, repoRoot));
}

test('a complete environment loads, with the documented defaults', () => {
  const config = loadConfig(validEnv, { repoRoot, embedded: false });
  expect(config.services.identity.baseUrl, 'a trailing slash is trimmed').toBe(validEnv.IDENTITY_BASE_URL.slice(0, -1));
  expect(config.services.orders.tokenUrl, 'orders use the identity token endpoint').toBe(validEnv.IDENTITY_TOKEN_URL);
  expect(config.routes.assessment).toEqual({ method: 'POST', path: '/assessment' });
  expect(config.routes.documentRecords.path).toContain('{authenticationId}');
  expect([config.profile, config.http.rateLimitBudgetMs, config.reseller]).toEqual(['gate', 300_000, undefined]);
  // A real target cannot post to this machine's loopback: without WEBHOOK_PUBLIC_URL the event checks are not configured.
  const publicUrl = 'http://127.0.0.1:4455/webhooks';
  expect(config.webhook).toMatchObject({ mode: 'off', host: '127.0.0.1', port: 4455, publicUrl });
  expect(config.webhook.offReason).toContain('WEBHOOK_PUBLIC_URL is not set');
  const reachable = { ...validEnv, WEBHOOK_PUBLIC_URL: 'https://tunnel.example.com/hooks' };
  expect(loadConfig(reachable, { repoRoot, embedded: false }).webhook.mode).toBe('active');
  expect(config.secrets).toContain(validEnv.API_KEY);
  expect(config.orders.template).toHaveProperty('merchantOrderId');
});

// The variant, the settings (as .env lines; an empty value unsets) and the one line the run stops with, which begins
// with the variable it names.
const reseller = 'RESELLER_API_KEY=a2V5\nRESELLER_SOURCE_CLIENT_ID=c\nRESELLER_SHARED_CONTEXT=';
const badValues: Array<[string, string, RegExp]> = [
  ['a URL without scheme', 'IDENTITY_BASE_URL=api.example.com', /^IDENTITY_BASE_URL="api.example.com" .*https URL/],
  ['a route without method', 'ROUTE_ASSESSMENT=/assessment', /^ROUTE_ASSESSMENT=.*expected "METHOD \/path"/],
  ['a route missing its placeholder', 'ROUTE_DOCUMENT_RECORDS=GET /r', /^ROUTE_DOCUMENT_RECORDS=.*\{authentic/],
  ['a placeholder where none belongs', 'ROUTE_CASE_UPDATE=POST /{caseId}', /^ROUTE_CASE_UPDATE=.*without \{pl/],
  ['invalid JSON', `${reseller}{child: 1}`, /^RESELLER_SHARED_CONTEXT=.*expected valid JSON/],
  ['JSON that is not an object', `${reseller}["a"]`, /^RESELLER_SHARED_CONTEXT=.*expected JSON object sent as/],
  ['a template that is no JSON file', 'STEP_UP_TEMPLATE=fixtures/none.json', /^STEP_UP_TEMPLATE=.*readable JSON/],
  ['a reseller key without its child', 'RESELLER_API_KEY=k\nRESELLER_SHARED_CONTEXT={}', /^RESELLER_SOURCE_CLI/],
  ['a missing required variable', 'CLIENT_ID=', /^CLIENT_ID is not set: expected Value sent in x-client-id/],
  ['an unknown profile', 'PROFILE=strict', /^PROFILE=.*expected one of gate, certify, certify-strict, nightly/],
  ['a port out of range', 'WEBHOOK_LISTEN=127.0.0.1:70000', /^WEBHOOK_LISTEN=.*port from 1 to 65535/],
  ['a malformed trigger', 'ORDER_TRIGGER_404=status=404', /^ORDER_TRIGGER_404=.*expected header:<name>=<value> or/],
  ['a trigger with invalid JSON', 'ORDER_TRIGGER_500=pointer:/x={bad', /^ORDER_TRIGGER_500=.*valid JSON value/],
  ['a pointer outside the template', 'ORDER_ID_POINTER=/orderNo', /^ORDER_ID_POINTER=.*pointer to a string in/],
  ['a whole number out of range', 'CONFORMANCE_WORKERS=0', /^CONFORMANCE_WORKERS="0" .*a whole number from 1 /],
  ['a concurrency that is no number', 'TARGET_CONCURRENCY=many', /^TARGET_CONCURRENCY="many" .*a whole number from 1 /],
  ['a secret with spaces, never shown', 'API_KEY=my key hunter2', /^API_KEY=\[REDACTED, 14 characters\](?!.*hunter)/],
  ['a token with spaces, never shown', 'ORDERS_EXPIRED_TOKEN=two words', /^ORDERS_EXPIRED_TOKEN=\[REDA(?!.*two words)/],
  ['workers over the cap', 'TARGET_CONCURRENCY=4\nCONFORMANCE_WORKERS=6', /^CONFORMANCE_WORKERS="6" .*most TARGET_/],
];

test('a wrong value stops the run with one line naming the variable, from the environment and from .env', () => {
  const mismatches: string[] = [];
  for (const [variant, lines, says] of badValues) {
    const set = lines.split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]);
    const env: Record<string, string | undefined> = { ...validEnv };
    for (const [name, value] of set) env[name as string] = value || undefined;
    const checks = { environment: problemsOf(env) };
    if (set.every(([, value]) => value)) {
      for (const [name] of set) delete env[name as string];
      const text = set.map(([name, value]) => `${name}='${value}'\n`).join('');
      Object.assign(checks, { '.env': resolveProblems(env, text) });
    }
    for (const [from, problems] of Object.entries(checks))
      if (problems.length !== 1 || !says.test(problems[0] as string))
        mismatches.push(
          `${variant}, from ${from}: expected one line matching ${says}, got ${JSON.stringify(problems)}`,
        );
  }
  expect(mismatches).toEqual([]);
});

test('the environment wins over .env, variable by variable, and a worker of this runner, no other process, is handed the same value; a .env setting an environment-only variable is refused naming it', () => {
  const both = test.info().outputPath('both.env');
  writeFileSync(both, 'PROFILE=certify\nHTTP_503_RETRIES=7\n');
  const run = resolveRun({ ...validEnv, ENV_FILE: both, PROFILE: 'nightly' }, repoRoot);
  expect([run.suite.profile, run.suite.http.retries503]).toEqual(['nightly', 7]);
  const handed: Record<string, string | undefined> = {};
  handOff(run, handed);
  expect(handedOff(handed, process.pid), "a worker's copy is the same").toEqual(run);
  expect(handedOff(handed, process.pid + 1), "another process's: not this runner's worker").toBeUndefined();
  expect(handedOff({}, process.pid), 'outside a run: nothing handed off').toBeUndefined();
  expect(resolveProblems({}, 'SANDBOX_HOST=0.0.0.0\n')).toEqual([
    expect.stringMatching(/^SANDBOX_HOST is set in .*: it is read from the environment only/),
  ]);
  expect(configSchema.properties['SANDBOX_FLAVOR']?.enum, 'the flavors of sandbox/flavors/').toEqual([...flavors]);
});

test('every variable the suite, the sandbox and the scripts read is declared in the configuration schema (or set by CI, the shell, Playwright or Node)', () => {
  const setByOthers = new Set(['CI', 'GITHUB_STEP_SUMMARY', 'PATH', 'TEST_WORKER_INDEX', 'NODE_COMPILE_CACHE']);
  const dirs = ['kit', 'runner', 'fixtures', 'reporters', 'sandbox', 'scripts', 'tests', 'catalog', 'schemas'];
  const files = dirs.flatMap((dir) =>
    readdirSync(join(repoRoot, dir), { recursive: true })
      .map(String)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(repoRoot, dir, name)),
  );
  const read = new Set<string>();
  for (const file of [...files, join(repoRoot, 'playwright.config.ts')])
    for (const match of readFileSync(file, 'utf8').matchAll(
      /\b[a-zA-Z]*[eE]nv(?:\[['"]([A-Z][A-Z0-9_]+)['"]\]|\.([A-Z][A-Z0-9_]+))/g,
    ))
      read.add(match[1] ?? match[2] ?? '');
  const undeclared = [...read].filter((name) => !configVariables.includes(name) && !setByOthers.has(name)).sort();
  expect(undeclared, 'read but not in schemas/config.schema.json').toEqual([]);
});

test('.env.example and the variable and route tables of docs/configuration.md document every variable and are up to date', () => {
  const example = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
  const page = readFileSync(configurationPage, 'utf8');
  const block = (name: string) => page.split(`<!-- ${name} -->\n`)[1]?.split(`\n<!-- /${name} -->`)[0];
  const variables = block('variables') ?? '';
  const missing = configVariables.filter(
    (name) => !example.includes(`# ${name}=`) || !variables.includes(`| \`${name}\``),
  );
  expect(missing, 'variables missing from .env.example or docs/configuration.md').toEqual([]);
  expect(example, 'regenerate with npm run env:example').toBe(envExample());
  expect(variables, 'regenerate with npm run env:example').toBe(variableTable());
  expect(block('routes'), 'regenerate with npm run env:example').toBe(routeTable());
});
