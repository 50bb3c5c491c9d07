import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { childEnv, freePort, playwrightCli, readText, runCli, type CliRun } from './evidence-harness.ts';

// The gate end to end, against the embedded sandbox started with faults: what an implementer's CI sees. A filtered
// run that passes (partial, never conformant, exit 0, a short console) is the green run of run-reports.spec.ts.

interface Report {
  result: string;
  reasons: string[];
  requirements: Array<{
    id: string;
    outcome: string;
    tests: Array<{ title: string; outcome: string; detail?: string }>;
  }>;
}

async function gateRun(
  faults: string[],
  args: string[],
  extra: Record<string, string> = {},
): Promise<{ run: CliRun; report: Report; junit: string }> {
  const work = mkdtempSync(join(tmpdir(), 'honest-gate-'));
  try {
    const reportsDir = join(work, 'reports');
    const env = childEnv(work, {
      SANDBOX_FAULTS: faults.join(','),
      SANDBOX_PORT: String(await freePort()),
      WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`,
      REPORTS_DIR: reportsDir,
      TEST_RESULTS_DIR: join(work, 'test-results'),
      ...extra,
    });
    const run = await runCli(process.execPath, [playwrightCli, 'test', ...args], env);
    return {
      run,
      report: JSON.parse(readText(join(reportsDir, 'conformance.json'))) as Report,
      junit: readText(join(reportsDir, 'junit.xml')),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const output = (run: CliRun) => `${run.stdout}\n${run.stderr}`.slice(-4000);

test('three independent defects checked by one test are all reported by one run, in one error', async () => {
  const faults = ['json-as-text-plain', 'assessment-tags-as-string', 'assessment-inquiry-not-echoed'];
  const { run, report } = await gateRun(faults, ['--project', 'identity', '--grep', '@ASM-RES-IDS']);
  expect(run.code, output(run)).toBe(1);
  const roundTrip = (id: string) =>
    report.requirements.find((r) => r.id === id)?.tests.find((t) => t.title.includes('every field of 2.1'));
  for (const id of ['GEN-JSON-RESPONSE', 'ASM-RES-SCHEMA', 'ASM-RES-IDS'])
    expect(roundTrip(id)?.outcome, id).toBe('failed');
  // The console prints each failed test once, every requirement it failed, and each exchange's replay once.
  const start = run.stdout.search(
    /^ {2}✘ \[identity\] › .* › an assessment round-trips through fetch by case id: full request/m,
  );
  expect(start, output(run)).toBeGreaterThan(-1);
  const block = run.stdout.slice(start).split(/\n(?= {2}✘ |\n)/)[0] ?? '';
  for (const id of ['GEN-JSON-RESPONSE (MUST', 'ASM-RES-SCHEMA (MUST', 'ASM-RES-IDS (MUST'])
    expect(block, output(run)).toContain(id);
  const curls = [...block.matchAll(/^ {6}(curl -sS -i -X \w+ '[^']*')/gm)].map((m) => m[1]);
  expect(curls.length, block).toBeGreaterThan(0);
  expect(curls.length, 'one replay per exchange').toBe(new Set(curls).size);
  expect(run.stdout.split(/^ {2}✘ /m).length - 1, 'each failed test printed once').toBe(
    report.requirements
      .flatMap((r) => r.tests)
      .filter((t) => t.outcome === 'failed')
      .reduce((titles, t) => titles.add(t.title), new Set<string>()).size,
  );
  expect(report.result).toMatch(/^not conformant: \d+ MUST failed \(/);
});

test('a target that never delivers a webhook fails the gate: the flows fail EVT-FLOW-DELIVERY, the rest is blocked, JUnit agrees', async () => {
  const { run, report, junit } = await gateRun(
    ['webhooks-never-sent'],
    ['--project', 'webhooks', '--project', 'run-end'],
    { WEBHOOK_WAIT_MS: '300' },
  );
  expect(run.code, output(run)).toBe(1);
  expect(report.requirements.find((r) => r.id === 'EVT-FLOW-DELIVERY')?.outcome).toBe('failed');
  expect(report.requirements.find((r) => r.id === 'EVT-SESSION-SCHEMA')?.outcome).toBe('blocked');
  expect(report.reasons.join('\n')).toMatch(
    /MUST requirements blocked by the target: .*EVT-SESSION-SCHEMA.*\(blocked by: /,
  );
  expect(run.stdout).toContain('Verdict (gate profile): not conformant');
  // One flow waited its window; every later one, and the run-end check, was blocked at once: not tried.
  const notTried = report.requirements
    .find((r) => r.id === 'EVT-SESSION-SCHEMA')
    ?.tests.filter((t) => t.detail?.startsWith('not tried: '));
  expect(notTried?.length, output(run)).toBeGreaterThan(0);
  expect(run.stdout).toMatch(/checks? not tried: blocked at once, not waited for again\)/);
  // Every test with a MUST blocked or failed is a failure (or error) in JUnit, and none passes.
  const cases = [...junit.matchAll(/<testcase name="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)];
  expect(cases.length).toBeGreaterThan(0);
  for (const [, name, body] of cases) expect(body, name).toMatch(/<failure|<error /);
});

test('records that never appear are waited for once: the first check that reads them is blocked, every later one not tried', async () => {
  const { run, report } = await gateRun(
    ['records-never-ready'],
    ['--project', 'identity', '--grep', '@DOCR-DATA-VALUES'],
    {
      DOCUMENT_READY_TIMEOUT_MS: '300',
    },
  );
  expect(run.code, output(run)).toBe(1);
  const tests = report.requirements.find((r) => r.id === 'DOCR-DATA-VALUES')?.tests ?? [];
  expect(tests.length, output(run)).toBeGreaterThan(2);
  expect(tests.every((t) => t.outcome === 'blocked')).toBe(true);
  const tried = tests.filter((t) => !t.detail?.startsWith('not tried: '));
  expect(
    tried.map((t) => t.title),
    'waited for once',
  ).toHaveLength(1);
  for (const t of tests.filter((x) => x !== tried[0]))
    expect(t.detail, "the first one's words and evidence").toBe(`not tried: ${tried[0]?.detail}`);
  expect(run.stdout.match(/^ {2}Blocked: /gm), 'announced once').toHaveLength(1);
});
