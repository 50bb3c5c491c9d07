import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestError,
  TestResult,
} from '@playwright/test/reporter';
import { catalogSha256, interfaceInfo, requirements } from '../catalog/catalog.ts';
import { junitXml } from './junit.ts';
import { matrixHtml } from './matrix-html.ts';
import { matrixMarkdown, summaryTable, uncoveredMust } from './matrix-markdown.ts';
import { isListingOnly } from './listing.ts';
import { firstLines, testRecordOf } from './test-record.ts';
import { blockedCause, marksOf, warningsFail } from '../kit/verdict-marks.ts';
import type { LedgerEntry } from '../schemas/ledger.ts';
import { BROKEN_SHOWN, brokenPreconditions, summaryLines } from './run-summary.ts';
import { failureBlock, ProjectProgress } from './console-progress.ts';
import { runFacts } from './run-facts.ts';
import {
  appendNight,
  historyDir,
  nightOf,
  nightsFile,
  readNights,
  sinceLastNight,
  type NightSource,
  type NightsView,
} from './nights.ts';
import { judgeRun } from './run-verdict.ts';
import { eventWaitsLines } from './event-waits.ts';
import { readWaitsOfRun, readWaitsSummary } from './read-waits.ts';
import type { Profile, TestRecord } from './verdicts.ts';

export interface ConformanceReporterOptions {
  outputDir?: string;
  profile?: Profile;
  /** Printed and written with the matrix: target, seed, suite version (no secrets). */
  environment?: Record<string, string>;
  /** Known failures (conformance-ledger.json): they read "known" and do not fail the run, except under certify. */
  ledger?: LedgerEntry[];
  /** CONFORMANCE_VERBOSE: Playwright's list reporter prints every test, so no line per project and no failure list here. */
  verbose?: boolean;
  /** The file GitHub Actions shows on a run's summary page (GITHUB_STEP_SUMMARY): conformance.md is appended to it. */
  stepSummary?: string;
  /** The variables that unlock each requirement (the doctor's table of optional settings): a row not configured names them all. */
  unlocks?: Record<string, string[]>;
  /** ALLURE_HISTORY_PATH, under the nightly profile: the night is kept beside it, per target and catalog digest. */
  allureHistoryPath?: string;
  /** The target whose history the night joins (the identity base URL, or the embedded sandbox and its flavor). */
  historyTarget?: string;
}

/** Failed tests printed in full in the console; conformance.md has every one. */
const FAILURES_SHOWN = 10;

/**
 * Joins the run's results with the requirements catalog, writes conformance.json, .md, .html and JUnit, prints a line
 * per project while the run goes, then each failure once and the summary (reporters/run-summary.ts), and sets the
 * run's status from reporters/run-verdict.ts: under the gate profile the run fails exactly when a MUST requirement
 * failed or the target blocked its check.
 */
export default class ConformanceReporter implements Reporter {
  private readonly records = new Map<string, TestRecord>();
  private rootDir = process.cwd();
  private globalErrors: string[] = [];
  private readonly announced = new Set<string>();
  private readonly outputDir: string;
  private readonly profile: Profile;
  private progress = new ProjectProgress(new Map());
  private concurrency = '';

  constructor(private readonly options: ConformanceReporterOptions = {}) {
    this.outputDir = options.outputDir ?? 'reports';
    this.profile = options.profile ?? 'gate';
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.rootDir = config.rootDir;
    const totals = new Map<string, number>();
    for (const test of suite.allTests?.() ?? []) {
      const project = test.parent.project()?.name ?? '';
      totals.set(project, (totals.get(project) ?? 0) + 1);
    }
    this.progress = new ProjectProgress(totals);
    const tests = [...totals.values()].reduce((a, b) => a + b, 0);
    const many = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
    const chosen = runFacts().workers;
    this.concurrency = `${many(tests, 'test')} in ${many(totals.size, 'project')} on ${many(config.workers, 'worker')} (${!chosen ? 'CONFORMANCE_WORKERS' : chosen.workers === config.workers ? chosen.why : '--workers'})`;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const record = testRecordOf(test, result, this.rootDir);
    this.records.set(test.id, record);
    this.announceBrokenPreconditions(record);
    const line = this.options.verbose ? undefined : this.progress.add(record);
    if (line) console.log(line);
  }

  /** A broken precondition is named once, as soon as a test is blocked by it, before the tests it will block too. */
  private announceBrokenPreconditions(record: TestRecord): void {
    for (const mark of marksOf(record.annotations)) {
      const cause = blockedCause(mark.detail);
      if (mark.kind !== 'blocked' || this.announced.has(cause)) continue;
      this.announced.add(cause);
      if (this.announced.size <= BROKEN_SHOWN)
        console.log(`  Blocked: ${cause} (every check standing on it is blocked too; see the summary)`);
    }
  }

