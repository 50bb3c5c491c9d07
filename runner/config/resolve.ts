import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import dotenv from 'dotenv';
import { faultIdsOf } from '../../sandbox/faults.ts';
import { flavorModule } from '../../sandbox/flavors/index.ts';
import { flavors } from '../../sandbox/server.ts';
import { farVariables } from '../../sandbox/settings.ts';
import { sandboxTargetEnv } from '../../sandbox/target-env.ts';
import { ConfigError, loadConfig } from './load-config.ts';
import type { SuiteConfig } from '../../kit/config/suite-config.ts';

type Env = Record<string, string | undefined>;

export interface EmbeddedSandbox {
  url: string;
  /** SANDBOX_* settings of the sandbox that playwright.config.ts starts in the runner (runner/config/embedded-sandbox.ts). */
  env: Record<string, string>;
}

export interface ResolvedConfig {
  config: SuiteConfig;
  sandbox?: EmbeddedSandbox;
  /** The variables the configuration was read from: .env, then the environment, over the embedded sandbox's settings. */
  variables: Record<string, string>;
}

/** The variables as the suite reads them: .env (ENV_FILE), with the process environment winning over it. */
export function readEnvironment(processEnv: Env, repoRoot: string): Env {
  const envFile = processEnv.ENV_FILE ?? '.env';
  const fileEnv: Env = {};
  if (existsSync(resolve(repoRoot, envFile)))
    dotenv.config({ path: resolve(repoRoot, envFile), processEnv: fileEnv as Record<string, string>, quiet: true });
  else if (processEnv.ENV_FILE)
    throw new ConfigError([
      `ENV_FILE=${JSON.stringify(envFile)} is not valid: expected the path of a readable .env file`,
    ]);
  return { ...fileEnv, ...processEnv };
}

/**
 * Reads .env (the process environment wins), fixes the values that workers must share (seed, run tag, sandbox
 * secret) into the process environment, starts from the embedded sandbox's settings when no target is
 * configured, and validates everything. Throws ConfigError before any test runs.
 */
export function resolveConfig(processEnv: Env, repoRoot: string): ResolvedConfig {
  const env = readEnvironment(processEnv, repoRoot);

  processEnv.SEED ??= env.SEED ?? String(Math.floor(Math.random() * 1e9));
  processEnv.RUN_TAG ??= env.RUN_TAG ?? randomBytes(4).toString('hex');
  env.SEED = processEnv.SEED;
  env.RUN_TAG = processEnv.RUN_TAG;

  const embedded = !env.IDENTITY_BASE_URL;
  if (!embedded) return { config: loadConfig(env, { repoRoot, embedded }), variables: withoutUnset(env) };

  processEnv.SANDBOX_TOKEN_SECRET ??= randomBytes(24).toString('hex');
  const port = env.SANDBOX_PORT ?? '4010';
  // An invalid value is reported by the configuration's own validation, which runs next.
  const flavor = flavors.find((f) => f === env.SANDBOX_FLAVOR) ?? 'reference';
  const url = `http://127.0.0.1:${port}`;
  const given = faultIdsOf(env.SANDBOX_FAULTS ?? '');
  if ('problem' in given) throw new ConfigError([given.problem]);
  const targetEnv = sandboxTargetEnv({ url, flavor, tokenSecret: processEnv.SANDBOX_TOKEN_SECRET });
  const variables = { ...targetEnv, ...withoutUnset(env) };
  const config = loadConfig(variables, {
    repoRoot,
    embedded,
    receiverReachable: flavorModule(flavor).deliversToReceiver,
  });
  return {
    config,
    variables,
    sandbox: {
      url,
      env: {
        SANDBOX_HOST: '127.0.0.1',
        SANDBOX_PORT: port,
        SANDBOX_FLAVOR: flavor,
        SANDBOX_TOKEN_SECRET: processEnv.SANDBOX_TOKEN_SECRET,
        // The suite judges every delivery itself; a refused one after the receiver closed is not news.
        SANDBOX_WEBHOOK_WARNINGS: '0',
        ...(env.SANDBOX_FAULTS ? { SANDBOX_FAULTS: env.SANDBOX_FAULTS } : {}),
        ...(env.SANDBOX_FLAKY_503 ? { SANDBOX_FLAKY_503: env.SANDBOX_FLAKY_503 } : {}),
        ...Object.fromEntries(farVariables.flatMap((name) => (env[name] ? [[name, env[name]]] : []))),
        // The far flavor's event delays follow the run's seed, so that SEED replays them too.
        ...(flavor === 'far' && !env.SANDBOX_EVENT_SEED ? { SANDBOX_EVENT_SEED: `run-${env.SEED}` } : {}),
        ...(config.webhook.mode === 'off' ? {} : { SANDBOX_WEBHOOK_URL: config.webhook.publicUrl }),
      },
    },
  };
}

function withoutUnset(env: Env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''),
  );
}
