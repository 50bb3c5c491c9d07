import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { childEnv, freePort, playwrightCli, readText, runCli, TS_NODE, type CliRun } from './evidence-harness.ts';

// Scaling out: shards write blob reports; merge-reports with the suite's own reporters gives the verdicts, the JUnit
// and the exit code of one whole run. Checked on the orders checks citing ORD-ERR-CODE-STATUS against a sandbox with
// one fault, so that the merged run has a failure to agree on.
const SUBSET = ['--project', 'orders', '--grep', '@ORD-ERR-CODE-STATUS'];
const FAULT = 'order-code-differs';

type Outcomes = Record<string, string>;
const outcomesOf = (reportsDir: string): Outcomes =>
  Object.fromEntries(
    (
      JSON.parse(readText(join(reportsDir, 'conformance.json'))) as {
        requirements: Array<{ id: string; outcome: string }>;
      }
    ).requirements.map((r) => [r.id, r.outcome]),
  );
const output = (run: CliRun) => `${run.stdout}\n${run.stderr}`.slice(-3000);

test('two shards merged give the same verdicts, JUnit cases and exit code as one run', async () => {
  test.setTimeout(240_000);
  const work = mkdtempSync(join(tmpdir(), 'shards-'));
  try {
    const envFor = async (extra: Record<string, string>) =>
      childEnv(work, {
        SANDBOX_FAULTS: FAULT,
        SANDBOX_PORT: String(await freePort()),
        WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`,
        TEST_RESULTS_DIR: join(work, 'test-results'),
        SEED: '4242',
        RUN_TAG: 'shardtest',
        ...extra,
      });

    // The whole run and the two shards are independent: started together, they overlap where each waits.
    const blobs = join(work, 'blobs');
    mkdirSync(blobs);
    const [whole, ...shards] = await Promise.all([
      envFor({ REPORTS_DIR: join(work, 'whole'), TEST_RESULTS_DIR: join(work, 'results-whole') }).then((env) =>
        runCli(process.execPath, [playwrightCli, 'test', ...SUBSET], env),
      ),
      ...['1/2', '2/2'].map(async (shard) =>
        runCli(
          process.execPath,
          [playwrightCli, 'test', ...SUBSET, `--shard=${shard}`],
          await envFor({
            CONFORMANCE_SHARD: '1',
            BLOB_DIR: join(work, `blob-${shard[0]}`),
            TEST_RESULTS_DIR: join(work, `results-${shard[0]}`),
          }),
        ),
      ),
    ]);
    expect(whole?.code, whole && output(whole)).toBe(1);
    for (const [index, run] of shards.entries()) {
      expect([0, 1], output(run)).toContain(run.code);
      const dir = join(work, `blob-${index + 1}`);
      for (const file of readdirSync(dir)) cpSync(join(dir, file), join(blobs, file));
    }
    const merged = await runCli(
      TS_NODE[0],
      [...TS_NODE.slice(1), 'scripts/merge-reports.ts', blobs],
      await envFor({ REPORTS_DIR: join(work, 'merged') }),
    );
    expect(merged.code, output(merged)).toBe(whole?.code);
    expect(outcomesOf(join(work, 'merged'))).toEqual(outcomesOf(join(work, 'whole')));
    expect(outcomesOf(join(work, 'merged'))['ORD-ERR-CODE-STATUS']).toBe('failed');
    const cases = (dir: string) =>
      [...readText(join(work, dir, 'junit.xml')).matchAll(/<testcase name="([^"]*)"/g)].map((m) => m[1]).sort();
    expect(cases('merged')).toEqual(cases('whole'));
    expect(
      readdirSync(join(work, 'merged', 'allure-results')).some((name) => name.endsWith('-result.json')),
      'Allure results from the merge',
    ).toBe(true);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
