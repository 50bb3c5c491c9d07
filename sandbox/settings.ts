import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { addExtraClient } from './credentials.ts';
import { faultIdsOf } from './faults.ts';
import type { Flavor } from './server.ts';
import type { SandboxOptions } from './types.ts';
import { variableProblems } from '../harness/config/load-config.ts';
import { configVariables } from '../harness/config/variables.ts';

/** A SANDBOX_* variable with a wrong value: the message names it and says what is expected. */
export class SandboxSettingsError extends Error {}

/** The SANDBOX_* variables of schemas/config.schema.json: their shapes are checked there, their meaning here. */
export const sandboxVariables = configVariables.filter((name) => name.startsWith('SANDBOX_'));

export type SandboxSettings = ReturnType<typeof readSandboxSettings>;

/** The sandbox's settings from its SANDBOX_* variables, for `npm run sandbox` and for the embedded sandbox of a run. */
export function readSandboxSettings(env: Record<string, string | undefined>) {
  const problems = variableProblems(env, sandboxVariables);
  if (problems.length > 0) throw new SandboxSettingsError(problems.join('\n'));
  const given = faultIdsOf(env.SANDBOX_FAULTS ?? '');
  if ('problem' in given) throw new SandboxSettingsError(given.problem);
  const givenSecret = env.SANDBOX_TOKEN_SECRET || undefined;
  // Self-test hooks: extra clients for canary credentials, and a file that receives every token issued.
  const extraApiKeys = (env.SANDBOX_EXTRA_API_KEYS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const key of extraApiKeys) {
    if (!addExtraClient(key)) throw new SandboxSettingsError('SANDBOX_EXTRA_API_KEYS holds a key that is not base64("id:secret"): expected a comma-separated list of such keys');
  }
  return {
    host: env.SANDBOX_HOST || '127.0.0.1',
    port: Number(env.SANDBOX_PORT || '4010'),
    flavor: (env.SANDBOX_FLAVOR || 'reference') as Flavor,
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
    ...(issuedTokensFile ? { onTokenIssued: (token: string) => appendFileSync(issuedTokensFile, `${token}\n`) } : {}),
  };
}
