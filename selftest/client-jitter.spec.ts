import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { startJitterClient } from '../examples/reseller-client-jitter/client.ts';
import { openCertification } from '../scripts/client/session.ts';
import type { ScenarioStep } from '../scripts/client/judge.ts';

// The second example client (full-jitter backoff, fresh ids per call, both children at once) certified 10 times at
// once, each run with its own seed, sandbox and children, in this process: every one must end "conformant", on a busy
// machine. The rule's false-failure rate over millions of draws is docs/client-retry.md's (client-retry.spec.ts).
const scenario = (
  JSON.parse(readFileSync(new URL('../examples/reseller-client/scenario.json', import.meta.url), 'utf8')) as {
    steps: ScenarioStep[];
  }
).steps;
const runs = 10;

async function certifyOnce(seed: number) {
  const certification = await openCertification({ flavor: 'reference', inject503: 1, webhooks: true, scenario });
  const client = await startJitterClient(certification.env, { seed });
  try {
    await client.done;
    await certification.deliveriesIdle();
  } finally {
    await client.close();
  }
  return { seed, run: (await certification.finish()).run, delays: client.delays };
}

test(`the full-jitter reseller client certifies in ${runs} seeded runs`, async () => {
  test.setTimeout(120_000);
  const results = await Promise.all(Array.from({ length: runs }, (_, i) => certifyOnce(i + 1)));
  expect(
    results.filter((r) => !r.run.conformant).map((r) => `seed ${r.seed}: ${r.run.words}; ${r.run.reasons.join('; ')}`),
  ).toEqual([]);
  // What the runs covered, from the seeded draws: six retries each, and in every run a delay under 100 ms or one
  // shorter than the delay before it, both of which the earlier pairwise rule failed.
  expect(results.filter((r) => r.delays.length !== 6).map((r) => r.seed)).toEqual([]);
  const pairwiseRuleWouldFail = results.filter((r) =>
    r.delays.some((d, i) => d < 100 || (i > 0 && d < 0.8 * (r.delays[i - 1] as number))),
  );
  expect(pairwiseRuleWouldFail.length).toBe(runs);
});
