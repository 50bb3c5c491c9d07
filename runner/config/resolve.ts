import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import dotenv from 'dotenv';
import { variableProblems } from '../../schemas/config-problems.ts';
import { configSchema, configVariables, environmentOnlyVariables } from '../../schemas/variables.ts';
import { isExtraApiKey } from '../../sandbox/credentials.ts';
import { farSettingsOf } from '../../sandbox/far-settings.ts';
import { faultIdsOf } from '../../sandbox/faults.ts';
import { flavorModule, flavors } from '../../sandbox/flavors/index.ts';
import { sandboxTargetEnv } from '../../sandbox/target-env.ts';
import type { Flavor } from '../../sandbox/types.ts';
import { ConfigError, loadConfig } from './load-config.ts';
import type { Certification, EmbeddedSandbox, RunConfig, RunConsole, RunReports } from './run-config.ts';

// The one owner of the configuration: .env (or ENV_FILE) and the environment are read here, once per process, into
// the run's typed configuration (RunConfig, runner/config/run-config.ts). Nothing else reads a variable of
// schemas/config.schema.json; the workers take the runner's value (runner/config/hand-off.ts), not a reading of their own.

type Env = Readonly<Record<string, string | undefined>>;
/** The variables as given: each set one, by name (.env and the environment, the environment winning). */
export type Variables = Readonly<Record<string, string>>;

// The folder a run is started from: .env and every relative path of a setting are read there, and reports written
// there (the clone's root under its npm scripts; the user's own folder for the installed command), never the package's.
export const REPO_ROOT = process.cwd();

const defaultOf = (name: string): string => {
  const value = configSchema.properties[name]?.default;
  if (value === undefined) throw new Error(`schemas/config.schema.json gives ${name} no default`);
  return value;
};

/**
 * The variables of the configuration schema as given: .env (ENV_FILE), with the environment winning over it; an empty
 * value is unset. A variable read from the environment only (the schema's `environmentOnly`) that .env sets is refused,
 * one line naming it.
 */
export function readVariables(env: Env = process.env, repoRoot: string = REPO_ROOT): Variables {
  const envFile = env.ENV_FILE || defaultOf('ENV_FILE');
  const path = resolve(repoRoot, envFile);
  let fromFile: Record<string, string> = {};
  if (existsSync(path)) fromFile = dotenv.parse(readFileSync(path));
  else if (env.ENV_FILE)
    throw new ConfigError([
      `ENV_FILE=${JSON.stringify(envFile)} is not valid: expected the path of a readable .env file`,
    ]);
  const refused = environmentOnlyVariables.filter((name) => fromFile[name] !== undefined);
  if (refused.length > 0)
    throw new ConfigError(
      refused.map(
        (name) =>
          `${name} is set in ${envFile}, which cannot give it: it is read from the environment only (${configSchema.properties[name]?.environmentOnly}); set it in the environment, or remove it from ${envFile}`,
      ),
    );
  const given: Record<string, string> = {};
  for (const name of configVariables) {
    const value = env[name] ?? fromFile[name];
    if (value !== undefined && value !== '') given[name] = value;
  }
  return given;
}

/**
 * Some variables alone, read as a run reads them and checked against the schema: for the commands that need no target
 * (npm run report, openapi, certify-client, merge-reports). Throws ConfigError, one line per variable.
 */
export function resolveVariables(
  names: readonly string[],
  env: Env = process.env,
  repoRoot: string = REPO_ROOT,
): Variables {
  const given = readVariables(env, repoRoot);
  const problems = variableProblems(given, names);
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.fromEntries(names.flatMap((name) => (given[name] === undefined ? [] : [[name, given[name]]])));
}

/** Where a run's reports go (REPORTS_DIR, TEST_RESULTS_DIR, ALLURE_*, SPEC_URL, CONFORMANCE_SHARD, BLOB_DIR). */
export function reportsOf(given: Variables, env: Env = process.env): RunReports {
  return {
    dir: given.REPORTS_DIR ?? defaultOf('REPORTS_DIR'),
    testResultsDir: given.TEST_RESULTS_DIR ?? defaultOf('TEST_RESULTS_DIR'),
    // Next to the other reports when REPORTS_DIR moves them, so that parallel runs never clear each other's results.
    allureResultsDir:
      given.ALLURE_RESULTS_DIR ?? (given.REPORTS_DIR ? join(given.REPORTS_DIR, 'allure-results') : 'allure-results'),
    allureHistoryPath: given.ALLURE_HISTORY_PATH ?? defaultOf('ALLURE_HISTORY_PATH'),
    ...(given.SPEC_URL ? { specUrl: given.SPEC_URL } : {}),
    ...(given.CONFORMANCE_SHARD === '1' ? { shard: { blobDir: given.BLOB_DIR ?? defaultOf('BLOB_DIR') } } : {}),
    // Set by GitHub Actions in the environment of a step, never a setting of the user's.
    ...(env.GITHUB_STEP_SUMMARY ? { stepSummary: env.GITHUB_STEP_SUMMARY } : {}),
  };
}

/** The variables of reportsOf, for the commands that read only them. */
export const reportVariables = [
  'REPORTS_DIR',
  'TEST_RESULTS_DIR',
  'ALLURE_RESULTS_DIR',
  'ALLURE_HISTORY_PATH',
  'SPEC_URL',
  'CONFORMANCE_SHARD',
  'BLOB_DIR',
] as const;

