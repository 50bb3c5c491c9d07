import { test as base, expect } from '@playwright/test';
import { requirement } from '../catalog/catalog.ts';
import { optionalSettings } from '../runner/config/optional-settings.ts';
import { faults } from '../sandbox/faults.ts';
import { judgedProfiles } from './proof/analyse.ts';
import { runProofOnce, type ProofResult } from './proof/run-proof.ts';

// The suite proves itself: clean sandbox passes everything, the correct implementations that differ from it pass
// (portability) and are judged conformant under gate and certify, and every fault of the sandbox is caught by a check citing the requirement it violates (kill matrix).
const test = base.extend<object, { proof: ProofResult }>({
  proof: [
    // eslint-disable-next-line no-restricted-properties -- the run id selftest/playwright.config.ts hands its workers
    async ({}, use) => use(await runProofOnce({ runId: process.env.SELFTEST_RUN_ID ?? String(process.pid) })),
    // It waits for the child run's end, an event: a green proof takes a few minutes on a quiet machine and several
    // times that on a busy one. A timeout would start the whole proof again in a new worker, on the machine that was
    // already too slow for it, so the bound is generous.
    { scope: 'worker', timeout: 1_800_000 },
  ],
});
test.describe.configure({ mode: 'default' });

const listed = (items: readonly unknown[]) => JSON.stringify(items, null, 2);

test('the clean reference sandbox passes every check, with no warning, and every MUST requirement is exercised and passed', ({
  proof,
}) => {
  const { clean } = proof.analysis;
  expect(clean.tests, 'the whole suite ran').toBeGreaterThan(0);
  expect(clean.problems, `failures or warnings against the clean sandbox:\n${listed(clean.problems)}`).toEqual([]);
  expect(clean.mustNotPassed, 'MUST requirements with no passing check against the clean sandbox').toEqual([]);
});

const portabilityTargets = [
  'alternative',
  'gateway',
  'rate-limited',
  'detached',
  'lenient',
  'proto3',
  'document-step-up',
  'far',
  'normalising',
  'case-insensitive-ids',
  'trailing',
].map((flavor) => `portability/${flavor}`);

test('the alternative, gateway, rate-limited, detached, lenient, proto3, document-step-up, far, normalising, case-insensitive-ids and trailing implementations pass the whole suite with no failure and no warning outside an erratum: no check asserts what the spec leaves open', ({
  proof,
}) => {
  const { portability } = proof.analysis;
  expect(portability.tests, 'the whole suite ran').toBeGreaterThan(0);
  for (const target of portabilityTargets)
    expect(portability.testsByTarget[target], `the whole suite ran against ${target}`).toBeGreaterThan(0);
  const failures = portability.problems.filter((p) => p.outcome !== 'warning');
  expect(
    failures,
    `checks that fail or are blocked against a correct implementation that differs from ours:\n${listed(failures)}`,
  ).toEqual([]);
  // The rate-limited target proves something only if the suite met its limits everywhere: token endpoints, operations, orders.
  for (const kind of ['tokens', 'operations', 'orders'] as const)
    expect(proof.rateLimited?.[kind], `429 answers of the rate-limited target on ${kind}`).toBeGreaterThan(0);
  // The far target likewise only if its events reached the suite late, crossed and some twice (the run's receiver
  // listens from the preflight to the run's end, so every event of the run reaches it).
  const delivered = (proof.farQueue ?? [])
    .filter((e) => e.deliveredAt.length > 0)
    .sort((a, b) => (a.deliveredAt[0] ?? 0) - (b.deliveredAt[0] ?? 0));
  expect(
    delivered.filter((e) => e.deliveredAt.length === 2).length,
    'events the far target delivered twice',
  ).toBeGreaterThan(0);
  expect(
    delivered.some((e, i) => i > 0 && e.seq < (delivered[i - 1]?.seq ?? 0)),
    'events the far target delivered out of the order they were sent',
  ).toBe(true);
  const warnedOutsideErrata = portability.problems.filter(
    (p) => p.outcome === 'warning' && !requirement(p.requirement).erratum,
  );
  expect(
    warnedOutsideErrata,
    'a SHOULD warning against a correct implementation must come from an erratum of the document',
  ).toEqual([]);
});

// One run per correct target, judged under both profiles: the marks are the same, only the verdict differs.
const exercisingEveryMust = ['clean', ...portabilityTargets.filter((name) => name !== 'portability/detached')];
for (const target of exercisingEveryMust) {
  for (const profile of judgedProfiles) {
    test(`${target}, whose configuration exercises every MUST, is conformant under ${profile}`, ({ proof }) => {
      const verdict = proof.analysis.verdicts[target]?.[profile];
      expect(verdict, `${target} was judged under ${profile}`).toBeDefined();
      expect(
        verdict?.outcome,
        `${target} under ${profile}: ${verdict?.result}\n${listed(verdict?.reasons ?? [])}`,
      ).toBe('conformant');
    });
  }
}

test('against the clean and every correct target whose events reach the receiver, no wait ended on its window while an event that could have answered it was held', ({
  proof,
}) => {
  for (const target of exercisingEveryMust) {
    const waits = proof.analysis.waits[target];
    expect(waits, `${target}: its receiver wrote its waits when the run ended`).toBeDefined();
    expect(waits?.heldAnswers, `${target}: waits that ended on their window while their event was held`).toEqual([]);
  }
});

