import { existsSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, expect, test } from '@playwright/test';
import { interfaceInfo, requirements } from '../catalog/catalog.ts';
import { citeAnnotation, markAnnotation } from '../kit/verdict-marks.ts';
import { matrixHtml } from '../reporters/matrix-html.ts';
import { nightOf, sinceLastNight } from '../reporters/nights.ts';
import type { RunCost } from '../reporters/run-facts.ts';
import { runVerdict } from '../reporters/run-verdict.ts';
import { verdictsFor, type TestRecord } from '../reporters/verdicts.ts';

const CHROMIUM = '/usr/bin/chromium';

/** Every MUST passed but ORD-409 failed and TOK-NO-STORE warned. */
function records(): TestRecord[] {
  return requirements.map((r) => {
    const kind =
      r.id === 'ORD-409' ? 'fail' : r.level === 'INFO' ? 'observed' : r.id === 'TOK-NO-STORE' ? 'warn' : 'pass';
    const detail =
      kind === 'fail' ? 'Expected: 409 client | Actual: 400 <script>alert(1)</script>' : kind === 'pass' ? '' : 'seen';
    return {
      title: `${r.id} check`,
      project: r.area,
      location: 'tests/x.spec.ts:1',
      status: kind === 'fail' ? 'failed' : 'passed',
      annotations: [citeAnnotation(r.id), markAnnotation({ kind, id: r.id, detail })],
    };
  });
}

test('the HTML matrix opens offline in Chromium, filters by level and outcome, and links each failure to its details', async () => {
  test.skip(!existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  const verdicts = verdictsFor(requirements, records());
  const run = runVerdict(verdicts, 'gate');
  expect(run.reasons).toEqual(['MUST requirements failed: ORD-409']);
  // Three nights: ORD-409 held the first two and fails tonight; createOrder's p95 and retries rose tonight.
  const cost = (p95Ms: number, retries: number): RunCost => ({
    requests: 40,
    tokenRequests: 2,
    tokenFetches: 2,
    rateLimitWaitMs: 0,
    rateLimitWaits: 0,
    rateLimitBudgetMs: 300_000,
    rateLimitedAnswers: 0,
    cap: { initial: 16, final: 16, lowered: 0 },
    retried503: retries,
    retriedDropped: 0,
    backoffMs: 120,
    operations: [
      { operation: 'createOrder', calls: 20, medianMs: 5, p95Ms, maxMs: p95Ms + 10, retries },
      { operation: 'token', calls: 20, medianMs: 5, p95Ms: 9, maxMs: 19, retries: 0 },
    ],
  });
  const night = (n: number, result: string, judged: typeof verdicts, ofNight: RunCost) =>
    nightOf({ finishedAt: `night ${n}`, result, requirements: judged, cost: ofNight }, false);
  const held = verdicts.map((v) => (v.id === 'ORD-409' ? { ...v, outcome: 'passed' as const } : v));
  const earlier = [night(1, 'conformant', held, cost(20, 1)), night(2, 'conformant', held, cost(22, 0))];
  const tonightCost = cost(400, 12);
  const tonight = night(3, run.words, verdicts, tonightCost);
  const since = sinceLastNight(earlier, tonight);
  const html = matrixHtml({
    cost: tonightCost,
    history: { nights: [...earlier, tonight], ...(since ? { since } : {}) },
    interface: interfaceInfo,
    profile: 'gate',
    finishedAt: 'now',
    result: run.words,
    reasons: run.reasons,
    run,
    environment: { seed: '1' },
    requirements: verdicts,
  });
  expect(html, 'details are escaped').not.toContain('<script>alert(1)</script>');
  const file = test.info().outputPath('conformance.html');
  writeFileSync(file, html);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
  try {
    const context = await browser.newContext();
    const requests: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    const page = await context.newPage();
    await page.goto(pathToFileURL(file).href);
    await expect(page.locator('#result')).toContainText('not conformant: 1 MUST failed (ORD-409)');
    await expect(page.locator('#reasons')).toContainText('Warnings: 1 SHOULD (TOK-NO-STORE), listed, not failed');
    const rows = page.locator('#matrix tbody tr');
    await expect(rows).toHaveCount(requirements.length);
    await page.locator('input[data-filter="outcome"][value="passed"]').uncheck();
    await page.locator('input[data-filter="outcome"][value="observed"]').uncheck();
    await expect(rows.filter({ visible: true })).toHaveCount(2);
    await page.locator('input[data-filter="level"][value="SHOULD"]').uncheck();
    await expect(rows.filter({ visible: true })).toHaveCount(1);
    // What the Markdown says: the count per level and outcome, each requirement's statement.
    const must = verdicts.filter((v) => v.level === 'MUST');
    await expect(page.locator('#counts tr[data-counts="MUST"] td').last()).toHaveText(String(must.length));
    await expect(page.locator('#counts tr[data-counts="MUST"] td').first()).toHaveText('1');
    const statement = requirements.find((r) => r.id === 'ORD-409')?.statement ?? '';
    await expect(rows.filter({ hasText: 'ORD-409' }).locator('td.statement')).toHaveText(statement);
    await expect(page.locator('#history')).toContainText('History: 3 nights');
    const sinceText = page.locator('#since-last-night');
    await expect(sinceText).toContainText('ORD-409 (MUST) passed -> failed (worse)');
    await expect(sinceText).toContainText('createOrder p95 22 -> 400 ms (worse)');
    await expect(sinceText).toContainText('createOrder retries 0 -> 12 (worse)');
    await expect(page.locator('#cost')).toContainText('retries 12 (12 after a 503, 0 after a dropped connection)');
    await expect(page.locator('#latency tbody tr')).toHaveCount(2);
    // The chart: drawn in the page itself, a bar per night and a line of p95 per operation through every night.
    const chart = page.locator('#nights-chart');
    await expect(chart).toBeVisible();
    expect((await chart.boundingBox())?.height ?? 0).toBeGreaterThan(100);
    await expect(chart.locator('g.night')).toHaveCount(3);
    const line = chart.locator('polyline[data-operation="createOrder"]');
    expect((await line.getAttribute('points'))?.split(' ')).toHaveLength(3);
    await page.getByRole('link', { name: 'ORD-409' }).click();
    await expect(page.locator('section#ORD-409')).toContainText('400 <script>alert(1)</script>');
    expect(
      requests.filter((url) => !/^(file|data|blob):/.test(url)),
      'requests beyond the file',
    ).toEqual([]);
  } finally {
    await browser.close();
  }
});
