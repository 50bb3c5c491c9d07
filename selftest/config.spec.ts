import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConfigError, loadConfig } from '../runner/config/load-config.ts';
import { resolveRun } from '../runner/config/resolve.ts';
import { preflight, type PreflightParts } from '../runner/preflight.ts';
import type { TokenSource } from '../kit/tokens.ts';
import { problemsOf, repoRoot, validEnv } from './config-env.ts';
import { conformanceProjects, projectNames } from '../runner/config/projects.ts';
import { configSchema, configVariables } from '../schemas/variables.ts';
import { flavors } from '../sandbox/server.ts';
import { sandboxTarget, targetVariables } from '../sandbox/target-env.ts';
import { configurationPage, envExample, routeTable, variableTable } from '../scripts/env-example.ts';

test.describe('configuration', () => {
  test('CONFORMANCE_WORKERS: 2 by default, one worker per project; more spread over the projects, identity on half, the webhook flows on four at most; run-end, last, on one', () => {
    const workersOf = (env: Record<string, string>) => {
      const suite = loadConfig({ ...validEnv, ...env }, { repoRoot, embedded: false });
      return {
        total: suite.workers,
        perProject: Object.fromEntries(conformanceProjects(suite, 'tests').map((p) => [p.name, p.workers])),
      };
    };
    const everyProject = (count: number, identity = count) =>
      Object.fromEntries(
        projectNames.map((name) => [name, name === 'run-end' ? 1 : name === 'identity' ? identity : count]),
      );
    expect(workersOf({})).toEqual({ total: 2, perProject: everyProject(1) });
    expect(workersOf({ CONFORMANCE_WORKERS: '12' })).toEqual({ total: 12, perProject: everyProject(4, 6) });
    expect(workersOf({ CONFORMANCE_WORKERS: '15' })).toEqual({
      total: 15,
      perProject: { ...everyProject(5, 8), webhooks: 4 },
    });
    expect(problemsOf({ ...validEnv, CONFORMANCE_WORKERS: '0' })).toEqual([
      expect.stringMatching(/^CONFORMANCE_WORKERS="0" is not valid: expected a whole number from 1 /),
    ]);
  });

  test('a complete environment loads, with the documented defaults', () => {
    const config = loadConfig(validEnv, { repoRoot, embedded: false });
    expect(config.services.identity.baseUrl, 'a trailing slash is trimmed').toBe(
      'https://api.example.com/business/identity-proofing/v1',
    );
    expect(config.services.orders.tokenUrl, 'orders use the identity token endpoint by default').toBe(
      validEnv.IDENTITY_TOKEN_URL,
    );
    expect(config.routes.assessment).toEqual({ method: 'POST', path: '/assessment' });
    expect(config.routes.documentRecords.path).toContain('{authenticationId}');
    expect(config.profile).toBe('gate');
    // A real target cannot post to this machine's loopback: without WEBHOOK_PUBLIC_URL the event checks are not configured.
    expect(config.webhook).toMatchObject({
      mode: 'off',
      host: '127.0.0.1',
      port: 4455,
      publicUrl: 'http://127.0.0.1:4455/webhooks',
    });
    expect(config.webhook.offReason).toContain('WEBHOOK_PUBLIC_URL is not set');
    expect(
      loadConfig({ ...validEnv, WEBHOOK_PUBLIC_URL: 'https://tunnel.example.com/hooks' }, { repoRoot, embedded: false })
        .webhook.mode,
      'a receiver URL the target can reach turns active mode on',
    ).toBe('active');
    expect(config.http.rateLimitBudgetMs).toBe(300_000);
    expect(config.reseller, 'no reseller without RESELLER_API_KEY').toBeUndefined();
    expect(config.secrets).toContain(validEnv.API_KEY);
    expect(config.orders.template).toHaveProperty('merchantOrderId');
  });

  test('overrides replace the defaults', () => {
    const config = loadConfig(
      {
        ...validEnv,
        ROUTE_ASSESSMENT: 'PUT /v2/assess',
        PROFILE: 'certify',
        SEED: '42',
        RESELLER_API_KEY: 'cmVzZWxsZXI6c2VjcmV0',
        RESELLER_SOURCE_CLIENT_ID: 'child-1',
        RESELLER_SHARED_CONTEXT: '{"childOrganizationId":"child-1"}',
      },
      { repoRoot, embedded: false },
    );
    expect(config.routes.assessment).toEqual({ method: 'PUT', path: '/v2/assess' });
    expect(config.profile).toBe('certify');
    expect(config.seed).toBe(42);
    expect(config.reseller).toMatchObject({
      clientId: 'client-123',
      sourceClientId: 'child-1',
      sharedContext: { childOrganizationId: 'child-1' },
    });
  });

  const badValues: Array<{ variant: string; env: Record<string, string | undefined>; variable: string; says: RegExp }> =
    [
      {
        variant: 'a URL without scheme',
        env: { IDENTITY_BASE_URL: 'api.example.com/v1' },
        variable: 'IDENTITY_BASE_URL',
        says: /"api\.example\.com\/v1" is not valid: expected an http or https URL \(Base URL/,
      },
      {
        variant: 'an ftp URL',
        env: { STEPUP_TOKEN_URL: 'ftp://login.example.com/v1/token' },
        variable: 'STEPUP_TOKEN_URL',
        says: /expected an http or https URL \(Token endpoint/,
      },
      {
        variant: 'a route without method',
        env: { ROUTE_ASSESSMENT: '/assessment' },
        variable: 'ROUTE_ASSESSMENT',
        says: /expected "METHOD \/path" \(Method and path of 4\.2/,
      },
      {
        variant: 'a route missing its placeholder',
        env: { ROUTE_DOCUMENT_RECORDS: 'GET /records' },
        variable: 'ROUTE_DOCUMENT_RECORDS',
        says: /\{authenticationId\}/,
      },
      {
        variant: 'a placeholder where none belongs',
        env: { ROUTE_CASE_UPDATE: 'POST /cases/{caseId}' },
        variable: 'ROUTE_CASE_UPDATE',
        says: /without \{placeholders\}/,
      },
      {
        variant: 'invalid JSON',
        env: { RESELLER_API_KEY: 'a2V5', RESELLER_SOURCE_CLIENT_ID: 'c', RESELLER_SHARED_CONTEXT: '{child: 1}' },
        variable: 'RESELLER_SHARED_CONTEXT',
        says: /expected valid JSON/,
      },
      {
        variant: 'JSON that is not an object',
        env: { RESELLER_API_KEY: 'a2V5', RESELLER_SOURCE_CLIENT_ID: 'c', RESELLER_SHARED_CONTEXT: '["a"]' },
        variable: 'RESELLER_SHARED_CONTEXT',
        says: /expected JSON object sent as sharedContext/,
      },
      {
        variant: 'a request template that is not a readable JSON object',
        env: { STEP_UP_TEMPLATE: 'fixtures/no-such-template.json' },
        variable: 'STEP_UP_TEMPLATE',
        says: /expected a readable JSON file holding an object/,
      },
      {
        variant: 'a reseller key without its child client',
        env: { RESELLER_API_KEY: 'a2V5', RESELLER_SHARED_CONTEXT: '{}' },
        variable: 'RESELLER_SOURCE_CLIENT_ID',
        says: /is not set: .*required when RESELLER_API_KEY is set/,
      },
      {
        variant: 'a missing required variable',
        env: { CLIENT_ID: undefined },
        variable: 'CLIENT_ID',
        says: /CLIENT_ID is not set: expected Value sent in x-client-id/,
      },
      {
        variant: 'an unknown profile',
        env: { PROFILE: 'strict' },
        variable: 'PROFILE',
        says: /expected one of gate, certify, certify-strict, nightly/,
      },
      {
        variant: 'a port out of range',
        env: { WEBHOOK_LISTEN: '127.0.0.1:70000' },
        variable: 'WEBHOOK_LISTEN',
        says: /port from 1 to 65535/,
      },
      {
        variant: 'a malformed trigger',
        env: { ORDER_TRIGGER_404: 'status=404' },
        variable: 'ORDER_TRIGGER_404',
        says: /expected header:<name>=<value> or pointer:\/path=<value> \(How to make the order endpoint answer 404/,
      },
      {
        variant: 'a trigger with invalid JSON',
        env: { ORDER_TRIGGER_500: 'pointer:/x={bad' },
        variable: 'ORDER_TRIGGER_500',
        says: /valid JSON value/,
      },
      {
        variant: 'a missing order template',
        env: { ORDER_TEMPLATE: 'fixtures/no-such-template.json' },
        variable: 'ORDER_TEMPLATE',
        says: /readable JSON file/,
      },
      {
        variant: 'a pointer outside the template',
        env: { ORDER_ID_POINTER: '/orderNumber' },
        variable: 'ORDER_ID_POINTER',
        says: /pointer to a string in the order template/,
      },
    ];

  for (const bad of badValues) {
    test(`a wrong value stops the run with one line naming the variable: ${bad.variant}`, () => {
      const problems = problemsOf({ ...validEnv, ...bad.env });
      expect(problems, 'exactly one problem reported').toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^${bad.variable}[= ]`));
      expect(problems[0]).toMatch(bad.says);
    });
  }

  test('a secret is never shown in a configuration error', () => {
    const secret = 'not a valid key because of spaces';
    const problems = problemsOf({ ...validEnv, API_KEY: secret, ORDERS_EXPIRED_TOKEN: 'two words' });
    expect(problems.join('\n')).toContain('API_KEY=[REDACTED, 33 characters]');
    expect(problems.join('\n')).not.toContain(secret);
    expect(problems.join('\n')).not.toContain('two words');
  });

  test('several wrong values are all reported at once', () => {
    expect(problemsOf({ ...validEnv, IDENTITY_BASE_URL: 'nope', PROFILE: 'x', ROUTE_STEP_UP: 'POST' })).toHaveLength(3);
  });

  // Through the real command, a bad value stops the run before any test, naming it: the run of run-reports.spec.ts
  // stopped by its configuration.

  test('SANDBOX_FLAVOR offers exactly the flavors of sandbox/flavors/', () => {
    expect(configSchema.properties['SANDBOX_FLAVOR']?.enum).toEqual([...flavors]);
  });

  test('every variable the suite, the sandbox and the scripts read is declared in the configuration schema (or set by CI, the shell, Playwright or Node)', () => {
    const setByOthers = new Set(['CI', 'GITHUB_STEP_SUMMARY', 'PATH', 'TEST_WORKER_INDEX', 'NODE_COMPILE_CACHE']);
    const read = new Set<string>();
    const scan = (file: string): void => {
      for (const match of readFileSync(file, 'utf8').matchAll(
        /\b[a-zA-Z]*[eE]nv(?:\[['"]([A-Z][A-Z0-9_]+)['"]\]|\.([A-Z][A-Z0-9_]+))/g,
      ))
        read.add(match[1] ?? match[2] ?? '');
    };
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(dir, entry.name));
        else if (entry.name.endsWith('.ts')) scan(join(dir, entry.name));
      }
    };
    for (const dir of ['kit', 'runner', 'fixtures', 'reporters', 'sandbox', 'scripts', 'tests', 'catalog', 'schemas'])
      walk(join(repoRoot, dir));
    scan(join(repoRoot, 'playwright.config.ts'));
    const undeclared = [...read].filter((name) => !configVariables.includes(name) && !setByOthers.has(name)).sort();
    expect(undeclared, 'read but not in schemas/config.schema.json').toEqual([]);
  });

  test('.env.example documents every variable of the configuration schema and is up to date', () => {
    const text = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
    for (const name of configVariables) expect(text, `${name} is documented`).toContain(`# ${name}=`);
    expect(text, 'regenerate with npm run env:example').toBe(envExample());
  });

  test('the variable and route tables of docs/configuration.md list every variable of the configuration schema and every routed operation, and are up to date', () => {
    const page = readFileSync(configurationPage, 'utf8');
    const block = (name: string) => {
      const start = page.indexOf(`<!-- ${name} -->\n`);
      const end = page.indexOf(`\n<!-- /${name} -->`);
      expect(start >= 0 && end > start, `docs/configuration.md has a <!-- ${name} --> block`).toBe(true);
      return page.slice(start + `<!-- ${name} -->\n`.length, end);
    };
    const variables = block('variables');
    for (const name of configVariables) expect(variables, `${name} is in the table`).toContain(`| \`${name}\``);
    expect(variables, 'regenerate with npm run env:example').toBe(variableTable());
    expect(block('routes'), 'regenerate with npm run env:example').toBe(routeTable());
  });

  test('SANDBOX_PORT=0: the embedded sandbox takes a free port, which its target carries; an origin of it that does not answer is named by SANDBOX_PORT, not by URL variables the user never set', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'any-port-'));
    const envFile = join(dir, 'empty.env');
    writeFileSync(envFile, '');
    try {
      const run = resolveRun({ SANDBOX_PORT: '0', ENV_FILE: envFile }, repoRoot);
      const port = run.sandbox?.options.port ?? 0;
      expect(port, 'a port of its own').toBeGreaterThan(0);
      expect(run.sandbox?.url).toBe(`http://127.0.0.1:${port}`);
      expect(run.suite.services.identity.baseUrl.startsWith(`http://127.0.0.1:${port}/`)).toBe(true);
      // Nothing listens there (the sandbox was never started): the host is refused before any token is asked for.
      const tokens = {
        get: () => Promise.reject(new Error('no token is asked for of a host that cannot be reached')),
      } as unknown as TokenSource;
      const parts = { targetIsHere: true, embeddedGiven: new Set(run.given) } as unknown as PreflightParts;
      const lines = (await preflight(run.suite, tokens, parts)).map((finding) => JSON.stringify(finding)).join('\n');
      expect(lines).toContain(`http://127.0.0.1:${port} (SANDBOX_PORT)`);
      expect(lines).not.toMatch(/IDENTITY_BASE_URL|STEPUP_TOKEN_URL/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the embedded sandbox’s target is taken as values, the same configuration as its variables read as text; a variable the user sets wins over the target’s', () => {
    const common = { ENV_FILE: '/dev/null', SEED: '7', RUN_TAG: 'run7', SANDBOX_TOKEN_SECRET: 's'.repeat(32) };
    for (const flavor of ['reference', 'alternative', 'gateway'] as const) {
      const run = resolveRun({ ...common, SANDBOX_FLAVOR: flavor, SANDBOX_PORT: '5999' }, repoRoot);
      const url = run.sandbox?.url ?? '';
      const asText = loadConfig(
        { ...common, ...targetVariables(sandboxTargetOf(url, flavor)) },
        { repoRoot, embedded: true },
      );
      expect({ ...run.suite, secrets: [...run.suite.secrets].sort() }, flavor).toEqual({
        ...asText,
        secrets: [...asText.secrets].sort(),
      });
    }
    const mine = resolveRun(
      { ...common, CLIENT_ID: 'mine', ROUTE_STEP_UP: 'PUT /mine', ORDER_TRIGGER_404: 'header:x-mine=1' },
      repoRoot,
    ).suite;
    expect(mine.clientId).toBe('mine');
    expect(mine.routes.stepUp).toEqual({ method: 'PUT', path: '/mine' });
    expect(mine.orders.triggers['404']).toEqual({ kind: 'header', name: 'x-mine', value: '1' });
    expect(mine.orders.triggers['503'], "the target's own where the user sets none").toEqual({
      kind: 'header',
      name: 'x-sandbox-respond',
      value: '503',
    });
    expect(problemsOfRun({ ...common, ROUTE_STEP_UP: 'bad' }), 'a wrong variable is named').toEqual([
      expect.stringMatching(/^ROUTE_STEP_UP="bad" is not valid/),
    ]);
    expect(
      problemsOfRun({ ...common, SECOND_CLIENT_ID: 'conformance-client' }),
      "judged with the target's CLIENT_ID",
    ).toEqual([
      expect.stringMatching(
        /^SECOND_CLIENT_ID="conformance-client" is not valid: expected a client id other than CLIENT_ID/,
      ),
    ]);
  });
});

function sandboxTargetOf(url: string, flavor: 'reference' | 'alternative' | 'gateway') {
  return { ...sandboxTarget({ url, flavor, tokenSecret: 's'.repeat(32) }), SANDBOX_TOKEN_SECRET: 's'.repeat(32) };
}

function problemsOfRun(env: Record<string, string>): string[] {
  try {
    resolveRun(env, repoRoot);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
