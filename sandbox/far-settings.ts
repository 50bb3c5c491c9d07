import { configSchema } from '../schemas/variables.ts';
import type { FarSettings, Flavor } from './types.ts';

/** The variables of the far flavor (sandbox/flavors/far.ts), read with no other flavor. */
export const farVariables = [
  'SANDBOX_LATENCY_MS',
  'SANDBOX_EVENT_DELAY_MS',
  'SANDBOX_EVENT_REDELIVERY',
  'SANDBOX_EVENT_SEED',
  'SANDBOX_RECORDS_DELAY_MS',
] as const;

export type FarVariable = (typeof farVariables)[number];

/**
 * The far flavor's settings from its variables, whose shapes the configuration schema has checked; their meaning is
 * checked here: npm run sandbox (sandbox/settings.ts) and the run's configuration (runner/config/resolve.ts) both take
 * them so. Undefined for another flavor, or the one line that says what is wrong. `seed` gives the event seed when
 * SANDBOX_EVENT_SEED is unset; `farOnly`, the variables refused with another flavor.
 */
export function farSettingsOf(
  given: Readonly<Record<string, string | undefined>>,
  flavor: Flavor,
  seed: () => string,
  farOnly: readonly string[] = farVariables,
): { far?: Omit<FarSettings, 'tls'> } | { problem: string } {
  const set = farOnly.filter((name) => given[name]);
  if (flavor !== 'far') {
    if (set.length === 0) return {};
    return {
      problem: `${set.join(', ')}: ${set.length === 1 ? 'a variable' : 'variables'} of the far flavor only, and SANDBOX_FLAVOR is ${flavor}: set SANDBOX_FLAVOR=far or unset ${set.length === 1 ? 'it' : 'them'}`,
    };
  }
  const value = (name: FarVariable): string => given[name] || (configSchema.properties[name]?.default ?? '');
  const [min = 0, max = min] = value('SANDBOX_EVENT_DELAY_MS').split('-').map(Number);
  if (min > max)
    return {
      problem: `SANDBOX_EVENT_DELAY_MS=${JSON.stringify(given.SANDBOX_EVENT_DELAY_MS)} is not valid: expected MIN-MAX with MIN no larger than MAX, e.g. 6000-9000`,
    };
  return {
    far: {
      latencyMs: Number(value('SANDBOX_LATENCY_MS')),
      eventDelayMs: { min, max },
      redeliverEvery: Number(value('SANDBOX_EVENT_REDELIVERY')),
      seed: given.SANDBOX_EVENT_SEED || seed(),
      recordsDelayMs: Number(value('SANDBOX_RECORDS_DELAY_MS')),
    },
  };
}
