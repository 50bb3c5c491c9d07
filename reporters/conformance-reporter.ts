import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { catalogSha256, interfaceInfo, requirements } from '../catalog/catalog.ts';
import { junitXml } from './junit.ts';
import { matrixHtml } from './matrix-html.ts';
import { matrixMarkdown, summaryTable, uncoveredMust } from './matrix-markdown.ts';
import { isListingOnly } from './listing.ts';
import { firstLines, testRecordOf } from './test-record.ts';
import { marksOf } from '../harness/verdict-marks.ts';
import type { LedgerEntry } from '../harness/config/ledger.ts';
import { applyLedger } from './ledger.ts';
import { brokenPreconditions, costLine, runCost } from './run-summary.ts';
import { runState } from '../harness/run/run-state.ts';
import { failureReasons, resultOf, verdictsFor, type Profile, type TestRecord } from './verdicts.ts';

export interface ConformanceReporterOptions {
  outputDir?: string;
  profile?: Profile;
  /** Printed and written with the matrix: target, seed, suite version (no secrets). */
  environment?: Record<string, string>;
  /** Known failures (conformance-ledger.json): they read "known" and do not fail the run, except under certify. */
  ledger?: LedgerEntry[];
}

/**
 * Joins the run's results with the requirements catalog, writes conformance.json and conformance.md, prints a
 * summary, and sets the run's status from the requirements: under the gate profile the run fails exactly when a
 * MUST requirement failed or the target blocked its check.
 */
export default class ConformanceReporter implements Reporter {
  private readonly records = new Map<string, TestRecord>();
  private rootDir = process.cwd();
  private globalErrors: string[] = [];
  private readonly announced = new Set<string>();
  private readonly outputDir: string;
  private readonly profile: Profile;

  constructor(private readonly options: ConformanceReporterOptions = {}) {
    this.outputDir = options.outputDir ?? 'reports';
    this.profile = options.profile ?? 'gate';
  }

  onBegin(config: FullConfig, _suite: Suite): void {
    this.rootDir = config.rootDir;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const record = testRecordOf(test, result, this.rootDir);
    this.records.set(test.id, record);
    this.announceBrokenPreconditions(record);
  }

  /** A broken precondition is named once, as soon as a test is blocked by it, before the tests it will block too. */
  private announceBrokenPreconditions(record: TestRecord): void {
    for (const mark of marksOf(record.annotations)) {
      if (mark.kind !== 'blocked' || this.announced.has(mark.detail)) continue;
      this.announced.add(mark.detail);
      if (this.announced.size <= BROKEN_SHOWN) console.log(`  Blocked: ${mark.detail} (every check standing on it is blocked too; see the summary)`);
    }
  }

  onError(error: TestError): void {
    this.globalErrors.push(firstLines(error));
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    if (isListingOnly()) return undefined;
    const tests = [...this.records.values()];
    const judged = verdictsFor(requirements, tests);
    // A certification is not granted on promises: the certify profile ignores the ledger.
    const { verdicts, problems: ledgerProblems } = this.profile === 'certify' ? { verdicts: judged, problems: [] } : applyLedger(judged, this.options.ledger ?? [], new Date().toISOString().slice(0, 10));
    const reasons = [...runProblems(tests.length, this.globalErrors), ...ledgerProblems, ...failureReasons(verdicts, this.profile)];
    const uncovered = uncoveredMust(verdicts);
    const stats = runState().broker?.stats();
    const cost = stats ? runCost(stats) : undefined;
    const report = {
      interface: interfaceInfo,
      catalogSha256,
      profile: this.profile,
      environment: this.options.environment ?? {},
      finishedAt: new Date().toISOString(),
      result: resultOf(verdicts, reasons),
      reasons,
      globalErrors: this.globalErrors,
      uncoveredMust: uncovered,
      ...(cost ? { cost } : {}),
      requirements: verdicts,
    };
    mkdirSync(this.outputDir, { recursive: true });
    writeFileSync(join(this.outputDir, 'conformance.json'), `${JSON.stringify(report, null, 2)}\n`);
    const markdown = matrixMarkdown(report);
    writeFileSync(join(this.outputDir, 'conformance.md'), markdown);
    writeFileSync(join(this.outputDir, 'conformance.html'), matrixHtml(report));
    const known = new Set(verdicts.filter((v) => v.outcome === 'known').map((v) => v.id));
    writeFileSync(join(this.outputDir, 'junit.xml'), junitXml(tests, { profile: this.profile, catalog: requirements, known, name: `${interfaceInfo.title} ${interfaceInfo.version} conformance` }));
    // GitHub Actions shows this file on the run's summary page.
    if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, markdown);
    const broken = brokenPreconditions(verdicts);
    if (broken.length) {
      console.log(`\nBroken preconditions: what the target did that kept checks from running (fix these first)`);
      for (const line of broken.slice(0, BROKEN_SHOWN)) console.log(`  - ${line}`);
      if (broken.length > BROKEN_SHOWN) console.log(`  - … ${broken.length - BROKEN_SHOWN} more in ${join(this.outputDir, 'conformance.md')}`);
    }
    console.log(`\n${summaryTable(verdicts)}`);
    if (cost) console.log(costLine(cost));
    if (uncovered.length) console.log(`  ${uncovered.length} MUST requirement${uncovered.length === 1 ? ' has' : 's have'} no test in this run: ${uncovered.length > 8 ? `${uncovered.slice(0, 8).join(', ')}, …` : uncovered.join(', ')}`);
    for (const reason of reasons) console.log(`  ${reason}`);
    console.log(`  Verdict (${this.profile} profile): ${report.result}. Matrix: ${join(this.outputDir, 'conformance.md')}\n`);

    if (result.status === 'interrupted' || result.status === 'timedout') return undefined;
    return { status: reasons.length === 0 ? 'passed' : 'failed' };
  }

  printsToStdio(): boolean {
    return true;
  }
}

/** Causes of blocked checks printed in the console; the matrix lists all of them. */
const BROKEN_SHOWN = 8;

/** A run that checked nothing, or broke outside its tests, proves nothing: it is never conformant. */
function runProblems(testCount: number, globalErrors: readonly string[]): string[] {
  return [
    ...(testCount === 0 ? ['No test ran: check the --grep and --project filters'] : []),
    ...(globalErrors.length > 0 ? [`The run broke outside the tests (${globalErrors.length} error${globalErrors.length === 1 ? '' : 's'}): ${globalErrors[0]?.split('\n')[0] ?? ''}`] : []),
  ];
}
