import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { catalogSha256, interfaceInfo, requirements } from '../catalog/catalog.ts';
import { matrixMarkdown, summaryTable } from './matrix-markdown.ts';
import { failureReasons, verdictsFor, type Profile, type TestRecord } from './verdicts.ts';

export interface ConformanceReporterOptions {
  outputDir?: string;
  profile?: Profile;
  /** Printed and written with the matrix: target, seed, suite version (no secrets). */
  environment?: Record<string, string>;
}

/**
 * Joins the run's results with the requirements catalog, writes conformance.json and conformance.md, prints a
 * summary, and sets the run's status from the requirements: under the gate profile the run fails exactly when a
 * MUST requirement failed.
 */
export default class ConformanceReporter implements Reporter {
  private readonly records = new Map<string, TestRecord>();
  private rootDir = process.cwd();
  private globalErrors: string[] = [];
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
    const error = result.errors[0];
    this.records.set(test.id, {
      title: test.title,
      project: test.parent.project()?.name ?? '',
      location: `${relative(this.rootDir, test.location.file)}:${test.location.line}`,
      status: result.status,
      annotations: [...test.annotations, ...result.annotations].map((a) => ({ type: a.type, ...(a.description !== undefined ? { description: a.description } : {}) })),
      ...(error ? { error: firstLine(error), errorName: errorName(error) } : {}),
    });
  }

  onError(error: TestError): void {
    this.globalErrors.push(firstLine(error));
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    const tests = [...this.records.values()];
    const verdicts = verdictsFor(requirements, tests);
    const reasons = failureReasons(verdicts, this.profile);
    const report = {
      interface: interfaceInfo,
      catalogSha256,
      profile: this.profile,
      environment: this.options.environment ?? {},
      finishedAt: new Date().toISOString(),
      result: reasons.length === 0 ? 'conformant' : 'not conformant',
      reasons,
      globalErrors: this.globalErrors,
      requirements: verdicts,
    };
    mkdirSync(this.outputDir, { recursive: true });
    writeFileSync(join(this.outputDir, 'conformance.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(this.outputDir, 'conformance.md'), matrixMarkdown(report));
    console.log(`\n${summaryTable(verdicts)}`);
    for (const reason of reasons) console.log(`  ${reason}`);
    console.log(`  Verdict (${this.profile} profile): ${report.result}. Matrix: ${join(this.outputDir, 'conformance.md')}\n`);

    if (result.status === 'interrupted' || result.status === 'timedout') return undefined;
    if (tests.length === 0 || this.globalErrors.length > 0) return { status: 'failed' };
    return { status: reasons.length === 0 ? 'passed' : 'failed' };
  }

  printsToStdio(): boolean {
    return true;
  }
}

function firstLine(error: TestError): string {
  return stripVTControlCharacters(error.message ?? error.value ?? 'unknown error').split('\n').slice(0, 6).join('\n');
}

function errorName(error: TestError): string | undefined {
  return /^(\w+(?:Failure|Error)):/.exec(error.message ?? '')?.[1] ?? /^(\w+(?:Failure|Error))\b/.exec(error.stack ?? '')?.[1];
}
