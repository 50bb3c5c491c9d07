import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { handedOff, handOff } from '../runner/config/hand-off.ts';
import { ConfigError } from '../runner/config/load-config.ts';
import { resolveRun } from '../runner/config/resolve.ts';
import type { RunConfig } from '../runner/config/run-config.ts';
import { makeThrowawayPki } from '../sandbox/pki.ts';
import { configSchema, configVariables } from '../schemas/variables.ts';
import { repoRoot, validEnv } from './config-env.ts';

// Every variable of schemas/config.schema.json works from .env and the environment alike: resolved from a .env that
// sets it and from an environment that sets it, the run's configuration is the same value, and it holds the variable's
// effect. A variable the schema marks environment-only is refused in .env, with a line naming it. In process: each is
// one resolution of the configuration, no run (the effects outside the resolved value are selftest/env-file-run.spec.ts's).
// Each value is also handed to a worker as a run hands it (runner/config/hand-off.ts): the worker's copy is the same
// value, for every optional member of the run's configuration in some variant.

// One folder per worker process, for its whole life: with fully parallel tests, each can run in any worker.
const work = mkdtempSync(join(tmpdir(), 'env-file-'));
process.once('exit', () => rmSync(work, { recursive: true, force: true }));

const file = (name: string, text: string): string => {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
};
const emptyEnvFile = file('empty.env', '');
const caFile = file('ca.pem', makeThrowawayPki().caCert);
const template = file('template.json', '{"customFields":{"source":"env-file"}}');
const orderTemplate = file('order.json', '{"merchantOrderId":"x","fulfillment":[{"type":"PICKUP"}],"ref":"r"}');
const ledger = file(
  'ledger.json',
  JSON.stringify({ entries: [{ requirement: 'ORD-409', reason: 'r', owner: 'o', expires: '2999-01-01' }] }),
);
const signingKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** What the run is resolved from besides the variable under test: a real target, or the embedded sandbox. */
const realTarget = { ...validEnv, SEED: '7', RUN_TAG: 'fixed' };
const embedded = { SEED: '7', RUN_TAG: 'fixed', SANDBOX_TOKEN_SECRET: 'fixed-secret' };
const reseller = {
  RESELLER_API_KEY: 'cmVzZWxsZXI6c2VjcmV0',
  RESELLER_SOURCE_CLIENT_ID: 'child-1',
  RESELLER_SHARED_CONTEXT: '{}',
};

interface Sample {
  value: string;
  /** The other variables it needs to have an effect, given by the environment either way. */
  with?: Record<string, string>;
  /** The embedded sandbox's variables are resolved without a target; the others against a real one. */
  base?: Record<string, string>;
  /** Why its effect is not in the resolved value (it is still among the variables the run lists). */
  noEffect?: string;
}

