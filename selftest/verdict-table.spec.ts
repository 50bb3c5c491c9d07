import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullResult, TestCase, TestResult } from '@playwright/test/reporter';
import { expect, test } from '@playwright/test';
import { requirements } from '../catalog/catalog.ts';
import ConformanceReporter from '../reporters/conformance-reporter.ts';
import { escapeHtml } from '../reporters/html-text.ts';
import { statedVerdict, verdictProblems, type StatedVerdict } from '../scripts/evidence/stated-verdict.ts';
import { scenarioOutcome, scenarioRun, VERDICT_SCENARIOS } from '../scripts/evidence/verdict-scenarios.ts';
import { inProcess } from './evidence-harness.ts';

// Every row of docs/verdicts.md (the verdict function's own output: selftest/docs-current.spec.ts) reads the same in
// every output: each scenario's tests go through the conformance reporter as Playwright would hand them over, then
// through verify-bundle's rule for each --require-* flag (sealing, verifying and the command's exit on that rule:
// selftest/evidence-bundle.spec.ts).

type Json = {
  result: string;
  verdict: StatedVerdict & { exitCode: number };
  requirements: Array<{ id: string; configure?: string[] }>;
};
const escapeXml = (text: string) => escapeHtml(text).replace(/&#39;/g, '&apos;');

for (const scenario of VERDICT_SCENARIOS) {
  test(`every output says the same of "${scenario.row}"`, async () => {
    const { run: expected, requireConformant, requireNoWarnings } = scenarioOutcome(scenario, requirements);
    const { tests, ledger } = scenarioRun(scenario, requirements);
    const dir = mkdtempSync(join(tmpdir(), 'verdict-table-'));
    const { profile } = scenario;
    const reporter = new ConformanceReporter({ outputDir: dir, profile, environment: { seed: '1' }, ledger });
    let status: FullResult['status'] | undefined;
    const shown = await inProcess(async () => {
      reporter.onBegin({ rootDir: '/repo', workers: 2 } as never, {} as never);
      tests.forEach((t, index) => {
        const location = { file: '/repo/tests/scenario.spec.ts', line: index + 1 };
        const parent = { project: () => ({ name: t.project }) };
        const testCase = { id: String(index), title: t.title, annotations: [], location, parent } as unknown;
        const errors = t.error ? [{ message: t.error }] : [];
        const result = { status: t.status, annotations: t.annotations, errors } as unknown;
        reporter.onTestEnd(testCase as TestCase, result as TestResult);
      });
      status = (await reporter.onEnd({ status: 'passed' } as FullResult))?.status;
      return 0;
    });
    const [printed, markdown, html, junit, text] = [
      shown.stdout + shown.stderr,
      ...['conformance.md', 'conformance.html', 'junit.xml', 'conformance.json'].map((f) =>
        readFileSync(join(dir, f), 'utf8'),
      ),
    ] as string[];
    rmSync(dir, { recursive: true, force: true });
    const json = JSON.parse(text as string) as Json;
    const { words, exitCode, reasons } = expected;
    expect(status, 'the exit status').toBe(exitCode === 0 ? 'passed' : 'failed');
    expect(printed, 'the console').toContain(`Verdict (${profile} profile): ${words}. Matrix:`);
    if (exitCode === 0)
      for (const output of [printed, markdown, html, text])
        expect(output, 'no exit 0 says not conformant').not.toContain('not conformant');
    expect(json).toMatchObject({
      result: words,
      reasons,
      verdict: { words, exitCode, conformant: expected.conformant, warnings: expected.warnings },
    });
    expect(markdown, 'conformance.md').toContain(`Result: **${words}** (profile ${profile})`);
    expect(html, 'conformance.html').toContain(`Result: <b>${escapeHtml(words)}</b>`);
    const verdictCase = /<testcase name="verdict \(([^)]*) profile\)"[^>]*>([\s\S]*?)<\/testcase>/.exec(
      junit as string,
    );
    expect(verdictCase?.[1], 'JUnit has a run-level verdict test case').toBe(profile);
    expect(verdictCase?.[2]?.includes('<failure'), 'the JUnit verdict fails exactly when the exit code is not 0').toBe(
      exitCode !== 0,
    );
    for (const reason of reasons) expect(verdictCase?.[2]).toContain(escapeXml(reason));

    // Every not-configured row names its variable in each output.
    for (const id of expected.notConfigured.requirements) {
      expect(json.requirements.find((r) => r.id === id)?.configure).toEqual(['ORDER_TRIGGER_404']);
      expect(markdown).toMatch(
        new RegExp(`\\| ${id} \\| MUST \\| [^|]+ \\| not configured \\(set ORDER_TRIGGER_404\\)`),
      );
      expect(html).toContain('not configured (set ORDER_TRIGGER_404)');
      expect(printed).toContain('set ORDER_TRIGGER_404');
      const junitCase = new RegExp(`<testcase name="${id} check"[^>]*>([\\s\\S]*?)</testcase>`).exec(junit as string);
      // Under certify it fails the run, so its test case fails naming what to set; otherwise it is skipped, naming it too.
      expect(junitCase?.[1]).toMatch(
        exitCode !== 0
          ? /<failure type="not-configured" message="[^"]*set ORDER_TRIGGER_404/
          : /<skipped message="not configured \(set ORDER_TRIGGER_404\)/,
      );
    }

    // What verify-bundle makes of the statement certify would sign from this conformance.json.
    const predicate = { profile, result: json.result, verdict: statedVerdict(json.verdict, exitCode) };
    expect(verdictProblems(predicate, { conformant: true })).toEqual(requireConformant);
    expect(verdictProblems(predicate, { noWarnings: true })).toEqual(requireNoWarnings);
  });
}
