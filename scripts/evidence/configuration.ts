import { operations } from '../../catalog/catalog.ts';
import { configSchema, configVariables } from '../../schemas/variables.ts';
import type { RunConfig } from '../../runner/config/run-config.ts';
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
 * of a certification bundle (the embedded sandbox's token secret among them, masked).
 */
export function redactedConfiguration(resolved: Pick<RunConfig, 'suite' | 'variables'>): ConfiguredVariable[] {
  const redactor = new Redactor(resolved.suite.secrets);
  const routeDefaults = new Map(
    operations.filter((o) => o.routeEnv).map((o) => [o.routeEnv as string, o.defaultRoute as string]),
  );
  return configVariables.map((name): ConfiguredVariable => {
    const secret = configSchema.properties[name]?.secret ?? false;
    const given = resolved.variables[name];
    const fallback = configSchema.properties[name]?.default ?? routeDefaults.get(name);
    if (given !== undefined) return { name, value: secret ? MASK : redactor.text(given), source: 'set', secret };
    if (fallback !== undefined) return { name, value: fallback, source: 'default', secret };
    return { name, source: 'unset', secret };
  });
}