/** A valid value of every variable, other than its default. A variable added to the schema needs one here. */
const samples: Record<string, Sample> = {
  IDENTITY_BASE_URL: { value: 'https://other.example.com/identity/v2' },
  IDENTITY_TOKEN_URL: { value: 'https://other.example.com/identity/token' },
  STEPUP_BASE_URL: { value: 'https://other.example.com/step-up/v2' },
  STEPUP_TOKEN_URL: { value: 'https://other.example.com/step-up/token' },
  ORDERS_BASE_URL: { value: 'https://other.example.com/commerce' },
  ORDERS_TOKEN_URL: { value: 'https://other.example.com/orders/token' },
  API_KEY: { value: 'b3RoZXI6a2V5' },
  IDENTITY_API_KEY: { value: 'aWRlbnRpdHk6a2V5' },
  STEPUP_API_KEY: { value: 'c3RlcHVwOmtleQ==' },
  ORDERS_API_KEY: { value: 'b3JkZXJzOmtleQ==' },
  CLIENT_ID: { value: 'client-456' },
  STRATEGY_ASSESSMENT: { value: 'strategy-from-env' },
  STRATEGY_DOCUMENT_VERIFICATION: { value: 'docv-from-env' },
  ASSESSMENT_TEMPLATE: { value: template },
  DOCUMENT_VERIFICATION_TEMPLATE: { value: template },
  CASE_UPDATE_TEMPLATE: { value: template },
  STEP_UP_TEMPLATE: { value: template },
  ROUTE_ASSESSMENT: { value: 'PUT /v2/assessments' },
  ROUTE_DOCUMENT_VERIFICATION: { value: 'POST /v2/documents' },
  ROUTE_DOCUMENT_RECORDS: { value: 'GET /v2/documents/{authenticationId}' },
  ROUTE_FETCH_ASSESSMENT: { value: 'GET /v2/cases/{caseId}' },
  ROUTE_CASE_UPDATE: { value: 'PATCH /v2/cases' },
  ROUTE_STEP_UP: { value: 'POST /v2/step-ups' },
  RESELLER_API_KEY: {
    value: 'b3RoZXItcmVzZWxsZXI6cw==',
    with: { RESELLER_SOURCE_CLIENT_ID: 'child-1', RESELLER_SHARED_CONTEXT: '{}' },
  },
  RESELLER_CLIENT_ID: { value: 'reseller-456', with: reseller },
  RESELLER_SOURCE_CLIENT_ID: { value: 'child-2', with: reseller },
  RESELLER_SHARED_CONTEXT: { value: '{"childOrganizationId":"child-2","note":"é"}', with: reseller },
  SECOND_CLIENT_API_KEY: { value: 'c2Vjb25kOmtleQ==', with: { SECOND_CLIENT_ID: 'second-1' } },
  SECOND_CLIENT_ID: { value: 'second-2', with: { SECOND_CLIENT_API_KEY: 'c2Vjb25kOmtleQ==' } },
  ORDERS_NO_ENTITLEMENT_API_KEY: { value: 'bGltaXRlZDprZXk=' },
  ORDERS_NO_ENTITLEMENT_CLIENT_ID: { value: 'limited-1' },
  IDENTITY_EXPIRED_TOKEN: { value: 'expired.identity.token' },
  STEPUP_EXPIRED_TOKEN: { value: 'expired.stepup.token' },
  ORDERS_EXPIRED_TOKEN: { value: 'expired.orders.token' },
  ORDER_TEMPLATE: { value: orderTemplate },
  ORDER_ID_POINTER: { value: '/fulfillment/0/type' },
  ORDER_FULFILLMENT_POINTER: { value: '/merchantOrderId' },
  ORDER_TRIGGER_404: { value: 'header:x-respond=404' },
  ORDER_TRIGGER_500: { value: 'pointer:/ref="fail"' },
  ORDER_TRIGGER_503: { value: 'header:x-respond=503' },
  WEBHOOK_MODE: { value: 'passive' },
  WEBHOOK_LISTEN: { value: '127.0.0.1:4999' },
  WEBHOOK_PUBLIC_URL: { value: 'https://tunnel.example.com/hooks' },
  WEBHOOK_WAIT_MS: { value: '5000' },
  WEBHOOK_PASSIVE_WINDOW_MS: { value: '5000' },
  PROFILE: { value: 'certify' },
  CONFORMANCE_WORKERS: { value: '3' },
  TARGET_CONCURRENCY: { value: '8' },
  SEED: { value: '42' },
  CONFORMANCE_LEDGER: { value: ledger },
  DOCUMENT_READY_TIMEOUT_MS: { value: '1000' },
  READ_AFTER_WRITE_TIMEOUT_MS: { value: '1000' },
  HTTP_TIMEOUT_MS: { value: '1000' },
  HTTP_503_RETRIES: { value: '5' },
  HTTP_BACKOFF_BASE_MS: { value: '50' },
  RATE_LIMIT_BUDGET_MS: { value: '1000' },
  HTTP_BACKOFF_MAX_MS: { value: '100' },
  TLS_CA_FILE: { value: caFile },
  HTTPS_PROXY: { value: 'http://user:pass@proxy.example:3128' },
  https_proxy: { value: 'http://proxy.example:3129' },
  http_proxy: { value: 'http://proxy.example:3130', with: { ORDERS_BASE_URL: 'http://plain.example.com/commerce' } },
  ALL_PROXY: { value: 'http://proxy.example:3131' },
  all_proxy: { value: 'http://proxy.example:3132' },
  NO_PROXY: { value: 'api.example.com', with: { HTTPS_PROXY: 'http://proxy.example:3128' } },
  no_proxy: { value: '.example.com', with: { HTTPS_PROXY: 'http://proxy.example:3128' } },
  NODE_TLS_REJECT_UNAUTHORIZED: { value: '1', noEffect: 'Node reads it itself; the configuration only refuses 0' },
  CONCURRENCY_ROUNDS: { value: '0' },
  CONCURRENCY_CALLS: { value: '8' },
  SANDBOX_PORT: { value: '4999', base: embedded },
  SANDBOX_FLAVOR: { value: 'gateway', base: embedded },
  SANDBOX_FLAKY_503: { value: '0.2', base: embedded },
  SANDBOX_FAULTS: { value: 'update-tags-replaced', base: embedded },
  SANDBOX_HOST: { value: '0.0.0.0', base: embedded },
  SANDBOX_TOKEN_SECRET: { value: 'another-secret', base: embedded },
  SANDBOX_WEBHOOK_URL: { value: 'https://hooks.example.com/in', base: embedded },
  SANDBOX_EXTRA_API_KEYS: { value: 'ZXh0cmE6a2V5', base: embedded },
  SANDBOX_WEBHOOK_WARNINGS: { value: '0', base: embedded },
  SANDBOX_ISSUED_TOKENS_FILE: { value: join(work, 'tokens.txt'), base: embedded },
  SANDBOX_LATENCY_MS: { value: '5', base: embedded, with: { SANDBOX_FLAVOR: 'far' } },
  SANDBOX_READ_LAG_MS: { value: '5', base: embedded, with: { SANDBOX_FLAVOR: 'trailing' } },
  SANDBOX_EVENT_DELAY_MS: { value: '10-20', base: embedded, with: { SANDBOX_FLAVOR: 'far' } },
  SANDBOX_EVENT_REDELIVERY: { value: '0', base: embedded, with: { SANDBOX_FLAVOR: 'far' } },
  SANDBOX_EVENT_SEED: { value: 'seed-from-env', base: embedded, with: { SANDBOX_FLAVOR: 'far' } },
  SANDBOX_RECORDS_DELAY_MS: { value: '0', base: embedded, with: { SANDBOX_FLAVOR: 'far' } },
  SANDBOX_TLS_CA_OUT: { value: join(work, 'ca-out.pem'), base: embedded },
  REPORTS_DIR: { value: 'my-reports' },
  TEST_RESULTS_DIR: { value: 'my-test-results' },
  ALLURE_RESULTS_DIR: { value: 'my-allure-results' },
  ALLURE_HISTORY_PATH: { value: 'my-history.jsonl' },
  NIGHTLY_FAIL_ON_REGRESSION: { value: '1', noEffect: 'npm run nightly reads it (scripts/nightly.ts), not the run' },
  SPEC_URL: { value: 'https://spec.example.com/interface.md' },
  CERTIFICATION_DIR: { value: 'my-certification' },
  CERTIFY_SIGNING_KEY: { value: signingKey },
  CERTIFY_SIGNING_KEY_FILE: { value: join(work, 'key.pem') },
  CONFORMANCE_SHARD: { value: '1' },
  BLOB_DIR: { value: 'my-blobs', with: { CONFORMANCE_SHARD: '1' } },
  CONFORMANCE_QUIET: { value: '1' },
  CONFORMANCE_VERBOSE: { value: '1' },
  PREFLIGHT: { value: '0' },
  RUN_TAG: { value: 'fromenvfile' },
  ENV_FILE: { value: emptyEnvFile },
};

