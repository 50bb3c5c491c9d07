import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { markUnfinished, reportFiles } from '../reporters/run-reports.ts';
import { childEnv, freePort, playwrightCli, runCli } from './evidence-harness.ts';
import { served } from './served.ts';

// A run's reports are its own: at its start each report says "not finished" in place of the last run's verdict, and
// a run that ends before any test (exit 2) writes its own verdict, "not run: configuration", with the problems, over
// the last run's reports. A filtered green run, its .env's settings taking effect: client-data.spec.ts's two runs.

test.describe.configure({ timeout: 240_000 });

const REPORTS = ['conformance.md', 'conformance.json', 'conformance.html', 'junit.xml', 'results.json'];

const listed = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : []);

function read(dir: string): Record<string, string> {
  return Object.fromEntries(REPORTS.map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

/** The reports and Allure results of a last run, for the next run to replace. */
function lastRun(reportsDir: string, allureDir: string): void {
  mkdirSync(reportsDir, { recursive: true });
  mkdirSync(allureDir, { recursive: true });
  for (const name of REPORTS) writeFileSync(join(reportsDir, name), 'conformant: the last run');
  for (let n = 0; n < 3; n += 1) writeFileSync(join(allureDir, `old-${n}-result.json`), '{}');
}

test("a run stopped in preflight, or by its configuration, over the last run's reports leaves reports that say it did not run, with exit 2", async () => {
  const work = test.info().outputPath();
  const reportsDir = join(work, 'reports');
  const allure = join(work, 'allure-results');
  const run = async (extra: Record<string, string>) => {
    lastRun(reportsDir, allure);
    const env = childEnv(work, {
      SANDBOX_PORT: String(await freePort()),
      WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`,
      REPORTS_DIR: reportsDir,
      TEST_RESULTS_DIR: join(work, 'test-results'),
      ALLURE_RESULTS_DIR: allure,
      ...extra,
    });
    return runCli(process.execPath, [playwrightCli, 'test'], env);
  };
  // The preflight stops a wrong route: exit 2 before any test result is written, naming the variable and its value.
  const problem = 'ROUTE_CASE_UPDATE: nothing serves ROUTE_CASE_UPDATE="POST /no-such-update"';
  const stopped = await run({ ROUTE_CASE_UPDATE: 'POST /no-such-update' });
  expect(stopped.code, stopped.stderr).toBe(2);
  expect(stopped.stderr).toContain(
    `Preflight: the target cannot be used as configured (1 problem); no test was run:\n  ${problem}`,
  );
  expect(listed(join(work, 'test-results')), 'no test result or attachment').toEqual([]);
  expect(listed(reportsDir).sort(), 'the five reports, nothing else').toEqual([...REPORTS].sort());
  const afterPreflight = read(reportsDir);
  // A bad value stops the real command before any test, each named on a line of its own: a route, a webhook, a
  // suite and a sandbox variable at once (each wrong value from the environment and .env: config.spec.ts, in process).
  const wrong = [
    'ROUTE_STEP_UP="SEND /step-up" is not valid: expected "METHOD /path" (Method and path of 4.7',
    'WEBHOOK_WAIT_MS="soon" is not valid',
    'HTTP_503_RETRIES="many" is not valid',
    'SANDBOX_FLAKY_503="half" is not valid',
  ];
  const bad = await run({
    ROUTE_STEP_UP: 'SEND /step-up',
    WEBHOOK_WAIT_MS: 'soon',
    HTTP_503_RETRIES: 'many',
    SANDBOX_FLAKY_503: 'half',
  });
  expect(bad.code, bad.stderr).toBe(2);
  expect(bad.stderr).toContain('Configuration is not valid (4 problems):');
  for (const named of wrong) expect(bad.stderr).toContain(`\n  ${named}`);
  const afterConfiguration = read(reportsDir);
  // A SANDBOX_PORT another process holds stops the run before any test, naming it.
  const held = await served(
    () => undefined,
    (url) => run({ SANDBOX_PORT: new URL(url).port }),
  );
  expect(held.code, held.stderr).toBe(2);
  expect(held.stderr).toMatch(
    /SANDBOX_PORT=\d+: the embedded sandbox could not listen on .*another process holds the port/,
  );
  for (const ended of [stopped, bad, held])
    expect(`${ended.stdout}\n${ended.stderr}`).not.toMatch(/\d+ (passed|failed)/);
  for (const [cause, reports, named] of [
    ['the preflight', afterPreflight, [problem]],
    ['the configuration', afterConfiguration, wrong],
  ] as const) {
    const json = JSON.parse(reports['conformance.json'] as string) as { reasons: string[] };
    for (const [name, text] of Object.entries(reports)) expect(text, name).not.toContain('the last run');
    expect(json, cause).toMatchObject({
      result: 'not run: configuration',
      verdict: { exitCode: 2, conformant: false },
      requirements: [],
    });
    for (const words of named) expect(json.reasons.join('\n'), cause).toContain(words);
    const markdown = reports['conformance.md'] as string;
    expect(markdown).toContain('Result: **not run: configuration** (profile gate)');
    expect(markdown).toContain('Exit code 2: no test was run.');
    for (const words of named) expect(markdown.replace(/\\(.)/g, '$1')).toContain(words);
    expect(markdown).not.toMatch(/partial run|conformant/);
    const junit = reports['junit.xml'] as string;
    expect(junit).toMatch(/<testcase name="verdict \(gate profile\)" classname="verdict"/);
    expect(junit).toContain('<failure type="verdict" message="not run: configuration">');
    expect(junit).toContain('<property name="exit-code" value="2"/>');
    expect(JSON.parse(reports['results.json'] as string), 'results.json').toMatchObject({
      suites: [],
      conformance: { result: 'not run: configuration', exitCode: 2 },
    });
    expect(reports['conformance.html']).toContain('Result: <b>not run: configuration</b>');
    expect(readdirSync(allure), 'the Allure results hold the verdict alone').toHaveLength(1);
  }
});

test("at a run's start every report it will write says it has not finished, in place of the last run's verdict", () => {
  const work = test.info().outputPath();
  const files = reportFiles(join(work, 'reports'), join(work, 'allure-results'));
  lastRun(files.dir, files.allureResults);
  markUnfinished(files, { profile: 'certify', environment: { seed: '7' }, startedAt: '2026-01-01T00:00:00.000Z' });
  const reports = read(files.dir);
  for (const [name, text] of Object.entries(reports)) {
    expect(text, name).toContain('not finished');
    expect(text, name).not.toContain('the last run');
  }
  const json = JSON.parse(reports['conformance.json'] as string) as Record<string, unknown>;
  expect(json).toMatchObject({ result: 'not finished', startedAt: '2026-01-01T00:00:00.000Z', requirements: [] });
  expect(json, 'a run not finished states no verdict').not.toHaveProperty('verdict');
  expect(reports['junit.xml']).toContain('<failure type="verdict" message="not finished">');
  expect(reports['junit.xml']).toContain('<property name="exit-code" value="none"/>');
  const allure = readdirSync(files.allureResults);
  expect(allure).toHaveLength(1);
  expect(
    JSON.parse(readFileSync(join(files.allureResults, allure[0] as string), 'utf8')) as Record<string, unknown>,
  ).toMatchObject({ status: 'unknown', name: 'verdict (certify profile): not finished' });
});
