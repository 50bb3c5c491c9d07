import { rmSync } from 'node:fs';
import { relative, sep } from 'node:path';
import type { FullConfig, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import type { StepResult, TestResult as AllureTestResult } from 'allure-js-commons';
import { AllureReporter } from 'allure-playwright';
import { UnsyncedFileWriter } from './allure-writer.ts';
import { allureEnrichment, type AllureEnrichment, type RequirementRow } from './allure-enrichment.ts';
import { isListingOnly } from './listing.ts';
import { SpecParts } from './spec-parts.ts';
import { testRecordOf } from './test-record.ts';

type AllureOptions = NonNullable<ConstructorParameters<typeof AllureReporter>[0]>;

export interface ConformanceAllureOptions {
  resultsDir: string;
  /** Shown on the report's overview (environment.properties): versions, target, profile, seed, catalog hash. */
  environmentInfo: Record<string, string>;
  /** Base URL of interface.md for the clause links; default: the document next to the repository, as a file URL. */
  specUrl?: string;
  /** Applied to every name, message and trace the report shows: a last guard against a secret in an error. */
  redact?: (text: string) => string;
}

const STEP_STATUS: Record<RequirementRow['outcome'], string> = {
  passed: 'passed',
  observed: 'passed',
  failed: 'failed',
  blocked: 'broken',
  warning: 'broken',
  known: 'skipped',
  'not-exercised': 'skipped',
  'not-produced': 'skipped',
  'not-configured': 'skipped',
  uncovered: 'skipped',
};

/**
 * allure-playwright, with each test labelled from the requirements catalog (allure-enrichment.ts), the cited
 * requirements shown as one step each with their outcome instead of raw annotations, and a run's results
 * replacing the previous run's.
 */
export default class ConformanceAllureReporter extends AllureReporter {
  private readonly enrichments = new Map<string, AllureEnrichment>();
  private readonly conformance: ConformanceAllureOptions;
  private parts: SpecParts | undefined;

  constructor(options: ConformanceAllureOptions) {
    const pending: { apply?: (result: AllureTestResult) => void } = {};
    const allureOptions: AllureOptions = {
      resultsDir: options.resultsDir,
      detail: false,
      suiteTitle: true,
      environmentInfo: options.environmentInfo,
      listeners: [{ beforeTestResultWrite: (result) => pending.apply?.(result) }],
    };
    super(allureOptions);
    this.conformance = options;
    pending.apply = (result) => this.enrich(result);
  }

  override onConfigure(config: FullConfig): void {
    // Under merge-reports the configuration has no projects, and allure-playwright reads the first one's outputDir.
    super.onConfigure(
      config.projects.length > 0
        ? config
        : { ...config, projects: [{ outputDir: `${config.rootDir}/test-results` } as FullConfig['projects'][number]] },
    );
    this.parts = new SpecParts(this.conformance.specUrl);
  }

  override onBegin(suite: Suite): void {
    if (isListingOnly()) return;
    // One run per results folder: the report shows this run; Allure 3 keeps history apart (npm run report, nightly).
    rmSync(this.conformance.resultsDir, { recursive: true, force: true });
    super.onBegin(suite);
    (this as unknown as { allureRuntime: { writer: unknown } }).allureRuntime.writer = new UnsyncedFileWriter(
      this.conformance.resultsDir,
    );
  }

  override async onEnd(): Promise<void> {
    if (!isListingOnly()) await super.onEnd();
  }

  override async onTestEnd(test: TestCase, result: TestResult): Promise<void> {
    const record = testRecordOf(test, result, this.config.rootDir);
    if (this.parts)
      this.enrichments.set(this.keyOf(record.project, this.fullNameOf(test)), allureEnrichment(record, this.parts));
    await super.onTestEnd(test, result);
  }

  /** allure-playwright's fullName of a test: its file relative to rootDir, then its titles. */
  private fullNameOf(test: TestCase): string {
    const file = relative(this.config.rootDir, test.location.file).split(sep).join('/');
    return [file, ...test.titlePath().slice(3)].join(' › ');
  }

  private keyOf(project: string, fullName: string): string {
    return `${project}\n${fullName}`;
  }

  private enrich(result: AllureTestResult): void {
    const project = result.parameters.find((p) => p.name === 'Project')?.value ?? '';
    const key = this.keyOf(project, result.fullName ?? '');
    const enrichment = this.enrichments.get(key);
    this.enrichments.delete(key);
    if (enrichment) {
      const replaced = new Set(['epic', 'feature', 'story', 'severity', 'parentSuite']);
      result.labels = [...result.labels.filter((l) => !replaced.has(l.name)), ...enrichment.labels];
      result.links = [...result.links, ...enrichment.links];
      result.description = enrichment.description;
      const citation = 'requirement: ';
      result.steps = [
        ...result.steps.filter((s) => !s.name?.startsWith(citation)),
        ...enrichment.rows.map(verdictStep),
      ];
      if (result.status === 'failed' && enrichment.verdict === 'MUST blocked')
        result.status = 'broken' as AllureTestResult['status'];
    }
    const redact = this.conformance.redact;
    if (redact) redactResult(result, redact);
  }
}

function verdictStep(row: RequirementRow): StepResult {
  const { id, level } = row.requirement;
  const at = Date.now();
  return {
    name: `${id} (${level}): ${row.outcome}`,
    status: STEP_STATUS[row.outcome] as StepResult['status'],
    statusDetails: row.detail && row.outcome !== 'passed' ? { message: row.detail } : {},
    stage: 'finished' as StepResult['stage'],
    steps: [],
    attachments: [],
    parameters: [],
    start: at,
    stop: at,
  };
}

function redactResult(result: AllureTestResult | StepResult, redact: (text: string) => string): void {
  if (result.name) result.name = redact(result.name);
  if (result.description) result.description = redact(result.description);
  if (result.statusDetails.message) result.statusDetails.message = redact(result.statusDetails.message);
  if (result.statusDetails.trace) result.statusDetails.trace = redact(result.statusDetails.trace);
  for (const parameter of result.parameters) parameter.value = redact(parameter.value);
  for (const step of result.steps) redactResult(step, redact);
}
