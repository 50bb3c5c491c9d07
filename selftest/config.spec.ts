import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConfigError, loadConfig } from '../runner/config/load-config.ts';
import { handedOff, handOff } from '../runner/config/hand-off.ts';
import { resolveRun } from '../runner/config/resolve.ts';
import { problemsOf, repoRoot, validEnv } from './config-env.ts';
import { conformanceProjects, projectNames } from '../runner/config/projects.ts';
import { configSchema, configVariables } from '../schemas/variables.ts';
import { flavors } from '../sandbox/server.ts';
import { configurationPage, envExample, routeTable, variableTable } from '../scripts/env-example.ts';

const work = mkdtempSync(join(tmpdir(), 'config-'));
process.once('exit', () => rmSync(work, { recursive: true, force: true }));
const envFile = (name: string, text: string): string => {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
};
/** What resolving the run refuses, its variables read from `env` and the .env file `file`. */
function resolveProblems(env: Record<string, string | undefined>, file: string): string[] {
  try {
    resolveRun({ ...env, ENV_FILE: file }, repoRoot);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

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
    test(`a wrong value stops the run with one line naming the variable, from the environment and from .env: ${bad.variant}`, () => {
      const checks = [problemsOf({ ...validEnv, ...bad.env })];
      const set = Object.entries(bad.env).filter((e): e is [string, string] => e[1] !== undefined);
      if (set.length === Object.keys(bad.env).length) {
        const base: Record<string, string | undefined> = { ...validEnv };
        for (const [name] of set) delete base[name];
        const text = set.map(([name, value]) => `${name}='${value}'`).join('\n');
        checks.push(resolveProblems(base, envFile(`${bad.variable}-${checks.length}.env`, `${text}\n`)));
      }
      for (const problems of checks) {
        expect(problems, 'exactly one problem reported').toHaveLength(1);
        expect(problems[0]).toMatch(new RegExp(`^${bad.variable}[= ]`));
        expect(problems[0]).toMatch(bad.says);
      }
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

  test('the environment wins over .env, variable by variable, and a worker is handed the same value; a .env setting an environment-only variable is refused naming it', () => {
    const both = envFile('both.env', 'PROFILE=certify\nHTTP_503_RETRIES=7\n');
    const run = resolveRun({ ...validEnv, ENV_FILE: both, PROFILE: 'nightly' }, repoRoot);
    expect([run.suite.profile, run.suite.http.retries503]).toEqual(['nightly', 7]);
    const handed: Record<string, string | undefined> = {};
    handOff(run, handed);
    expect(handedOff(handed, process.pid), "a worker's copy is the same").toEqual(run);
    const only = envFile('env-only.env', 'SANDBOX_HOST=0.0.0.0\n');
    expect(resolveProblems({}, only)).toEqual([
      expect.stringMatching(/^SANDBOX_HOST is set in .*: it is read from the environment only/),
    ]);
  });

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
});
