import { readFileSync } from 'node:fs';
import { devNull } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { resolveRun } from '../../runner/config/resolve.ts';
import type { WorkerFixtures } from '../../fixtures/test.ts';
import { serializeRedacted } from '../../reporters/serialize-redacted.ts';
import { PROOF_OUTPUT_DIR, type FaultRun, type ProofPlan, type ProofTarget } from './plan.ts';

// The proof run: the whole suite against the clean sandbox and the correct implementations that differ from it, and,
// for each fault, the checks that cite the faulted requirement against a sandbox giving them that fault (alone, or in
// a round with other faults' checks). Started by selftest/proof.spec.ts.
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
// The environment selftest/proof/run-proof.ts gives this run: its plan, its workers and where its results go.
// eslint-disable-next-line no-restricted-properties -- the environment the proof passes to its child run
const { PROOF_PLAN: planFile, PROOF_WORKERS: workers, PROOF_RESULTS: results } = process.env;
if (!planFile) throw new Error('PROOF_PLAN is not set: this configuration is started by selftest/proof.spec.ts');
const plan = JSON.parse(readFileSync(planFile, 'utf8')) as ProofPlan;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const suiteFor = (target: ProofTarget) => {
  // Through the resolver of a user's run, given the target's variables alone (no .env of the developer's).
  const { suite: resolved } = resolveRun({ ...target.env, ENV_FILE: devNull }, repoRoot);
  const suite = { ...resolved, failurePolicy: 'record-only' as const };
  return serializeRedacted(suite, suite.secrets);
};

/** A test of tests/webhooks/, by the file title Playwright matches a grep against with the test's titles and tags. */
const webhookFile = '(^|\\s)(\\S*/)?tests/webhooks/[^\\s/]+\\.spec\\.ts\\s';

/**
 * Selects the checks of a fault's requirement, on the place the fault breaks it when it names one, in the tests of its
 * area (plan.ts checks()): a webhook fault's in tests/webhooks/, any other's outside it.
 */
const grepOf = (run: FaultRun) =>
  `^${run.area === 'webhooks' ? `(?=.*${webhookFile})` : `(?!.*${webhookFile})`}(?=.*(^|\\s)@${escape(run.requirement)}(\\s|$))${run.place ? `(?=.*(^|\\s)@on:${escape(run.place)}(\\s|$))` : ''}`;

/**
 * One project, and so one worker, per target: a worker start is the largest cost of a target. The correct targets run
 * the whole suite; a fault target or a round runs the checks of its faults. Where webhook checks run, the tests run in
 * the order of their files, so that the check of every delivery of the run (tests/webhooks/valid-deliveries.spec.ts,
 * last) comes after the flows whose deliveries it judges.
 */
function projectFor(target: ProofTarget) {
  const common = { name: target.name, testDir: `${repoRoot}tests`, use: { config: suiteFor(target) }, workers: 1 };
  if (target.kind === 'clean' || target.kind === 'portability') return common;
  const webhooks = target.faults.some((run) => run.area === 'webhooks');
  return {
    ...common,
    grep: new RegExp(target.faults.map(grepOf).join('|')),
    ...(webhooks ? { fullyParallel: false } : {}),
  };
}

/**
 * The targets whose run mostly waits (the rate-limited one's 429s, the trailing one's re-reads, the far one's late
 * events and records: the three longest, 14 to 30 s of test time) start first: the other targets' work fills their
 * waits instead of following them, and none of them is the run's tail.
 */
const waitsMost = (target: ProofTarget) => (['rate-limited', 'trailing', 'far'].includes(target.flavor) ? 1 : 0);

export default defineConfig<object, WorkerFixtures>({
  fullyParallel: true,
  // Three: a target's worker mostly waits (its events, its records, the rate-limited target's 429s), and each target
  // starts a worker of its own whatever the number, so a third costs no start (docs/performance.md, npm test).
  workers: Number(workers ?? 3),
  retries: 0,
  timeout: 60_000,
  outputDir: `${repoRoot}${PROOF_OUTPUT_DIR}`,
  reporter: [
    [
      `${repoRoot}selftest/proof/proof-reporter.ts`,
      { outputFile: results ?? `${repoRoot}test-results/proof-results.json` },
    ],
  ],
  use: { trace: 'off' },
  // Every target is a sandbox this process started: the run's broker and receivers, without the preflight of a real
  // deployment (the global setup runs it for a run of playwright.config.ts only).
  globalSetup: `${repoRoot}runner/global-setup.ts`,
  projects: [...plan.targets].sort((a, b) => waitsMost(b) - waitsMost(a)).map(projectFor),
});
