import { writeFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FullConfig, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { testRecordOf } from '../../reporters/test-record.ts';
import type { TestRecord } from '../../reporters/verdicts.ts';
import { testKey } from '../../runner/http/user-agent.ts';

/** A test's final result, as the conformance reporter keeps it, with its key (the one its requests' User-Agent carries). */
export interface KeyedRecord extends TestRecord {
  key: string;
}

/** What the proof run writes: every test's final result, of every target. */
export interface ProofResults {
  records: KeyedRecord[];
}

const testsDir = fileURLToPath(new URL('../../tests/', import.meta.url));

/**
 * The proof run's one reporter: each test's record as reporters/test-record.ts makes it for the conformance reporter,
 * keyed as fixtures/test.ts keys its requests. Playwright's JSON reporter kept every step and attachment besides (a
 * 55 MB file the proof read only for outcomes and marks).
 */
export default class ProofReporter implements Reporter {
  private rootDir = process.cwd();
  private readonly records = new Map<string, KeyedRecord>();

  constructor(private readonly options: { outputFile: string }) {}

  onBegin(config: FullConfig): void {
    this.rootDir = config.rootDir;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    // titlePath: the root's, the project's and the file's titles, then the describes' and the test's own.
    const key = testKey(relative(testsDir, test.location.file).split(sep).join('/'), test.titlePath().slice(3));
    this.records.set(test.id, { key, ...testRecordOf(test, result, this.rootDir) });
  }

  onEnd(): void {
    const results: ProofResults = { records: [...this.records.values()] };
    writeFileSync(this.options.outputFile, JSON.stringify(results));
  }

  printsToStdio(): boolean {
    return false;
  }
}