test("portability/detached (webhooks out of the receiver's reach, no optional setting) passes incomplete under gate and is not conformant under certify, for its rows not configured alone", ({
  proof,
}) => {
  const judged = proof.analysis.verdicts['portability/detached'];
  if (!judged) throw new Error('the detached target was not judged');
  const { gate, certify } = judged;
  expect(gate.outcome, `gate: ${gate.result}\n${listed(gate.reasons)}`).toBe('passed-incomplete');
  expect(certify.outcome, `certify: ${certify.result}`).toBe('not-conformant');
  for (const verdict of [gate, certify]) {
    expect([...verdict.mustFailed, ...verdict.mustBlocked], 'no MUST failed or blocked').toEqual([]);
    const events = verdict.mustNotConfigured.filter((row) => requirement(row.id).area === 'webhooks');
    expect(events.length, 'event rows not configured').toBeGreaterThan(0);
    expect(
      events.filter((row) => !row.detail.includes('WEBHOOK_PUBLIC_URL')),
      'every event row not configured names WEBHOOK_PUBLIC_URL',
    ).toEqual([]);
  }
  expect(certify.mustNotConfigured).toEqual(gate.mustNotConfigured);
});

// What `npm run doctor` stands on: its table of optional settings is exactly what a run without them leaves out.
test('a whole run against a real target with no optional setting (portability/detached): the rows not configured are exactly those runner/config/optional-settings.ts names, each naming a variable of its setting', ({
  proof,
}) => {
  for (const profile of judgedProfiles) {
    const rows = proof.analysis.verdicts['portability/detached']?.[profile].notConfigured ?? [];
    expect(rows.map((row) => row.id).sort(), `${profile}: the rows not configured`).toEqual(
      optionalSettings.flatMap((setting) => setting.requirements).sort(),
    );
    for (const setting of optionalSettings) {
      for (const id of setting.requirements) {
        const row = rows.find((r) => r.id === id);
        // The row names every variable of the doctor's table that unlocks it, first, in the table's order, in
        // conformance.json and in the matrix.
        expect(row?.configure.slice(0, setting.variables.length), id).toEqual(setting.variables);
        expect(row?.label, id).toMatch(new RegExp(`^not configured \\(set ${setting.variables.join(', ')}[,)]`));
        expect(row?.details.length, `${id}: tests not configured`).toBeGreaterThan(0);
        for (const detail of row?.details ?? [])
          expect(
            setting.variables.some((variable) => detail.includes(variable)),
            `${id}: ${detail}`,
          ).toBe(true);
      }
    }
  }
});

test("what a second client sees of another client's case is recorded, never judged: the reference lets it read and update the case, the alternative keeps clients apart while the operations stay open to it", ({
  proof,
}) => {
  const seen = (target: string) =>
    proof.analysis.observations[target]?.['OBS-SECOND-CLIENT']?.join('\n') ?? '(nothing observed)';
  expect(seen('clean')).toContain('fetchAssessment: answered 200');
  expect(seen('clean')).toContain('another client could read this case');
  expect(seen('clean')).toContain('update was applied');
  expect(seen('portability/alternative')).toContain('fetchAssessment: refused 404');
  expect(seen('portability/alternative')).toContain(
    'a refusal of this case, the operation itself open to the second client',
  );
  expect(seen('portability/alternative')).toContain('left the case as it was');
});

test('which classes of value a target takes, and how it shows tags back, are recorded, never judged: the reference takes every class as sent, the normalising flavor shows tags in NFC and trimmed and refuses values of more than 1,024 characters', ({
  proof,
}) => {
  const seen = (target: string) =>
    proof.analysis.observations[target]?.['OBS-VALUE-CLASSES']?.join('\n') ?? '(nothing observed)';
  expect(seen('clean')).toMatch(
    /tags of case updates, shown by the case, by class: as sent: [^;]*latin-nfd[^;]*outer-spaces/,
  );
  expect(seen('clean')).not.toContain('refused');
  const normalising = seen('portability/normalising');
  expect(normalising).toMatch(/normalised to NFC: latin-nfd/);
  expect(normalising).toMatch(/outer whitespace trimmed: outer-spaces/);
  expect(normalising).toMatch(/refused \(400\): long-4096/);
});

test('every MUST requirement of the catalog has a sandbox fault', ({ proof }) => {
  expect(proof.analysis.mustWithoutFault).toEqual([]);
});

for (const fault of faults) {
  test(`fault ${fault.id} is caught by a check citing ${fault.requirement}`, ({ proof }) => {
    const row = proof.analysis.kills.find((k) => k.fault === fault.id);
    expect(row, 'the fault was part of the proof run').toBeDefined();
    expect(row?.testsRun, `tests citing ${fault.requirement} ran against the faulty sandbox`).toBeGreaterThan(0);
    // A fault that only checks of other requirements noticed was caught for the wrong reason: it survived.
    const wrongReason = row?.collateral.length
      ? `; only checks of other requirements failed (${row.collateral.join(', ')}), none citing ${fault.requirement}`
      : '';
    expect(row?.caughtBy, `${fault.id} survived: ${fault.description}${wrongReason}`).not.toEqual([]);
  });
}
