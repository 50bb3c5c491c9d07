import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createPublicKey } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullResult, TestCase, TestResult } from '@playwright/test/reporter';
import { expect, test } from '@playwright/test';
import { requirements } from '../catalog/catalog.ts';
import type { LedgerEntry } from '../schemas/ledger.ts';
import ConformanceReporter from '../reporters/conformance-reporter.ts';
import type { TestRecord } from '../reporters/verdicts.ts';
import { newKeyPair, privateKeyFromPem } from '../scripts/evidence/dsse.ts';
import { sealBundle, verifyBundle } from '../scripts/evidence/statement.ts';
import { statedVerdict, verdictProblems, type StatedVerdict } from '../scripts/evidence/stated-verdict.ts';
import {
  scenarioOutcome,
  scenarioRun,
  VERDICT_SCENARIOS,
  type VerdictScenario,
} from '../scripts/evidence/verdict-scenarios.ts';

// Every row of docs/verdicts.md (the verdict function's own output: selftest/docs-current.spec.ts) reads the same in
// every output: each scenario's tests go through the conformance reporter as Playwright would hand them over, then
// through the bundle's statement and verify-bundle's rule for each --require-* flag (the command's exit on that rule
// and its line: selftest/evidence-bundle.spec.ts).

interface Written {
  status?: FullResult['status'];
  printed: string;
  json: {
    result: string;
    reasons: string[];
    verdict: StatedVerdict & { exitCode: number };
    requirements: Array<{ id: string; outcome: string; configure?: string[] }>;
  };
  markdown: string;
  html: string;
  junit: string;
}

/** The conformance reporter fed the scenario's tests, as Playwright hands them over: what it wrote, printed and returned. */
async function throughReporter(
  scenario: VerdictScenario,
  tests: TestRecord[],
  ledger: LedgerEntry[],
): Promise<Written> {
  const dir = mkdtempSync(join(tmpdir(), 'verdict-table-'));
  const reporter = new ConformanceReporter({
    outputDir: dir,
    profile: scenario.profile,
    environment: { seed: '1' },
    ledger,
  });
  const printed: string[] = [];
  const { log, error } = console;
  console.log = (...args: unknown[]) => void printed.push(args.join(' '));
  console.error = (...args: unknown[]) => void printed.push(args.join(' '));
  try {
    reporter.onBegin({ rootDir: '/repo', workers: 2 } as never, {} as never);
    tests.forEach((t, index) => {
      const testCase = {
        id: String(index),
        title: t.title,
        annotations: [],
        location: { file: '/repo/tests/scenario.spec.ts', line: index + 1 },
        parent: { project: () => ({ name: t.project }) },
      };
      const errors = t.error ? [{ message: t.error }] : [];
      reporter.onTestEnd(
        testCase as unknown as TestCase,
        { status: t.status, annotations: t.annotations, errors } as unknown as TestResult,
      );
    });
    const outcome = await reporter.onEnd({ status: 'passed' } as FullResult);
    const read = (name: string) => readFileSync(join(dir, name), 'utf8');
    return {
      status: outcome?.status,
      printed: printed.join('\n'),
      json: JSON.parse(read('conformance.json')) as Written['json'],
      markdown: read('conformance.md'),
      html: read('conformance.html'),
      junit: read('junit.xml'),
    };
  } finally {
    console.log = log;
    console.error = error;
    rmSync(dir, { recursive: true, force: true });
  }
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
const escapeXml = (text: string) =>
  text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string,
  );
const signer = privateKeyFromPem(newKeyPair().privatePem);

for (const scenario of VERDICT_SCENARIOS) {
  test(`every output says the same of "${scenario.row}"`, async () => {
    const expected = scenarioOutcome(scenario, requirements);
    const { tests, ledger } = scenarioRun(scenario, requirements);
    const written = await throughReporter(scenario, tests, ledger);
    const { words, exitCode } = expected.run;
    expect(written.status, 'the exit status').toBe(exitCode === 0 ? 'passed' : 'failed');
    expect(written.printed, 'the console').toContain(`Verdict (${scenario.profile} profile): ${words}. Matrix:`);
    if (exitCode === 0)
      for (const output of [written.printed, written.markdown, written.html, JSON.stringify(written.json)])
        expect(output, 'no exit 0 says not conformant').not.toContain('not conformant');
    expect(written.json).toMatchObject({
      result: words,
      reasons: expected.run.reasons,
      verdict: { words, exitCode, conformant: expected.run.conformant, warnings: expected.run.warnings },
    });
    expect(written.markdown, 'conformance.md').toContain(`Result: **${words}** (profile ${scenario.profile})`);
    expect(written.html, 'conformance.html').toContain(`Result: <b>${escapeHtml(words)}</b>`);
    const verdictCase = /<testcase name="verdict \(([^)]*) profile\)"[^>]*>([\s\S]*?)<\/testcase>/.exec(written.junit);
    expect(verdictCase?.[1], 'JUnit has a run-level verdict test case').toBe(scenario.profile);
    expect(verdictCase?.[2]?.includes('<failure'), 'the JUnit verdict fails exactly when the exit code is not 0').toBe(
      exitCode !== 0,
    );
    for (const reason of expected.run.reasons) expect(verdictCase?.[2]).toContain(escapeXml(reason));

    // Every not-configured row names its variable in each output.
    for (const id of expected.run.notConfigured.requirements) {
      expect(written.json.requirements.find((r) => r.id === id)?.configure).toEqual(['ORDER_TRIGGER_404']);
      expect(written.markdown).toContain(`| ${id} | MUST |`);
      expect(written.markdown).toMatch(
        new RegExp(`\\| ${id} \\| MUST \\| [^|]+ \\| not configured \\(set ORDER_TRIGGER_404\\)`),
      );
      expect(written.html).toContain('not configured (set ORDER_TRIGGER_404)');
      expect(written.printed).toContain('set ORDER_TRIGGER_404');
      const junitCase =
        new RegExp(`<testcase name="${id} check"[^>]*>([\\s\\S]*?)</testcase>`).exec(written.junit)?.[1] ?? '';
      // Under certify it fails the run, so its test case fails naming what to set; otherwise it is skipped, naming it too.
      expect(junitCase).toMatch(
        exitCode !== 0
          ? /<failure type="not-configured" message="[^"]*set ORDER_TRIGGER_404/
          : /<skipped message="not configured \(set ORDER_TRIGGER_404\)/,
      );
    }

    // The statement certify signs, and what verify-bundle makes of it.
    const dir = mkdtempSync(join(tmpdir(), 'verdict-bundle-'));
    try {
      writeFileSync(join(dir, 'conformance.json'), JSON.stringify(written.json));
      const predicate = {
        profile: scenario.profile,
        result: written.json.result,
        verdict: statedVerdict(written.json.verdict, exitCode),
        run: { partial: false, filters: [] },
      };
      sealBundle(dir, predicate, signer);
      const verified = verifyBundle(dir, createPublicKey(signer));
      expect(verified.ok, verified.problems.join('\n')).toBe(true);
      const stated = verified.statement?.predicate as Parameters<typeof verdictProblems>[0];
      expect(verdictProblems(stated, { conformant: true })).toEqual(expected.requireConformant);
      expect(verdictProblems(stated, { noWarnings: true })).toEqual(expected.requireNoWarnings);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
