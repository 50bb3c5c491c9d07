import { expect, test } from '@playwright/test';
import { readSandboxSettings, SandboxSettingsError } from '../sandbox/settings.ts';

// The far flavor's conformance, its late, crossed and repeated events over HTTPS through its CA included, is the
// proof's (portability/far, selftest/proof/plan.ts); here its settings.
test.describe("the far flavor's settings", () => {
  const problemOf = (env: Record<string, string>): string => {
    try {
      readSandboxSettings(env);
      return '';
    } catch (error) {
      if (error instanceof SandboxSettingsError) return error.message;
      throw error;
    }
  };

  test("a wrong value is refused with a line naming its variable; the far flavor's variables with another flavor too", () => {
    expect(problemOf({ SANDBOX_FLAVOR: 'far', SANDBOX_EVENT_DELAY_MS: '9000-6000' })).toMatch(
      /^SANDBOX_EVENT_DELAY_MS="9000-6000" is not valid: expected MIN-MAX/,
    );
    expect(problemOf({ SANDBOX_FLAVOR: 'far', SANDBOX_EVENT_DELAY_MS: '6s' })).toMatch(/^SANDBOX_EVENT_DELAY_MS=/);
    expect(problemOf({ SANDBOX_FLAVOR: 'far', SANDBOX_LATENCY_MS: '-1' })).toMatch(/^SANDBOX_LATENCY_MS=/);
    expect(problemOf({ SANDBOX_FLAVOR: 'far', SANDBOX_RECORDS_DELAY_MS: 'soon' })).toMatch(
      /^SANDBOX_RECORDS_DELAY_MS=/,
    );
    expect(problemOf({ SANDBOX_FLAVOR: 'far', SANDBOX_EVENT_REDELIVERY: 'often' })).toMatch(
      /^SANDBOX_EVENT_REDELIVERY=/,
    );
    expect(problemOf({ SANDBOX_FLAVOR: 'reference', SANDBOX_LATENCY_MS: '150' })).toBe(
      'SANDBOX_LATENCY_MS: a variable of the far flavor only, and SANDBOX_FLAVOR is reference: set SANDBOX_FLAVOR=far or unset it',
    );
    expect(problemOf({ SANDBOX_FLAVOR: 'far', SANDBOX_LATENCY_MS: '0', SANDBOX_EVENT_DELAY_MS: '500' })).toBe('');
  });

  test('the defaults: 150 ms, events 6 to 9 s late, every third twice, records after 2 s', () => {
    const { far } = readSandboxSettings({ SANDBOX_FLAVOR: 'far', SANDBOX_EVENT_SEED: 'x' });
    expect(far).toEqual({
      latencyMs: 150,
      eventDelayMs: { min: 6000, max: 9000 },
      redeliverEvery: 3,
      seed: 'x',
      recordsDelayMs: 2000,
    });
    expect(readSandboxSettings({}).far, 'no far settings for another flavor').toBeUndefined();
  });
});