  onError(error: TestError): void {
    this.globalErrors.push(firstLines(error));
    // Playwright's list reporter prints it itself under CONFORMANCE_VERBOSE.
    if (!this.options.verbose) console.error(`  Error outside the tests: ${firstLines(error)}`);
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    if (isListingOnly()) return undefined;
    const tests = [...this.records.values()];
    const preflightWarnings = runFacts().preflightWarnings ?? [];
    const { verdicts, run } = judgeRun(requirements, tests, this.profile, {
      ledger: this.options.ledger ?? [],
      globalErrors: this.globalErrors,
      notices: preflightWarnings.map((warning) => `the preflight could not decide: ${warning}`),
      ...(this.options.unlocks ? { unlocks: this.options.unlocks } : {}),
    });
    const uncovered = uncoveredMust(verdicts);
    const cost = runFacts().cost?.();
    const events = runFacts().eventWaits?.();
    const reads = readWaitsOfRun(tests);
    const { reasons, ...verdict } = run;
    const stoppedEarly = result.status === 'interrupted' || result.status === 'timedout';
    const nights = this.options.allureHistoryPath
      ? this.keepNight(
          this.options.allureHistoryPath,
          {
            finishedAt: new Date().toISOString(),
            result: run.words,
            requirements: verdicts,
            ...(cost ? { cost } : {}),
          },
          stoppedEarly,
        )
      : undefined;
    const report = {
      interface: interfaceInfo,
      catalogSha256,
      profile: this.profile,
      environment: this.options.environment ?? {},
      finishedAt: new Date().toISOString(),
      result: run.words,
      reasons,
      verdict,
      globalErrors: this.globalErrors,
      ...(preflightWarnings.length ? { preflight: { warnings: preflightWarnings } } : {}),
      uncoveredMust: uncovered,
      ...(cost ? { cost } : {}),
      ...(events ? { events } : {}),
      ...(reads ? { reads } : {}),
      ...(nights
        ? {
            nights: {
              dir: nights.dir,
              count: nights.view.nights.length,
              stoppedEarly,
              ...(nights.view.since ? { sinceLastNight: nights.view.since } : {}),
            },
          }
        : {}),
      requirements: verdicts,
    };
    mkdirSync(this.outputDir, { recursive: true });
    writeFileSync(join(this.outputDir, 'conformance.json'), `${JSON.stringify(report, null, 2)}\n`);
    const view = nights ? { history: nights.view } : {};
    const markdown = matrixMarkdown({ ...report, run, ...view });
    writeFileSync(join(this.outputDir, 'conformance.md'), markdown);
    writeFileSync(join(this.outputDir, 'conformance.html'), matrixHtml({ ...report, run, ...view }));
    const known = new Set(verdicts.filter((v) => v.outcome === 'known').map((v) => v.id));
    const outcomes = new Map(verdicts.map((v) => [v.id, v.outcome]));
    writeFileSync(
      join(this.outputDir, 'junit.xml'),
      junitXml(tests, {
        profile: this.profile,
        catalog: requirements,
        known,
        outcomes,
        run,
        ...(cost ? { cost } : {}),
        name: `${interfaceInfo.title} ${interfaceInfo.version} conformance`,
      }),
    );
    if (this.options.stepSummary) appendFileSync(this.options.stepSummary, markdown);

    if (!this.options.verbose) {
      for (const line of this.progress.unfinished()) console.log(line);
      this.printFailures(tests);
    }
    const matrixPath = join(this.outputDir, 'conformance.md');
    const eventLines = [...(events ? eventWaitsLines(events) : []), ...(reads ? [`  ${readWaitsSummary(reads)}`] : [])];
    const eventsLine = eventLines.length > 0 ? eventLines.join('\n') : undefined;
    console.log(
      summaryLines({
        run,
        table: summaryTable(verdicts),
        broken: brokenPreconditions(verdicts),
        ...(cost ? { cost } : {}),
        ...(eventsLine ? { eventsLine } : {}),
        ...(nights ? { nights: nights.view } : {}),
        concurrency: this.concurrency,
        matrixPath,
      }).join('\n'),
    );

    if (result.status === 'interrupted' || result.status === 'timedout') return undefined;
    return { status: run.exitCode === 0 ? 'passed' : 'failed' };
  }

  /** Tonight in the target's history: the nights before it, what changed since the last, and the night appended. */
  private keepNight(
    allureHistoryPath: string,
    source: NightSource,
    stoppedEarly: boolean,
  ): { dir: string; view: NightsView } {
    const dir = historyDir(
      allureHistoryPath,
      this.options.historyTarget ?? this.options.environment?.['target'] ?? 'unknown',
      catalogSha256,
    );
    const before = readNights(nightsFile(dir));
    const tonight = nightOf(source, stoppedEarly);
    const since = sinceLastNight(before, tonight);
    appendNight(nightsFile(dir), tonight);
    return { dir, view: { nights: [...before, tonight], ...(since ? { since } : {}) } };
  }

  /** Each failed test once, with its evidence and one replay per exchange; the rest are in the matrix. */
  private printFailures(tests: readonly TestRecord[]): void {
    const failed = tests.filter((t) => t.status === 'failed' || t.status === 'timedOut');
    if (failed.length === 0) return;
    const catalog = new Map(requirements.map((r) => [r.id, r]));
    console.log(`\nFailed tests (${failed.length})`);
    for (const record of failed.slice(0, FAILURES_SHOWN))
      console.log(failureBlock(record, catalog, warningsFail(this.profile)).join('\n'));
    if (failed.length > FAILURES_SHOWN)
      console.log(
        `  … ${failed.length - FAILURES_SHOWN} more failed tests in ${join(this.outputDir, 'conformance.md')}`,
      );
  }

  printsToStdio(): boolean {
    return true;
  }
}