/** Where npm run certify writes its bundle and what signs it (CERTIFICATION_DIR, CERTIFY_SIGNING_KEY, _FILE). */
export function certificationOf(given: Variables, repoRoot: string = REPO_ROOT): Certification {
  return {
    dir: given.CERTIFICATION_DIR ? resolve(given.CERTIFICATION_DIR) : join(repoRoot, defaultOf('CERTIFICATION_DIR')),
    ...(given.CERTIFY_SIGNING_KEY ? { signingKey: given.CERTIFY_SIGNING_KEY } : {}),
    ...(given.CERTIFY_SIGNING_KEY_FILE ? { signingKeyFile: given.CERTIFY_SIGNING_KEY_FILE } : {}),
  };
}

/** The variables of certificationOf. */
export const certificationVariables = ['CERTIFICATION_DIR', 'CERTIFY_SIGNING_KEY', 'CERTIFY_SIGNING_KEY_FILE'] as const;

function consoleOf(given: Variables, env: Env): RunConsole {
  return {
    quiet: given.CONFORMANCE_QUIET === '1',
    verbose: given.CONFORMANCE_VERBOSE === '1',
    // Set by CI systems in the environment, never a setting of the user's.
    ci: Boolean(env.CI),
  };
}

/**
 * The run's configuration: the variables read once (readVariables), the seed, run tag and embedded sandbox's token
 * secret chosen once (the workers take them with the rest), the embedded sandbox's options built when no target is
 * configured, and everything validated. Throws ConfigError, one line per variable, before any test runs.
 */
export function resolveRun(env: Env = process.env, repoRoot: string = REPO_ROOT): RunConfig {
  const given = readVariables(env, repoRoot);
  const chosen = {
    SEED: given.SEED ?? String(randomInt(1e9)),
    RUN_TAG: given.RUN_TAG ?? randomBytes(4).toString('hex'),
  };
  const common = {
    preflight: (given.PREFLIGHT ?? defaultOf('PREFLIGHT')) !== '0',
    reports: reportsOf(given, env),
    console: consoleOf(given, env),
    certification: certificationOf(given, repoRoot),
    given: Object.keys(given),
  };
  if (given.IDENTITY_BASE_URL) {
    const variables = { ...given, ...chosen };
    return { suite: loadConfig(variables, { repoRoot, embedded: false }), ...common, variables };
  }
  const { sandbox, variables, receiverReachable } = embeddedSandbox({ ...given, ...chosen });
  const suite = loadConfig(variables, { repoRoot, embedded: true, receiverReachable });
  const problems: string[] = [];
  const faults = faultIdsOf(given.SANDBOX_FAULTS ?? '');
  if ('problem' in faults) problems.push(faults.problem);
  const far = farSettingsOf(given, sandbox.flavor, () => `run-${chosen.SEED}`);
  if ('problem' in far) problems.push(far.problem);
  const extraApiKeys = (given.SANDBOX_EXTRA_API_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  if (!extraApiKeys.every(isExtraApiKey))
    problems.push(
      'SANDBOX_EXTRA_API_KEYS holds a key that is not base64("id:secret"): expected a comma-separated list of such keys',
    );
  if ('problem' in faults || 'problem' in far || problems.length > 0) throw new ConfigError(problems);
  const embedded: EmbeddedSandbox = {
    url: sandbox.url,
    options: {
      host: '127.0.0.1',
      port: sandbox.port,
      flavor: sandbox.flavor,
      faults: faults.ids,
      tokenSecret: sandbox.tokenSecret,
      // The suite judges every delivery itself; a refused one after the receiver closed is not news.
      webhookWarnings: false,
      flaky503Rate: Number(given.SANDBOX_FLAKY_503 ?? '0'),
      ...(suite.webhook.mode === 'off' ? {} : { webhookUrl: suite.webhook.publicUrl }),
      ...(far.far ? { far: far.far } : {}),
      ...(extraApiKeys.length > 0 ? { extraApiKeys } : {}),
      ...(given.SANDBOX_ISSUED_TOKENS_FILE ? { issuedTokensFile: given.SANDBOX_ISSUED_TOKENS_FILE } : {}),
    },
  };
  return { suite, sandbox: embedded, ...common, variables };
}

/**
 * The embedded sandbox's origin, flavor and token secret, and the variables that target it (sandbox/target-env.ts)
 * under the user's own. A flavor or port that is not valid is named by the configuration's validation, which runs
 * next; the target's URLs are built with the defaults meanwhile, so that they add no problem of their own.
 */
function embeddedSandbox(given: Variables) {
  const flavor = (flavors as readonly string[]).includes(given.SANDBOX_FLAVOR ?? '')
    ? (given.SANDBOX_FLAVOR as Flavor)
    : (defaultOf('SANDBOX_FLAVOR') as Flavor);
  const portText = variableProblems(given, ['SANDBOX_PORT']).length === 0 ? given.SANDBOX_PORT : undefined;
  const port = Number(portText ?? defaultOf('SANDBOX_PORT'));
  const url = `http://127.0.0.1:${port}`;
  const tokenSecret = given.SANDBOX_TOKEN_SECRET ?? randomBytes(24).toString('hex');
  return {
    sandbox: { url, port, flavor, tokenSecret },
    // The token secret among them, so that it is a secret of the run's like any other (redacted wherever it appears).
    variables: { ...sandboxTargetEnv({ url, flavor, tokenSecret }), ...given, SANDBOX_TOKEN_SECRET: tokenSecret },
    receiverReachable: flavorModule(flavor).deliversToReceiver,
  };
}
