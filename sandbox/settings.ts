import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { addExtraClient } from './credentials.ts';
import { faultIdsOf } from './faults.ts';
import type { Flavor } from './server.ts';
import type { FarSettings, SandboxOptions } from './types.ts';
import { variableProblems } from '../runner/config/load-config.ts';
import { configSchema, configVariables } from '../schemas/variables.ts';

/** A SANDBOX_* variable with a wrong value: the message names it and says what is expected. */
export class SandboxSettingsError extends Error {}

/** The SANDBOX_* variables of schemas/config.schema.json: their shapes are checked there, their meaning here. */
export const sandboxVariables = configVariables.filter((name) => name.startsWith('SANDBOX_'));

export type SandboxSettings = ReturnType<typeof readSandboxSettings>;

/** The variables of the far flavor (sandbox/flavors/far.ts), read with no other flavor; the embedded sandbox gets them too. */
export const farVariables = [
  'SANDBOX_LATENCY_MS',
  'SANDBOX_EVENT_DELAY_MS',
  'SANDBOX_EVENT_REDELIVERY',
  'SANDBOX_EVENT_SEED',
  'SANDBOX_RECORDS_DELAY_MS',
  'SANDBOX_TLS_CA_OUT',
] as const;

const defaultOf = (name: string): string => configSchema.properties[name]?.default ?? '';

/** The far flavor's settings; their shapes were checked against the schema, their meaning is checked here. */
function readFarSettings(
  env: Record<string, string | undefined>,
  flavor: Flavor,
): Omit<FarSettings, 'tls'> | undefined {
  const given = farVariables.filter((name) => env[name]);
  if (flavor !== 'far') {
    if (given.length > 0)
      throw new SandboxSettingsError(
        `${given.join(', ')}: ${given.length === 1 ? 'a variable' : 'variables'} of the far flavor only, and SANDBOX_FLAVOR is ${flavor}: set SANDBOX_FLAVOR=far or unset ${given.length === 1 ? 'it' : 'them'}`,
      );
    return undefined;
  }
  const value = (name: (typeof farVariables)[number]): string => env[name] || defaultOf(name);
  const [min = 0, max = min] = value('SANDBOX_EVENT_DELAY_MS').split('-').map(Number);
  if (min > max)
    throw new SandboxSettingsError(
      `SANDBOX_EVENT_DELAY_MS=${JSON.stringify(env.SANDBOX_EVENT_DELAY_MS)} is not valid: expected MIN-MAX with MIN no larger than MAX, e.g. 6000-9000`,
    );
  return {
    latencyMs: Number(value('SANDBOX_LATENCY_MS')),
    eventDelayMs: { min, max },
    redeliverEvery: Number(value('SANDBOX_EVENT_REDELIVERY')),
    seed: env.SANDBOX_EVENT_SEED || randomBytes(6).toString('hex'),
    recordsDelayMs: Number(value('SANDBOX_RECORDS_DELAY_MS')),
  };
}

/** The sandbox's settings from its SANDBOX_* variables, for `npm run sandbox` and for the embedded sandbox of a run. */
export function readSandboxSettings(env: Record<string, string | undefined>) {
  const problems = variableProblems(env, sandboxVariables);
  if (problems.length > 0) throw new SandboxSettingsError(problems.join('\n'));
  const given = faultIdsOf(env.SANDBOX_FAULTS ?? '');
  if ('problem' in given) throw new SandboxSettingsError(given.problem);
  const givenSecret = env.SANDBOX_TOKEN_SECRET || undefined;
  // Self-test hooks: extra clients for canary credentials, and a file that receives every token issued.
  const extraApiKeys = (env.SANDBOX_EXTRA_API_KEYS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const key of extraApiKeys) {
    if (!addExtraClient(key))
      throw new SandboxSettingsError(
        'SANDBOX_EXTRA_API_KEYS holds a key that is not base64("id:secret"): expected a comma-separated list of such keys',
      );
  }
  const flavor = (env.SANDBOX_FLAVOR || 'reference') as Flavor;
  const far = readFarSettings(env, flavor);
  return {
    host: env.SANDBOX_HOST || '127.0.0.1',
    port: Number(env.SANDBOX_PORT || '4010'),
    flavor,
    far,
    tlsCaOut: env.SANDBOX_TLS_CA_OUT || undefined,
    faultIds: given.ids,
    webhookUrl: env.SANDBOX_WEBHOOK_URL || undefined,
    tokenSecret: givenSecret ?? randomBytes(24).toString('hex'),
    secretGenerated: givenSecret === undefined,
    extraClients: extraApiKeys.length,
    issuedTokensFile: env.SANDBOX_ISSUED_TOKENS_FILE || undefined,
    flaky503Rate: Number(env.SANDBOX_FLAKY_503 || '0'),
    webhookWarnings: env.SANDBOX_WEBHOOK_WARNINGS !== '0',
  };
}

/** What startSandbox is given for these settings. */
export function sandboxOptionsOf(settings: SandboxSettings): SandboxOptions & { flavor: Flavor } {
  const { issuedTokensFile } = settings;
  return {
    host: settings.host,
    port: settings.port,
    flavor: settings.flavor,
    faults: settings.faultIds,
    tokenSecret: settings.tokenSecret,
    flaky503Rate: settings.flaky503Rate,
    ...(settings.webhookUrl ? { webhookUrl: settings.webhookUrl } : {}),
    webhookWarnings: settings.webhookWarnings,
    ...(settings.far ? { far: settings.far } : {}),
    ...(issuedTokensFile ? { onTokenIssued: (token: string) => appendFileSync(issuedTokensFile, `${token}\n`) } : {}),
  };
}
