import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import dotenv from 'dotenv';
import { variableProblems } from '../../schemas/config-problems.ts';
import { configSchema, configVariables, environmentOnlyVariables } from '../../schemas/variables.ts';
import { farVariables } from '../../sandbox/far-settings.ts';
import { flavorModule } from '../../sandbox/flavors/index.ts';
import { readSandboxSettings, SandboxSettingsError, type SandboxSettings } from '../../sandbox/settings.ts';
import { sandboxTarget, targetVariables } from '../../sandbox/target-env.ts';
import type { Flavor } from '../../sandbox/types.ts';
import type { SuiteConfig } from '../../kit/config/suite-config.ts';
import { freePort } from './free-port.ts';
import { ConfigError, loadConfig } from './load-config.ts';
import { chooseRunIdentity } from './run-identity.ts';
import type { EmbeddedTarget } from './values.ts';
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
  // Chosen once, as values, for a run that sets no SEED or RUN_TAG; the record of the run's variables shows them.
  const chosen = chooseRunIdentity();
  const record = (variables: Variables): Variables => ({
    ...variables,
    SEED: given.SEED ?? String(chosen.seed),
    RUN_TAG: given.RUN_TAG ?? chosen.runTag,
  });
  const common = {
    preflight: (given.PREFLIGHT ?? defaultOf('PREFLIGHT')) !== '0',
    reports: reportsOf(given, env),
    console: consoleOf(given, env),
    certification: certificationOf(given, repoRoot),
    given: Object.keys(given),
  };
  if (given.IDENTITY_BASE_URL) {
    return { suite: loadConfig(given, { repoRoot, embedded: false, chosen }), ...common, variables: record(given) };
  }
  // The sandbox's own settings, read by the sandbox's reader; a wrong one is named with the run's other problems.
  let settings: SandboxSettings | undefined;
  let sandboxProblems: string[] = [];
  try {
    settings = readSandboxSettings(given, { farSeed: () => `run-${given.SEED ?? chosen.seed}`, farOnly: farVariables });
  } catch (error) {
    if (!(error instanceof SandboxSettingsError)) throw error;
    sandboxProblems = error.problems;
  }
  const { sandbox, target, receiverReachable } = embeddedSandbox(settings);
  let suite: SuiteConfig;
  try {
    suite = loadConfig(given, { repoRoot, embedded: true, target, receiverReachable, chosen });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError([...new Set([...error.problems, ...sandboxProblems])]);
  }
  if (!settings) throw new ConfigError(sandboxProblems);
  const { options } = settings;
  const embedded: EmbeddedSandbox = {
    url: sandbox.url,
    ...(sandbox.anyPort ? { anyPort: true } : {}),
    options: {
      host: '127.0.0.1',
      port: sandbox.port,
      flavor: sandbox.flavor,
      faults: options.faults,
      tokenSecret: sandbox.tokenSecret,
      // The suite judges every delivery itself; a refused one after the receiver closed is not news.
      webhookWarnings: false,
      flaky503Rate: options.flaky503Rate ?? 0,
      ...(suite.webhook.mode === 'off' ? {} : { webhookUrl: suite.webhook.publicUrl }),
      ...(options.far ? { far: options.far } : {}),
      ...(options.readLagMs !== undefined ? { readLagMs: options.readLagMs } : {}),
      ...(options.extraApiKeys ? { extraApiKeys: options.extraApiKeys } : {}),
      ...(options.issuedTokensFile ? { issuedTokensFile: options.issuedTokensFile } : {}),
    },
  };
  return {
    suite,
    sandbox: embedded,
    ...common,
    variables: record({ ...targetVariables(target), ...given, SANDBOX_TOKEN_SECRET: target.SANDBOX_TOKEN_SECRET }),
  };
}

/**
 * The embedded sandbox's origin, flavor and token secret, as the sandbox's settings give them, and the sandbox as a
 * target (sandbox/target-env.ts), as values the configuration takes under the user's own variables. With settings that
 * are not valid (named next, with the configuration's other problems) the target is built with the defaults, so that
 * it adds no problem of its own.
 */
function embeddedSandbox(settings: SandboxSettings | undefined) {
  const flavor = settings?.options.flavor ?? (defaultOf('SANDBOX_FLAVOR') as Flavor);
  const setting = settings?.options.port ?? Number(defaultOf('SANDBOX_PORT'));
  // 0: any free port, as for npm run sandbox; chosen now, since the target's URLs carry it.
  const port = setting === 0 ? freePort('127.0.0.1') : setting;
  const url = `http://127.0.0.1:${port}`;
  const tokenSecret = settings?.options.tokenSecret ?? randomBytes(24).toString('hex');
  // The token secret among its values, so that it is a secret of the run's like any other (redacted wherever it appears).
  const target: EmbeddedTarget = { ...sandboxTarget({ url, flavor, tokenSecret }), SANDBOX_TOKEN_SECRET: tokenSecret };
  return {
    sandbox: { url, port, flavor, tokenSecret, anyPort: setting === 0 },
    target,
    receiverReachable: flavorModule(flavor).deliversToReceiver,
  };
}
