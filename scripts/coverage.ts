import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requirements } from '../catalog/catalog.ts';
import { faults } from '../sandbox/faults.ts';
import { placesIn } from '../kit/verdict-marks.ts';
import { parseCli } from './cli.ts';
import {
  analyseCoverage,
  coverageMarkdown,
  generatedStatements,
  type ListedTest,
  type Statement,
} from './coverage/analyse.ts';

// npm run coverage: every statement of the interface document -> requirement -> checks -> sandbox faults, written to
// reports/coverage.md. Exits 1 when a statement has no check, a MUST no fault, or a requirement no statement or test.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
parseCli({
  summary:
    'Joins the statements of the interface document with their requirements, checks and sandbox faults (reports/coverage.md).',
  usage: 'npm run coverage',
  options: {},
  describe: {},
  epilogue:
    'Exit codes: 0 every cell covered, 1 a statement without a check, a MUST without a fault, or a requirement x place without either.',
});

interface JsonSuite {
  specs?: Array<{ title: string; tags?: string[]; tests: Array<{ projectName: string }> }>;
  suites?: JsonSuite[];
}

/** The suite's tests, as `playwright test --list` sees them (no test runs). */
function listTests(): ListedTest[] {
  const dir = mkdtempSync(join(tmpdir(), 'coverage-'));
  const output = join(dir, 'list.json');
  try {
    const listing = spawnSync(
      process.execPath,
      [join(repoRoot, 'node_modules/@playwright/test/cli.js'), 'test', '--list', '--reporter=json'],
      {
        cwd: repoRoot,
        // eslint-disable-next-line no-restricted-properties -- the environment given to a child process
        env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: output },
        encoding: 'utf8',
      },
    );
    if (listing.status !== 0)
      throw new Error(`playwright test --list failed (${listing.status}): ${listing.stderr || listing.stdout}`);
    const report = JSON.parse(readFileSync(output, 'utf8')) as { suites: JsonSuite[] };
    const tests: ListedTest[] = [];
    const visit = (suite: JsonSuite) => {
      for (const spec of suite.specs ?? []) {
        const tags = spec.tags ?? [];
        const places = placesIn(tags);
        const ids = tags.map((tag) => tag.replace(/^@/, '')).filter((tag) => !tag.startsWith('on:'));
        for (const test of spec.tests) tests.push({ title: spec.title, project: test.projectName, ids, places });
      }
      for (const inner of suite.suites ?? []) visit(inner);
    };
    for (const suite of report.suites) visit(suite);
    return tests;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const listed = (
  JSON.parse(readFileSync(join(repoRoot, 'catalog/statements.json'), 'utf8')) as { statements: Statement[] }
).statements;
const statements = [...listed, ...generatedStatements(requirements)];
const coverage = analyseCoverage({ statements, requirements, tests: listTests(), faults });
mkdirSync(join(repoRoot, 'reports'), { recursive: true });
writeFileSync(join(repoRoot, 'reports/coverage.md'), coverageMarkdown(coverage));
const checkable = statements.filter((s) => s.requirements.length > 0).length;
console.log(
  `coverage: ${statements.length} statements of the interface document (${checkable} checked, ${statements.length - checkable} not checkable), ${requirements.length} requirements, ${coverage.cells.length} requirement × place cells, ${faults.length} faults (${Object.entries(
    coverage.faultsByClass,
  )
    .map(([name, ids]) => `${name} ${ids.length}`)
    .join(', ')}); tables in reports/coverage.md`,
);
for (const problem of coverage.problems) console.log(`  ${problem}`);
if (coverage.problems.length > 0) {
  console.log(`coverage: ${coverage.problems.length} problem${coverage.problems.length === 1 ? '' : 's'}`);
  process.exit(1);
}