/** A .env line for a value: single quotes keep JSON's double quotes; a multi-line value (PEM) in double quotes. */
const envLine = (name: string, value: string): string =>
  value.includes('\n') ? `${name}="${value.replace(/\n/g, '\\n')}"` : `${name}='${value}'`;

type Env = Record<string, string | undefined>;

function resolved(env: Env): RunConfig | { problems: string[] } {
  try {
    return resolveRun(env, repoRoot);
  } catch (error) {
    if (error instanceof ConfigError) return { problems: error.problems };
    throw error;
  }
}

/** The value without the lists of variables given, which name the variable under test whatever its effect. */
const effect = (run: RunConfig) => {
  const { given: _given, variables: _variables, ...rest } = run;
  return rest;
};

/** The value as resolved, less the name of the .env file it was read from (which differs by construction). */
const read = (run: RunConfig): RunConfig => {
  const { ENV_FILE: _file, ...variables } = run.variables;
  return { ...run, given: run.given.filter((n) => n !== 'ENV_FILE'), variables };
};

for (const name of configVariables) {
  const environmentOnly = configSchema.properties[name]?.environmentOnly;
  test(`${name} resolves ${environmentOnly ? 'from the environment, and is refused in .env naming it' : 'from .env alone as from the environment alone, to the same value'}`, () => {
    const sample = samples[name];
    expect(
      sample,
      `schemas/config.schema.json has ${name}: give it a sample value in selftest/env-file.spec.ts`,
    ).toBeDefined();
    if (!sample) return;
    const { [name]: _given, ...base }: Env = { ...(sample.base ?? realTarget), ...sample.with };
    const envFile = file(`${name}.env`, `${envLine(name, sample.value)}\n`);
    const fromFile = resolved({ ...base, ENV_FILE: envFile });
    const fromEnvironment = resolved({ ...base, ENV_FILE: emptyEnvFile, [name]: sample.value });
    const without = resolved({ ...base, ENV_FILE: emptyEnvFile });
    expect('problems' in fromEnvironment ? fromEnvironment.problems : [], 'the sample is a valid value').toEqual([]);
    if (environmentOnly) {
      expect('problems' in fromFile ? fromFile.problems : [], 'refused in .env, one line naming it').toEqual([
        expect.stringMatching(new RegExp(`^${name} is set in .*: it is read from the environment only \\(`)),
      ]);
      return;
    }
    expect('problems' in fromFile ? fromFile.problems : [], 'the sample is a valid value in .env').toEqual([]);
    if ('problems' in fromFile || 'problems' in fromEnvironment || 'problems' in without) return;
    expect(read(fromFile), 'the same configuration from .env as from the environment').toEqual(read(fromEnvironment));
    expect(fromFile.given, 'given').toContain(name);
    const handed: Env = {};
    handOff(fromFile, handed);
    expect(handedOff(handed, process.pid), "a worker's copy is the same").toEqual(fromFile);
    if (sample.noEffect === undefined)
      expect(effect(fromFile), 'it changes the configuration the run takes').not.toEqual(effect(without));
    else expect(effect(fromFile), sample.noEffect).toEqual(effect(without));
  });
}

test('a .env that sets several variables read from the environment only is refused, one line each, naming each', () => {
  const envFile = file('env-only.env', 'SANDBOX_HOST=0.0.0.0\nSANDBOX_WEBHOOK_URL=https://hooks.example.com/in\n');
  const outcome = resolved({ ...embedded, ENV_FILE: envFile });
  expect('problems' in outcome ? outcome.problems.map((line) => line.split(' ')[0]) : []).toEqual([
    'SANDBOX_HOST',
    'SANDBOX_WEBHOOK_URL',
  ]);
});

test('the environment wins over .env, variable by variable', () => {
  const envFile = file('both.env', 'PROFILE=certify\nHTTP_503_RETRIES=7\n');
  const run = resolved({ ...realTarget, ENV_FILE: envFile, PROFILE: 'nightly' });
  expect('problems' in run ? run.problems : [run.suite.profile, run.suite.http.retries503]).toEqual(['nightly', 7]);
});
