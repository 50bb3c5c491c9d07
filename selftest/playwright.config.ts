import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';
import { enableCompileCache } from '../runner/config/compile-cache.ts';

// One id per self-test run, shared by its workers: the proof run is done once and cached under it.
// eslint-disable-next-line no-restricted-properties -- the hand-off of the run id to the self-tests' workers
process.env.SELFTEST_RUN_ID ??= `${Date.now()}`;

// The self-tests' workers, their child runs and the proof take Node's compile cache through the environment.
// eslint-disable-next-line no-restricted-properties -- the hand-off of the compile cache to the processes started
enableCompileCache(process.env);

/** The self-test files whose tests take seconds each: measured, a run's JSON report (docs/performance.md). */
const longFiles = [
  'cli',
  'client-certification',
  'client-data',
  'client-jitter',
  'event-attribution',
  'evidence-bundle',
  'openapi',
  'package',
  'rate-limit',
  'reliability',
  'replay',
  'run-diff',
  'run-reports',
  'tags',
  'tls-proxy',
  'worker-count',
].map((file) => `${file}.spec.ts`);
for (const file of longFiles)
  if (!existsSync(new URL(file, import.meta.url)))
    throw new Error(`selftest/playwright.config.ts lists ${file}: no such file`);

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
  // Playwright starts the tests in the order of the projects, then of the files: the proof run, the longest single
  // piece (a minute of a child run on its own), first; then the files whose tests take seconds each (child runs,
  // sandboxes, waits on event windows); then the many short units, which fill the gaps and the end instead of one long
  // test ending the run alone (docs/performance.md).
  projects: [
    { name: 'proof', testMatch: 'proof.spec.ts' },
    { name: 'long', testMatch: longFiles },
    { name: 'self', testIgnore: ['proof.spec.ts', ...longFiles] },
  ],
});
