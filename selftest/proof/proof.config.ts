import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { loadConfig } from '../../runner/config/load-config.ts';
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
  const suite = { ...loadConfig(target.env, { repoRoot, embedded: false }), failurePolicy: 'record-only' as const };
  return serializeRedacted(suite, suite.secrets);
};

/** Selects the checks of a fault's requirement, on the place the fault breaks it when it names one. */
const grepOf = (run: FaultRun) =>
  `(?=.*(^|\\s)@${escape(run.requirement)}(\\s|$))${run.place ? `(?=.*(^|\\s)@on:${escape(run.place)}(\\s|$))` : ''}`;

/**
 * One project, and so one worker, per target: a worker start is the largest cost of a target. The correct targets run
 * the whole suite; a fault target or a round runs the checks of its faults (webhook checks apart: their receiver
 * judges every delivery of its run, so a webhook fault stands alone).
 */
function projectFor(target: ProofTarget) {
  const common = { name: target.name, testDir: `${repoRoot}tests`, use: { config: suiteFor(target) }, workers: 1 };
  if (target.kind === 'clean' || target.kind === 'portability') return common;
  const webhooks = target.faults.some((run) => run.area === 'webhooks');
  return {
    ...common,
    grep: new RegExp(target.faults.map(grepOf).join('|')),
    ...(webhooks ? { fullyParallel: false, testMatch: 'webhooks/**/*.spec.ts' } : { testIgnore: 'webhooks/**' }),
  };
}

export default defineConfig<object, WorkerFixtures>({
  fullyParallel: true,
  workers: Number(workers ?? 2),
  retries: 0,
  timeout: 60_000,
  outputDir: `${repoRoot}${PROOF_OUTPUT_DIR}`,
  reporter: [['json', { outputFile: results ?? `${repoRoot}test-results/proof-results.json` }]],
  use: { trace: 'off' },
  // Every target is a sandbox this process started: the run's broker and receivers, without the preflight of a real
  // deployment (the global setup runs it for a run of playwright.config.ts only).
  globalSetup: `${repoRoot}runner/global-setup.ts`,
  projects: plan.targets.map(projectFor),
});
