import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../runner/config/load-config.ts';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** The variables a run against a real target needs, all valid: the base the configuration self-tests vary. */
export const validEnv = {
  IDENTITY_BASE_URL: 'https://api.example.com/business/identity-proofing/v1/',
  IDENTITY_TOKEN_URL: 'https://login.example.com/identity/v1/token',
  STEPUP_BASE_URL: 'https://api.example.com/business/step-up/v1',
  STEPUP_TOKEN_URL: 'https://login.example.com/stepup/v1/token',
  ORDERS_BASE_URL: 'https://api.example.com/commerce',
  API_KEY: 'c2VjcmV0LWNsaWVudDpzZWNyZXQtdmFsdWU=',
  CLIENT_ID: 'client-123',
};

/** What `load` (by default a real target's configuration) refuses in these variables; empty when it loads. */
export function problemsOf(
  env: Record<string, string | undefined>,
  load = (given: typeof env): unknown => loadConfig(given, { repoRoot, embedded: false }),
): string[] {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
