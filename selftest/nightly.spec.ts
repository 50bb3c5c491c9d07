import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { childEnv, freePort, readText, repoRoot, runCli, TS_NODE } from './evidence-harness.ts';

interface Matrix {
  cost: { requests: number; retried503: number; retriedDropped: number };
  nights: { dir: string; count: number; stoppedEarly: boolean; sinceLastNight?: unknown };
}

test('npm run nightly three times against a flaky embedded sandbox: three nights kept, the trend, the cost and what changed since the night before', async () => {
  test.setTimeout(240_000);
  const work = mkdtempSync(join(tmpdir(), 'nightly-'));
  try {
    const reportsDir = join(work, 'reports');
    const night = async (faults?: string) =>
      runCli(
        TS_NODE[0],
        [...TS_NODE.slice(1), join(repoRoot, 'scripts/nightly.ts'), '--', '--project', 'orders'],
        childEnv(work, {
          SANDBOX_FLAKY_503: '0.2',
          HTTP_503_RETRIES: '8',
          HTTP_BACKOFF_BASE_MS: '2',
          HTTP_BACKOFF_MAX_MS: '20',
          SANDBOX_PORT: String(await freePort()),
          WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`,
          TEST_RESULTS_DIR: join(work, 'test-results'),
          ...(faults ? { SANDBOX_FAULTS: faults } : {}),
        }),
      );
    const first = await night();
    expect(first.code, first.stdout.slice(-3000)).toBe(0);
    expect(first.stdout).toContain('History: 1 night of this target and catalog');
    expect(first.stdout, 'no previous night to compare with').not.toContain('Since last night');
    const second = await night();
    expect(second.code, second.stdout.slice(-3000)).toBe(0);
    // Compared with the night before; on a busy machine a latency may move past the floors, so either wording holds.
    expect(second.stdout).toMatch(/Since last night \([^)]*\):/);
    // Tonight the target breaks one requirement: the night names it, against the night before.
    const third = await night('order-code-differs');
    expect(third.code, 'a MUST failed: not conformant').toBe(1);
    const matrix = JSON.parse(readText(join(reportsDir, 'conformance.json'))) as Matrix;
    expect(matrix.nights.count).toBe(3);
    expect(matrix.nights.stoppedEarly).toBe(false);
    expect(third.stdout).toContain('History: 3 nights of this target and catalog');
    expect(third.stdout).toContain('requirement ORD-ERR-CODE-STATUS (MUST) passed -> failed (worse)');
    const markdown = readText(join(reportsDir, 'conformance.md'));
    expect(markdown).toContain('History: 3 nights');
    expect(markdown).toContain('- requirement ORD-ERR-CODE-STATUS (MUST) passed -> failed (worse)');
    // What the night cost: the 503s absorbed by retries, the same figures in the console, the JSON and the Markdown.
    const retries = matrix.cost.retried503 + matrix.cost.retriedDropped;
    expect(retries, 'a fifth of the answers were 503').toBeGreaterThan(0);
    expect(third.stdout).toContain(`Retries: ${retries} (${matrix.cost.retried503} after a 503`);
    expect(third.stdout).toMatch(/Latency ms \(median\/p95\/max\): .*createOrder \d+\/\d+\/\d+/);
    expect(markdown).toContain(`- Requests: ${matrix.cost.requests}; retries ${retries} (`);
    expect(markdown).toMatch(/\| createOrder \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \|/);
    const junit = readText(join(reportsDir, 'junit.xml'));
    expect(junit).toContain(`<property name="requests" value="${matrix.cost.requests}"/>`);
    expect(junit).toContain(`<property name="retries-after-503" value="${matrix.cost.retried503}"/>`);
    // The nights file and the Allure history of this target each hold the three nights; the report shows the trend.
    const lines = (file: string) => readFileSync(join(matrix.nights.dir, file), 'utf8').trim().split('\n');
    expect(lines('nights.jsonl')).toHaveLength(3);
    expect(lines('history.jsonl')).toHaveLength(3);
    expect(third.stdout).toContain('Nightly: Allure report with the trend of 3 nights');
    expect(readText(join(reportsDir, 'conformance.html'))).toContain('<svg id="nights-chart"');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
