import { randomBytes } from 'node:crypto';
import { isExtraApiKey } from './credentials.ts';
import { farSettingsOf, farVariables } from './far-settings.ts';
import { faultIdsOf } from './faults.ts';
import type { FarSettings, Flavor, SandboxOptions } from './types.ts';
import { variableProblems } from '../schemas/config-problems.ts';
import { configSchema, configVariables } from '../schemas/variables.ts';

// The one reader of the sandbox's SANDBOX_* variables: for `npm run sandbox` (sandbox/main.ts), from its own
// environment, and for a conformance run's embedded sandbox, from the run's variables (runner/config/resolve.ts), which
// takes the options typed and sets what the run decides (host, webhook URL, warnings).

/** SANDBOX_* variables with a wrong value: one line each, naming it and saying what is expected. */
export class SandboxSettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** The SANDBOX_* variables of schemas/config.schema.json: their shapes are checked there, their meaning here. */
export const sandboxVariables = configVariables.filter((name) => name.startsWith('SANDBOX_'));

const defaultOf = (name: string): string => configSchema.properties[name]?.default ?? '';

export interface SandboxSettings {
  options: SandboxOptions & { host: string; port: number; flavor: Flavor; faults: string[]; tokenSecret: string };
  far?: Omit<FarSettings, 'tls'>;
  tlsCaOut?: string;
  secretGenerated: boolean;
}

/** How a caller reads them: npm run sandbox (the default), or a conformance run (its far seed, its far-only variables). */
export interface SandboxReading {
  /** The far flavor's event seed when SANDBOX_EVENT_SEED is unset. */
  farSeed?: () => string;
  /** The variables refused with a flavor other than far. */
  farOnly?: readonly string[];
}

/** The sandbox's settings from its SANDBOX_* variables; wrong ones throw, one line each naming it. */
export function readSandboxSettings(
  env: Readonly<Record<string, string | undefined>>,
  reading: SandboxReading = {},
): SandboxSettings {
  const problems = variableProblems(env, sandboxVariables);
  if (problems.length > 0) throw new SandboxSettingsError(problems);
  const given = faultIdsOf(env.SANDBOX_FAULTS ?? '');
  if ('problem' in given) problems.push(given.problem);
  // Self-test hooks: extra clients for canary credentials, and a file that receives every token issued.
  const extraApiKeys = (env.SANDBOX_EXTRA_API_KEYS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!extraApiKeys.every(isExtraApiKey))
    problems.push(
      'SANDBOX_EXTRA_API_KEYS holds a key that is not base64("id:secret"): expected a comma-separated list of such keys',
    );
  const flavor = (env.SANDBOX_FLAVOR || defaultOf('SANDBOX_FLAVOR')) as Flavor;
  const far = farSettingsOf(
    env,
    flavor,
    reading.farSeed ?? (() => randomBytes(6).toString('hex')),
    reading.farOnly ?? [...farVariables, 'SANDBOX_TLS_CA_OUT'],
  );
  if ('problem' in far) problems.push(far.problem);
  if ('problem' in given || 'problem' in far || problems.length > 0) throw new SandboxSettingsError(problems);
  const givenSecret = env.SANDBOX_TOKEN_SECRET || undefined;
  const issuedTokensFile = env.SANDBOX_ISSUED_TOKENS_FILE || undefined;
  return {
    options: {
      host: env.SANDBOX_HOST || defaultOf('SANDBOX_HOST'),
      port: Number(env.SANDBOX_PORT || defaultOf('SANDBOX_PORT')),
      flavor,
      faults: given.ids,
      tokenSecret: givenSecret ?? randomBytes(24).toString('hex'),
      flaky503Rate: Number(env.SANDBOX_FLAKY_503 || '0'),
      webhookWarnings: (env.SANDBOX_WEBHOOK_WARNINGS || defaultOf('SANDBOX_WEBHOOK_WARNINGS')) !== '0',
      ...(env.SANDBOX_WEBHOOK_URL ? { webhookUrl: env.SANDBOX_WEBHOOK_URL } : {}),
      ...(far.far ? { far: far.far } : {}),
      // The trailing flavor's lag, its default included: a run lays out its workers for it (runner/config/run-config.ts).
      ...(flavor === 'trailing' || env.SANDBOX_READ_LAG_MS
        ? { readLagMs: Number(env.SANDBOX_READ_LAG_MS || defaultOf('SANDBOX_READ_LAG_MS')) }
        : {}),
      ...(extraApiKeys.length > 0 ? { extraApiKeys } : {}),
      ...(issuedTokensFile ? { issuedTokensFile } : {}),
    },
    ...(far.far ? { far: far.far } : {}),
    ...(env.SANDBOX_TLS_CA_OUT ? { tlsCaOut: env.SANDBOX_TLS_CA_OUT } : {}),
    secretGenerated: givenSecret === undefined,
  };
}
