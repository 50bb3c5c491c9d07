import { test as base, expect } from '@playwright/test';
import { requirement } from '../catalog/catalog.ts';
import { faults } from '../sandbox/faults.ts';
import { runProofOnce, type ProofResult } from './proof/run-proof.ts';

// The suite proves itself: clean sandbox passes everything, the alternative implementation passes (portability),
// and every fault of the sandbox is caught by a check citing the requirement it violates (kill matrix).
const test = base.extend<object, { proof: ProofResult }>({
  proof: [async ({}, use) => use(await runProofOnce({ runId: process.env.SELFTEST_RUN_ID ?? String(process.pid) })), { scope: 'worker', timeout: 600_000 }],
});
test.describe.configure({ mode: 'default' });

const listed = (items: readonly unknown[]) => JSON.stringify(items, null, 2);

test('the clean reference sandbox passes every check, with no warning, and every MUST requirement is exercised and passed', ({ proof }) => {
  const { clean } = proof.analysis;
  expect(clean.tests, 'the whole suite ran').toBeGreaterThan(0);
  expect(clean.problems, `failures or warnings against the clean sandbox:\n${listed(clean.problems)}`).toEqual([]);
  expect(clean.mustNotPassed, 'MUST requirements with no passing check against the clean sandbox').toEqual([]);
});

test('the alternative, gateway, rate-limited and detached implementations pass the whole suite with no failure and no warning outside an erratum: no check asserts what the spec leaves open', ({ proof }) => {
  const { portability } = proof.analysis;
  expect(portability.tests, 'the whole suite ran').toBeGreaterThan(0);
  for (const target of ['portability/alternative', 'portability/gateway', 'portability/rate-limited', 'portability/detached']) expect(portability.testsByTarget[target], `the whole suite ran against ${target}`).toBeGreaterThan(0);
  const failures = portability.problems.filter((p) => p.outcome !== 'warning');
  expect(failures, `checks that fail or are blocked against a correct implementation that differs from ours:\n${listed(failures)}`).toEqual([]);
  // The rate-limited target proves something only if the suite met its limits everywhere: token endpoints, operations, orders.
  for (const kind of ['tokens', 'operations', 'orders'] as const) expect(proof.rateLimited?.[kind], `429 answers of the rate-limited target on ${kind}`).toBeGreaterThan(0);
  const warnedOutsideErrata = portability.problems.filter((p) => p.outcome === 'warning' && !requirement(p.requirement).erratum);
  expect(warnedOutsideErrata, 'a SHOULD warning against a correct implementation must come from an erratum of the document').toEqual([]);
});

test('every MUST requirement of the catalog has a sandbox fault', ({ proof }) => {
  expect(proof.analysis.mustWithoutFault).toEqual([]);
});

for (const fault of faults) {
  test(`fault ${fault.id} is caught by a check citing ${fault.requirement}`, ({ proof }) => {
    const row = proof.analysis.kills.find((k) => k.fault === fault.id);
    expect(row, 'the fault was part of the proof run').toBeDefined();
    expect(row?.testsRun, `tests citing ${fault.requirement} ran against the faulty sandbox`).toBeGreaterThan(0);
    expect(row?.caughtBy, `${fault.id} survived: ${fault.description}`).not.toEqual([]);
  });
}
