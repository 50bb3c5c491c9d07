import { operations } from '../../catalog/catalog.ts';
import { configSchema, configVariables } from '../../schemas/variables.ts';
import type { ResolvedConfig } from '../../runner/config/resolve.ts';
import { Redactor } from '../../kit/redact.ts';

export const MASK = '[REDACTED]';

export interface ConfiguredVariable {
  name: string;
  /** The value the run used; [REDACTED] for a secret; absent when unset. */
  value?: string;
  source: 'set' | 'default' | 'unset';
  secret: boolean;
}

/**
 * Every configuration variable with the value the run used, secrets shown as [REDACTED]: the configuration part
 * of a certification bundle. The embedded sandbox's token secret is listed too, masked.
 */
export function redactedConfiguration(
  resolved: Pick<ResolvedConfig, 'config' | 'variables' | 'sandbox'>,
): ConfiguredVariable[] {
  const redactor = new Redactor(resolved.config.secrets);
  const routeDefaults = new Map(
    operations.filter((o) => o.routeEnv).map((o) => [o.routeEnv as string, o.defaultRoute as string]),
  );
  const rows: ConfiguredVariable[] = configVariables.map((name) => {
    const secret = configSchema.properties[name]?.secret ?? false;
    const given = resolved.variables[name];
    const fallback = configSchema.properties[name]?.default ?? routeDefaults.get(name);
    if (given !== undefined) return { name, value: secret ? MASK : redactor.text(given), source: 'set', secret };
    if (fallback !== undefined) return { name, value: fallback, source: 'default', secret };
    return { name, source: 'unset', secret };
  });
  if (resolved.sandbox) rows.push({ name: 'SANDBOX_TOKEN_SECRET', value: MASK, source: 'set', secret: true });
  return rows;
}
