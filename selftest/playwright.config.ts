import { defineConfig } from '@playwright/test';

// One id per self-test run, shared by its workers: the proof run is done once and cached under it.
// eslint-disable-next-line no-restricted-properties -- the hand-off of the run id to the self-tests' workers
process.env.SELFTEST_RUN_ID ??= `${Date.now()}`;

// The suite's own tests: schema, configuration, sandbox, kit and runner units, then the kill matrix and the
// portability run, which start sandboxes of their own and run the conformance suite against them.
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  fullyParallel: true,
  // Three on two cores: many self-tests wait (webhook grace periods, retry backoffs, the rate-limited target's
  // Retry-After) while a child run of another uses the CPU; measured 194 s against 204 s with two (docs/performance.md).
  workers: 3,
  // Generous: the self-tests must stay green on a busy machine, where a child conformance run can take several times
  // longer (seen: the shards test past 120 s with three runs of the suite loading 2 cores).
  timeout: 240_000,
  reporter: [['list'], ['./plain-summary-reporter.ts']],
  outputDir: '../test-results/selftest',
  // The proof run is the longest single piece (two minutes of a child run on its own): listed first, it starts at once
  // and the other self-tests fill the second worker and the gaps around it, instead of the proof running last, alone.
  projects: [
    { name: 'proof', testMatch: 'proof.spec.ts' },
    { name: 'self', testIgnore: 'proof.spec.ts' },
  ],
});
