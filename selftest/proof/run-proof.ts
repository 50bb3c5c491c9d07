import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { faults as allFaults, type Fault } from '../../sandbox/faults.ts';
import type { QueuedEvent, RateLimitedCounts } from '../../sandbox/types.ts';
import { analyse, killMatrixMarkdown, type ProofAnalysis } from './analyse.ts';
import type { ProofResults } from './proof-reporter.ts';
import { listSuite } from '../../scripts/suite-listing.ts';
import { PROOF_OUTPUT_DIR, startProofTargets, type ProofTarget } from './plan.ts';
import { waitsFileName } from '../../runner/webhooks/event-hub.ts';
import type { EventWaits } from '../../reporters/run-facts.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface ProofResult {
  analysis: ProofAnalysis;
  durationMs: number;
  exitCode: number | null;
  output: string;
  /** What the rate-limited portability target answered 429: proof that the suite met its limits. */
  rateLimited?: RateLimitedCounts;
  /** What the far portability target's delivery queue did: proof that the suite met late, crossed and repeated events. */
  farQueue?: readonly QueuedEvent[];
}

/**
 * Runs the proof once per self-test run (the result is cached on disk under the run's id, so a restarted worker does
 * not run it again): starts the sandboxes in this process, runs the suite against them in a child Playwright
 * process, and writes the kill matrix as JSON and Markdown.
 */
export async function runProofOnce(options: {
  runId: string;
  faults?: readonly Fault[];
  reportsDir?: string;
}): Promise<ProofResult> {
  const work = `${repoRoot}test-results/proof`;
  mkdirSync(work, { recursive: true });
  const cache = `${work}/result-${options.runId}.json`;
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as ProofResult;
  // Earlier self-test runs' results go: each holds the whole run's records (tens of megabytes after a few runs).
  for (const name of readdirSync(work)) if (!name.includes(options.runId)) rmSync(join(work, name), { force: true });

  const started = performance.now();
  const seed = Math.floor(Math.random() * 1e9);
  const { plan, close, sandboxes } = await startProofTargets(options.faults ?? allFaults, await listSuite(), seed);
  // The plan holds the sandboxes' credentials: it stays in a private folder that is removed after the run.
  const privateDir = mkdtempSync(join(tmpdir(), 'proof-plan-'));
  const planFile = join(privateDir, 'plan.json');
  const resultsFile = `${work}/results-${options.runId}.json`;
  writeFileSync(planFile, JSON.stringify(plan, null, 2), { mode: 0o600 });
  let output = '';
  let exitCode: number | null;
  let rateLimited: RateLimitedCounts | undefined;
  let farQueue: readonly QueuedEvent[] | undefined;
  try {
    exitCode = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [join(repoRoot, 'node_modules/@playwright/test/cli.js'), 'test', '-c', 'selftest/proof/proof.config.ts'],
        {
          cwd: repoRoot,
          // eslint-disable-next-line no-restricted-properties -- the environment given to a child process
          env: { ...process.env, PROOF_PLAN: planFile, PROOF_RESULTS: resultsFile, CI: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', reject);
      child.on('close', resolve);
    });
  } finally {
    rateLimited = sandboxes.find((s) => s.flavor === 'rate-limited')?.limited;
    farQueue = sandboxes.find((s) => s.flavor === 'far')?.queued;
    await close();
    rmSync(privateDir, { recursive: true, force: true });
  }
  if (!existsSync(resultsFile))
    throw new Error(`The proof run wrote no results (exit ${exitCode}):\n${output.slice(-3000)}`);
  // Each target's receiver wrote its waits beside its journal when the run ended (runner/webhooks/event-hub.ts).
  const waitsOf = (target: ProofTarget): EventWaits | undefined => {
    const port = Number(target.env['WEBHOOK_LISTEN']?.split(':').at(-1));
    const file = join(repoRoot, PROOF_OUTPUT_DIR, waitsFileName(port, target.env['RUN_TAG'] ?? ''));
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as EventWaits) : undefined;
  };
  const analysis = analyse(plan, JSON.parse(readFileSync(resultsFile, 'utf8')) as ProofResults, waitsOf);
  const durationMs = performance.now() - started;
  const reportsDir = options.reportsDir ?? `${repoRoot}reports`;
  mkdirSync(reportsDir, { recursive: true });
  writeFileSync(
    `${reportsDir}/kill-matrix.json`,
    `${JSON.stringify({ seed, durationMs: Math.round(durationMs), ...analysis }, null, 2)}\n`,
  );
  writeFileSync(`${reportsDir}/kill-matrix.md`, killMatrixMarkdown(analysis, durationMs));
  const result: ProofResult = {
    analysis,
    durationMs,
    exitCode,
    output: output.slice(-5000),
    ...(rateLimited ? { rateLimited } : {}),
    ...(farQueue ? { farQueue } : {}),
  };
  writeFileSync(cache, JSON.stringify(result));
  return result;
}
