import { expect, test } from '@playwright/test';
import { readSandboxSettings } from '../sandbox/settings.ts';

// The far flavor's conformance, its late, crossed and repeated events over HTTPS through its CA included, is the
// proof's (portability/far, selftest/proof/plan.ts); here its settings.
test.describe("the far flavor's settings", () => {
  const far = (env: Record<string, string>) => () => readSandboxSettings({ SANDBOX_FLAVOR: 'far', ...env });

  test("a wrong value is refused with a line naming its variable; the far flavor's variables with another flavor too", () => {
    expect(far({ SANDBOX_EVENT_DELAY_MS: '9000-6000' })).toThrow(
      /^SANDBOX_EVENT_DELAY_MS="9000-6000" is not valid: expected MIN-MAX/,
    );
    for (const [name, value] of Object.entries({
      SANDBOX_EVENT_DELAY_MS: '6s',
      SANDBOX_LATENCY_MS: '-1',
      SANDBOX_RECORDS_DELAY_MS: 'soon',
      SANDBOX_EVENT_REDELIVERY: 'often',
    }))
      expect(far({ [name]: value }), name).toThrow(new RegExp(`^${name}=`));
    expect(far({ SANDBOX_FLAVOR: 'reference', SANDBOX_LATENCY_MS: '150' })).toThrow(
      /^SANDBOX_LATENCY_MS: a variable of the far flavor only, and SANDBOX_FLAVOR is reference: set SANDBOX_FLAVOR=far or unset it$/,
    );
    expect(far({ SANDBOX_LATENCY_MS: '0', SANDBOX_EVENT_DELAY_MS: '500' })).not.toThrow();
  });

  test('the defaults: 150 ms, events 6 to 9 s late, every third twice, records after 2 s', () => {
    expect(far({ SANDBOX_EVENT_SEED: 'x' })().far).toEqual({
      latencyMs: 150,
      eventDelayMs: { min: 6000, max: 9000 },
      redeliverEvery: 3,
      seed: 'x',
      recordsDelayMs: 2000,
    });
    expect(readSandboxSettings({}).far, 'no far settings for another flavor').toBeUndefined();
  });
});
