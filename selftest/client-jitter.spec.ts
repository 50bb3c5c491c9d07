import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { startJitterClient } from '../examples/reseller-client-jitter/client.ts';
import { openCertification } from '../scripts/client/session.ts';
import type { ScenarioStep } from '../scripts/client/judge.ts';

// The second example client (full-jitter backoff, fresh ids per call, both children at once) certified 50 times, each
// run with its own seed, its own sandbox and its own children, in this process: every one must end "conformant". It
// proves that the retry rule and the rest of the judge pass this correct client over 50 different jitter draws, on a
// busy machine; the rule's false-failure rate over millions of draws is docs/client-retry.md's.
const scenario = (
  JSON.parse(readFileSync(new URL('../examples/reseller-client/scenario.json', import.meta.url), 'utf8')) as {
    steps: ScenarioStep[];
  }
).steps;
const runs = 50;
const atOnce = 10;

async function certifyOnce(seed: number) {
  const certification = await openCertification({ flavor: 'reference', inject503: 1, webhooks: true, scenario });
  const client = await startJitterClient(certification.env, { seed });
  try {
    await client.done;
    await certification.deliveriesIdle();
  } finally {
    await client.close();
  }
  const outcome = await certification.finish();
  return {
    seed,
    conformant: outcome.run.conformant,
    result: outcome.run.words,
    reasons: outcome.run.reasons,
    delays: client.delays,
  };
}

test(`the full-jitter reseller client certifies in ${runs} seeded runs`, async () => {
  test.setTimeout(200_000);
  const results: Array<Awaited<ReturnType<typeof certifyOnce>>> = [];
  for (let first = 1; first <= runs; first += atOnce) {
    results.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(atOnce, runs - first + 1) }, (_, i) => certifyOnce(first + i)),
      )),
    );
  }
  expect(results.length).toBe(runs);
  expect(
    results.filter((r) => !r.conformant).map((r) => `seed ${r.seed}: ${r.result}; ${r.reasons.join('; ')}`),
  ).toEqual([]);
  // What the runs covered, from the seeded draws: six retries each, and in every run a delay under 100 ms or one
  // shorter than the delay before it, both of which the earlier pairwise rule failed.
  expect(results.filter((r) => r.delays.length !== 6).map((r) => r.seed)).toEqual([]);
  const pairwiseRuleWouldFail = results.filter((r) =>
    r.delays.some((d, i) => d < 100 || (i > 0 && d < 0.8 * (r.delays[i - 1] as number))),
  );
  expect(pairwiseRuleWouldFail.length).toBe(runs);
});
