import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { requirement } from '../../catalog/catalog.ts';
import { loadConfig } from '../../harness/config/load-config.ts';
import type { WorkerFixtures } from '../../fixtures/test.ts';
import { serializeRedacted } from '../../reporters/serialize-redacted.ts';
import type { ProofPlan, ProofTarget } from './plan.ts';

// The proof run: the whole suite against the clean and the alternative sandbox, and, for each fault, the checks that
// cite the faulted requirement against a sandbox carrying that fault. Started by selftest/proof.spec.ts.
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const planFile = process.env.PROOF_PLAN;
if (!planFile) throw new Error('PROOF_PLAN is not set: this configuration is started by selftest/proof.spec.ts');
const plan = JSON.parse(readFileSync(planFile, 'utf8')) as ProofPlan;
// Every target is a sandbox this process started: the run's broker without the preflight of a real deployment.
process.env.PREFLIGHT ??= '0';
const AREAS = ['auth', 'identity', 'stepup', 'orders', 'webhooks', 'reseller'] as const;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const suiteFor = (target: ProofTarget) => {
  const suite = { ...loadConfig(target.env, { repoRoot, embedded: false }), failurePolicy: 'record-only' as const };
  return serializeRedacted(suite, suite.secrets);
};

function projectsFor(target: ProofTarget) {
  const suite = suiteFor(target);
  if (!target.fault) {
    // One worker per project, as in playwright.config.ts: every worker costs about a second of loading.
    return AREAS.map((area) => ({
      name: `${target.name}/${area}`,
      testDir: `${repoRoot}tests/${area}`,
      use: { config: suite },
      workers: 1,
      ...(area === 'webhooks' ? { fullyParallel: false } : {}),
    }));
  }
  const webhooks = requirement(target.fault.requirement).area === 'webhooks';
  return [
    {
      name: target.name,
      testDir: `${repoRoot}tests`,
      // The checks of the faulted requirement, on the place the fault breaks it when it names one.
      grep: new RegExp(`(?=.*(^|\\s)@${escape(target.fault.requirement)}(\\s|$))${target.fault.place ? `(?=.*(^|\\s)@on:${escape(target.fault.place)}(\\s|$))` : ''}`),
      use: { config: suite },
      workers: 1,
      ...(webhooks ? { fullyParallel: false, testMatch: 'webhooks/**/*.spec.ts' } : { testIgnore: 'webhooks/**' }),
    },
  ];
}

export default defineConfig<object, WorkerFixtures>({
  fullyParallel: true,
  workers: Number(process.env.PROOF_WORKERS ?? 2),
  retries: 0,
  timeout: 30_000,
  outputDir: `${repoRoot}test-results/proof-run`,
  reporter: [['json', { outputFile: process.env.PROOF_RESULTS ?? `${repoRoot}test-results/proof-results.json` }]],
  use: { trace: 'off' },
  globalSetup: `${repoRoot}harness/run/global-setup.ts`,
  projects: plan.targets.flatMap(projectsFor),
});
