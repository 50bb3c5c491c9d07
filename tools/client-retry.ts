import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCli, usageOf } from '../scripts/cli.ts';
import { retryStorm } from '../kit/checks/client/retry-rule.ts';
import { cells, falseFailures, firstTrial, retryTable, type SimulationResult } from './client/retry-simulation.ts';
import { replaceMarkedBlock } from '../scripts/readme-block.ts';

// npm run client-retry [-- --trials N --seed S]
// Simulates CLI-ORDER-RETRY's rule against full, equal and decorrelated jitter (tools/client/retry-simulation.ts)
// and writes the figures to docs/client-retry.json and the table of docs/client-retry.md; the self-test
// selftest/client-retry.spec.ts recounts each cell's first trials and compares the table with the figures.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const resultPath = join(repoRoot, 'docs', 'client-retry.json');

const cli = {
  summary:
    "Measures the false-failure rate of the client certification's retry rule by simulation and writes docs/client-retry.{json,md}.",
  usage: 'npm run client-retry [-- --trials <n> --seed <s>]',
  options: { trials: { type: 'string' }, seed: { type: 'string' } },
  describe: {
    trials: 'trials per cell (default 1000000)',
    seed: "the seed of every cell's stream (default the one in docs/client-retry.json)",
  },
} as const;
const { values } = parseCli(cli);
function usage(message: string): never {
  console.error(`client-retry: ${message}\n\n${usageOf(cli)}`);
  process.exit(2);
}
const previous = JSON.parse(readFileSync(resultPath, 'utf8')) as SimulationResult;
const trials = Number(values.trials ?? 1_000_000);
const seed = Number(values.seed ?? previous.seed);
if (!Number.isInteger(trials) || trials < 10_000) usage(`--trials ${values.trials}: a whole number, at least 10000`);
if (!Number.isInteger(seed) || seed < 0) usage(`--seed ${values.seed}: a whole number`);
const sampleTrials = previous.sampleTrials;

const started = Date.now();
const result: SimulationResult = {
  seed,
  trials,
  sampleTrials,
  rule: { ...retryStorm },
  cells: cells.map((cell) => ({
    ...cell,
    failures: falseFailures(cell, trials, seed),
    sampleFailures: falseFailures(cell, sampleTrials, seed),
    firstDelays: firstTrial(cell, seed),
  })),
};
writeFileSync(resultPath, `${JSON.stringify(result, null, 1)}\n`);
replaceMarkedBlock(join(repoRoot, 'docs', 'client-retry.md'), 'retry-simulation', retryTable(result));
console.log(
  `client-retry: ${cells.length} cells × ${trials} trials in ${((Date.now() - started) / 1000).toFixed(1)} s; ${result.cells.reduce((n, c) => n + c.failures, 0)} false failures in all. docs/client-retry.md updated.`,
);
