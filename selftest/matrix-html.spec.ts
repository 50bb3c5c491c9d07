import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, expect, test } from '@playwright/test';
import { interfaceInfo, requirements } from '../catalog/catalog.ts';
import { citeAnnotation, markAnnotation } from '../kit/verdict-marks.ts';
import { matrixHtml } from '../reporters/matrix-html.ts';
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
  const html = matrixHtml({
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
  const dir = mkdtempSync(join(tmpdir(), 'matrix-html-'));
  const file = join(dir, 'conformance.html');
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
    await page.getByRole('link', { name: 'ORD-409' }).click();
    await expect(page.locator('section#ORD-409')).toContainText('400 <script>alert(1)</script>');
    expect(
      requests.filter((url) => !/^(file|data|blob):/.test(url)),
      'requests beyond the file',
    ).toEqual([]);
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
