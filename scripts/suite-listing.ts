import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { testKey } from '../runner/http/user-agent.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const testsDir = join(repoRoot, 'tests');
const cli = join(repoRoot, 'node_modules/@playwright/test/cli.js');

/** One test of the suite as the proof run selects it: its key (the one its requests' User-Agent carries), file and tags. */
export interface ListedTest {
  key: string;
  /** Relative to tests/, with /. */
  file: string;
  /** Without their @: requirement IDs and on:<place>. */
  tags: string[];
}

interface JsonSuite {
  title: string;
  file?: string;
  specs?: Array<{ title: string; file: string; tags?: string[] }>;
  suites?: JsonSuite[];
}

/** A test's file relative to tests/, from a JSON report's file name (relative to the configuration's rootDir). */
export function suiteFile(rootDir: string, file: string): string {
  return relative(testsDir, resolve(rootDir, file)).split(sep).join('/');
}

/** The tests of a Playwright JSON report, each with its key; describe titles are the suites below the file's. */
export function listedTests(report: { config: { rootDir: string }; suites: JsonSuite[] }): ListedTest[] {
  const tests = new Map<string, ListedTest>();
  const visit = (suite: JsonSuite, describes: string[]) => {
    for (const spec of suite.specs ?? []) {
      const file = suiteFile(report.config.rootDir, spec.file);
      const key = testKey(file, [...describes, spec.title]);
      tests.set(key, { key, file, tags: spec.tags ?? [] });
    }
    for (const inner of suite.suites ?? []) visit(inner, [...describes, inner.title]);
  };
  for (const fileSuite of report.suites) visit(fileSuite, []);
  return [...tests.values()];
}

/** Lists the suite's tests (playwright test --list against the embedded sandbox's configuration; nothing runs). */
export async function listSuite(): Promise<ListedTest[]> {
  const work = mkdtempSync(join(tmpdir(), 'proof-listing-'));
  const output = join(work, 'list.json');
  try {
    await promisify(execFile)(process.execPath, [cli, 'test', '--list', '--reporter=json'], {
      cwd: repoRoot,
      // eslint-disable-next-line no-restricted-properties -- the environment given to a child process
      env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: output, CONFORMANCE_QUIET: '1', CI: '' },
      maxBuffer: 64 * 1024 * 1024,
    });
    return listedTests(JSON.parse(readFileSync(output, 'utf8')) as Parameters<typeof listedTests>[0]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
