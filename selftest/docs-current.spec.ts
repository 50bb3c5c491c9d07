import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';
import { parse } from 'yaml';
import { operations, requirements } from '../catalog/catalog.ts';
import { clientRequirements } from '../catalog/client-catalog.ts';
import { configSchema } from '../schemas/variables.ts';
import { faults } from '../sandbox/faults.ts';
import { commands as subcommands } from '../scripts/command.ts';
import { settingsTable } from '../scripts/doctor-settings.ts';
import { verdictTable } from '../scripts/evidence/verdict-scenarios.ts';
import { checksIndex, fixturesIndex } from '../scripts/writing-checks.ts';
import {
  classifiedIds,
  readResults,
  resultsOfReport,
  resultsTable,
  score,
  sectionOf,
} from '../tools/mutation/results.ts';
import { repoRoot } from './evidence-harness.ts';
import { packaged } from './node-lines.ts';
import { roomTable } from './rooms.ts';

// Every document that repeats what a generator writes or a single source holds, one row each: the doc, where what it
// says comes from (the command that regenerates it, or the source to follow by hand), and what must hold for it to be
// current. A failing row names the doc and its command.

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
const readme = read('README.md');

/** The text between <!-- name --> and <!-- /name --> of a doc, which a script writes; undefined without the markers. */
const block = (doc: string, name: string) =>
  new RegExp(`<!-- ${name} -->\\n([\\s\\S]*?)\\n<!-- /${name} -->`).exec(read(doc))?.[1];

/** The rows of a decisions table (docs/levels.md, docs/client-levels.md): row id → its level and Source ids. */
function rowsOfTable(markdown: string): Map<string, { level: string; sources: string[] }> {
  const found = new Map<string, { level: string; sources: string[] }>();
  let columns: string[] = [];
  for (const line of markdown.split('\n')) {
    const cells = line.startsWith('|') ? line.split('|').map((c) => c.trim()) : [];
    if (cells[1] === 'Row' || cells.length === 0) columns = cells;
    const cell = (name: string) => cells[columns.indexOf(name)] ?? '';
    const [id, level] = [cell('Row').replace(/`/g, ''), /\b(MUST|SHOULD|INFO)\b/.exec(cell('Level'))?.[1]];
    const sources = cell('Source').match(/\b(?:ST|RFC)[0-9A-Z.-]*[0-9A-Z]/g) ?? [];
    if (id && level) found.set(id, { level, sources });
  }
  return found;
}

const mutationResults = readResults(join(repoRoot, 'docs/mutation-results.json'));
const statements = (
  JSON.parse(read('catalog/statements.json')) as { statements: Array<{ id: string; requirements: string[] }> }
).statements;
const catalogLevel = new Map([...requirements, ...clientRequirements].map((r) => [r.id, r.level as string]));

/** What `take` finds at any depth of a parsed pipeline, from a key and its value; it looks deeper where it finds none. */
function deep(node: unknown, take: (key: string, value: unknown) => string[] | undefined): string[] {
  if (Array.isArray(node)) return node.flatMap((item) => deep(item, take));
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => take(key, value) ?? deep(value, take));
}
/** Every shell line of a pipeline: GitHub's `run:` and GitLab's `script`, `before_script` and `after_script`. */
const pipelineCommands = (pipeline: unknown) =>
  deep(pipeline, (key, value) => {
    if (key === 'run' && typeof value === 'string') return value.split('\n');
    if (['script', 'before_script', 'after_script'].includes(key) && Array.isArray(value)) return value.map(String);
  });
/** The Node major versions a pipeline runs on: GitHub's setup-node `node-version`, GitLab's `image: node:<n>`. */
const nodeLines = (pipeline: unknown) =>
  deep(pipeline, (key, value) => {
    if (key === 'node-version') return [String(value).split('.')[0] as string];
    if (key === 'image' && typeof value === 'string' && value.startsWith('node:'))
      return [/^node:(\d+)/.exec(value)?.[1] ?? value];
  });

const manifest = JSON.parse(read('package.json')) as {
  version: string;
  scripts: Record<string, string>;
  bin: Record<string, string>;
};
/** The Node lines selftest/package.spec.ts proves the suite on: the node<line> aliases of tools/runtimes. */
const supportedLines = packaged.map((runtime) => runtime.line);

/** A pipeline of examples/ci/ (the CI services are not reachable here): it parses, and runs only what exists. */
function pipelineHolds(file: string): void {
  const text = read(`examples/ci/${file}`);
  const pipeline = parse(text) as unknown;
  const lines = pipelineCommands(pipeline);
  expect(lines.length, 'the pipeline runs commands').toBeGreaterThan(0);
  const runs = (pattern: RegExp) => lines.flatMap((line) => [...line.matchAll(pattern)].map((m) => m[1] as string));
  const none = (names: string[], exists: (name: string) => boolean, what: string) =>
    expect(
      names.filter((name) => !exists(name)),
      what,
    ).toEqual([]);
  none(runs(/npm run ([\w:-]+)/g), (name) => name in manifest.scripts, 'npm scripts package.json lacks');
  const binaries = (bin: string) => bin in manifest.bin || existsSync(join(repoRoot, 'node_modules', '.bin', bin));
  none(runs(/npx ([\w@/.-]+)/g), binaries, 'npx commands with no binary in node_modules/.bin');
  const ours = runs(/npx identity-proofing-conformance (\S+)/g);
  none(ours, (name) => name in subcommands, 'subcommands the command lacks');
  expect(
    ours.some((name) => name === 'run' || name === 'merge-reports'),
    'the pipeline runs the suite',
  ).toBe(true);
  expect(
    lines.some((line) => /npm install .*"\$CONFORMANCE_SUITE"/.test(line)),
    'installs the suite',
  ).toBe(true);
  expect(text, 'the suite pinned by version').toContain(
    `CONFORMANCE_SUITE: identity-proofing-conformance@${manifest.version}`,
  );
  // npm builds a git install through the package's prepare (tools/prepare.js): it runs no prepack there.
  expect(text, 'the suite pinned by a git tag, the other form').toMatch(
    new RegExp(
      `CONFORMANCE_SUITE: git\\+https://\\S+/identity-proofing-conformance\\.git#v${manifest.version.replace(/\./g, '\\.')}\n`,
    ),
  );
  const used = nodeLines(pipeline);
  expect(used.length, 'the pipeline names its Node version').toBeGreaterThan(0);
  expect(
    used.filter((line) => !supportedLines.includes(line)),
    `Node lines outside ${supportedLines.join(', ')}`,
  ).toEqual([]);
}

const pipelines = readdirSync(join(repoRoot, 'examples', 'ci'), { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.yml'))
  .sort();
const readmeSection = (heading: string) =>
  readme.slice(readme.indexOf(`## ${heading}`), readme.indexOf('\n## ', readme.indexOf(`## ${heading}`) + 1));

/** The blocks a generator writes, [doc, marker, command, generator]: the doc's text between its markers is what it gives now. */
const generated: Array<[doc: string, name: string, from: string, generate: () => string]> = [
  ['docs/verdicts.md', 'verdicts', 'npm run verdict-table', verdictTable],
  [
    'docs/mutation.md',
    'mutation-results',
    'npm run mutate, from docs/mutation-results.json',
    () => resultsTable(mutationResults),
  ],
  ['docs/writing-checks.md', 'checks', 'npm run writing-checks', checksIndex],
  ['docs/writing-checks.md', 'fixtures', 'npm run writing-checks', fixturesIndex],
  ['docs/architecture.md', 'rooms', 'selftest/rooms.ts, roomTable()', roomTable],
  ['docs/doctor.md', 'settings', 'npm run doctor -- --write-docs', settingsTable],
];

const rows: Array<{ doc: string; from: string; holds: () => void }> = [
  ...generated.map(([doc, name, from, generate]) => ({
    doc: `${doc} (<!-- ${name} -->)`,
    from,
    holds: () => expect(block(doc, name)).toBe(generate()),
  })),
  {
    doc: "docs/mutation.md (every survivor classified in its module's section)",
    from: 'by hand, for each survivor of docs/mutation-results.json',
    holds: () => {
      const doc = read('docs/mutation.md');
      expect(Object.keys(mutationResults).length).toBeGreaterThan(0);
      for (const [file, result] of Object.entries(mutationResults)) {
        const section = sectionOf(doc, file);
        expect(section, `a section "## ${file} ..."`).toBeDefined();
        const classified = classifiedIds(section ?? '');
        expect(
          result.survivors.filter((s) => !classified.has(s.id)).map((s) => `#${s.id} line ${s.line} ${s.mutator}`),
          `survivors of ${file} not classified`,
        ).toEqual([]);
      }
    },
  },
  {
    doc: 'docs/writing-checks.md (each check says what it judges)',
    from: 'the doc comment of each check',
    holds: () => expect(block('docs/writing-checks.md', 'checks')?.match(/^\| `\w+` \|\s*\|$/gm) ?? []).toEqual([]),
  },
  {
    doc: 'docs/architecture.md (every file it names exists)',
    from: 'the tree: name the file that holds the claim now',
    holds: () => {
      // A path of the repository, in backticks or not; a placeholder (`<name>`, `*`) ends it at the folder before it.
      const rooms = 'catalog|schemas|kit|reporters|runner|fixtures|tests|sandbox|scripts|tools|selftest|docs|examples';
      const path = new RegExp(`\\b(?:${rooms})/(?:[\\w.-]*\\w/?)*`, 'g');
      const named = [...read('docs/architecture.md').matchAll(path)].map((m) => m[0]);
      expect(named.length).toBeGreaterThan(20);
      expect([...new Set(named)].filter((path) => !existsSync(join(repoRoot, path)))).toEqual([]);
    },
  },
  {
    doc: 'docs/levels.md and docs/client-levels.md (the Level column)',
    from: 'catalog/requirements.json, catalog/client-requirements.json',
    holds: () => {
      for (const doc of ['docs/levels.md', 'docs/client-levels.md']) {
        const table = rowsOfTable(read(doc));
        expect(table.size, `${doc} has a decisions table`).toBeGreaterThan(0);
        const differing = [...table]
          .filter(([id, row]) => catalogLevel.get(id) !== row.level)
          .map(
            ([id, row]) =>
              `${id}: ${row.level} in ${doc}, ${catalogLevel.get(id) ?? 'not in the catalog'} in the catalog`,
          );
        expect(differing).toEqual([]);
      }
    },
  },
  {
    doc: "docs/levels.md (the Source column names only the row's sources, or statements that list it)",
    from: 'catalog/requirements.json, catalog/statements.json',
    holds: () => {
      const sourcesOf = (id: string) =>
        new Set([
          ...(requirements.find((r) => r.id === id)?.source ?? []),
          ...statements.filter((s) => s.requirements.includes(id)).map((s) => s.id),
        ]);
      const stray = [...rowsOfTable(read('docs/levels.md'))].flatMap(([id, row]) =>
        row.sources.filter((source) => !sourcesOf(id).has(source)).map((source) => `${id}: ${source}`),
      );
      expect(stray).toEqual([]);
    },
  },
  {
    doc: 'README.md (the two first commands, then their timings)',
    from: 'npm run bench',
    holds: () => {
      const [before = '', firstBlock = '', after = ''] = readme.split('```');
      expect(before.trim(), 'only the title before them').toMatch(/^# [^\n]+$/);
      expect(
        firstBlock
          .split('\n')
          .filter((line) => line.trim() && !line.startsWith('sh'))
          .map((line) => line.split('#')[0]?.trim()),
      ).toEqual(['npm ci && npm run conformance', 'npm ci && npm test']);
      expect(after.trimStart().startsWith('<!-- first-commands -->'), 'the timings follow at once').toBe(true);
      for (const command of ['npm ci', 'npm run conformance', 'npm test'])
        expect(block('README.md', 'first-commands'), command).toMatch(
          new RegExp(`\`${command}\` (\\d+(\\.\\d+)? s|not measured)`),
        );
    },
  },
  {
    doc: "README.md (the first steps name every variable a vendor's onboarding gives, each route with its default)",
    from: 'schemas/config.schema.json, catalog/operations.json',
    holds: () => {
      const section = readmeSection('Against your deployment');
      const assigned = new Map(
        [...(section.split('```')[1] ?? '').matchAll(/^([A-Z_]+)=("[^"]*"|\S+)/gm)].map((m) => [
          m[1] as string,
          (m[2] as string).replace(/^"|"$/g, ''),
        ]),
      );
      for (const name of [...configSchema.required, 'WEBHOOK_PUBLIC_URL', 'WEBHOOK_LISTEN'])
        expect(assigned.has(name), name).toBe(true);
      for (const op of operations.filter((o) => o.routeEnv))
        expect(assigned.get(op.routeEnv as string), `${op.routeEnv}: its default`).toBe(op.defaultRoute);
      expect(assigned.get('WEBHOOK_LISTEN')).toBe(configSchema.properties.WEBHOOK_LISTEN?.default);
      expect(section, 'the doctor comes before the run').toMatch(/npm run doctor[\s\S]*npm run conformance/);
    },
  },
  {
    doc: 'README.md (Documentation lists every page of docs/)',
    from: 'the pages of docs/',
    holds: () => {
      const pages = readdirSync(join(repoRoot, 'docs')).filter((name) => name.endsWith('.md'));
      expect(pages.filter((page) => !readmeSection('Documentation').includes(`](docs/${page})`))).toEqual([]);
    },
  },
  {
    doc: 'README.md (no measured figure typed outside the blocks the commands write)',
    from: 'npm run bench, npm run load',
    holds: () => {
      const prose = readme.replace(/<!-- ([a-z-]+) -->[\s\S]*?<!-- \/\1 -->/g, '').replace(/```[\s\S]*?```/g, '');
      const typed = /\b(?:in|took|takes|measured:?)\s+(?:about\s+)?\d[\d.]*\s?m?s\b|\bof \d+ MUST\b|\bRequests: \d/gi;
      expect([...prose.matchAll(typed)].map((m) => m[0])).toEqual([]);
    },
  },
  {
    doc: 'README.md (the catalog counts, and no count of the faults)',
    from: 'catalog/requirements.json; a new fault needs no file outside sandbox/',
    holds: () => {
      expect(readme).toContain(`${requirements.length} requirements`);
      for (const level of ['MUST', 'SHOULD', 'INFO'] as const)
        expect(readme, level).toContain(`| ${level} (${requirements.filter((r) => r.level === level).length}) |`);
      expect(readme).toContain('It carries named faults (`sandbox/faults.ts`');
      expect(readme).not.toMatch(new RegExp(`\\b${faults.length} (named )?faults`));
    },
  },
  {
    doc: 'README.md, reporters/README.md and docs/ (every link relative, to a file of the repository)',
    from: 'the tree',
    holds: () => {
      const documents = [
        'README.md',
        'reporters/README.md',
        ...readdirSync(join(repoRoot, 'docs')).map((n) => `docs/${n}`),
      ];
      const broken = documents.flatMap((document) =>
        [...read(document).matchAll(/\]\(([^)\s]+)\)/g)].flatMap(([, target = '']) => {
          if (target.startsWith('#')) return [];
          if (/^[a-z]+:/i.test(target)) return [`${document}: ${target} leaves the repository`];
          const file = new URL(target.split('#')[0] ?? '', pathToFileURL(join(repoRoot, document)));
          return existsSync(file) ? [] : [`${document}: ${target} does not exist`];
        }),
      );
      expect(broken).toEqual([]);
    },
  },
  {
    doc: 'examples/ci/ (a GitHub Actions gate and nightly, a GitLab CI pipeline)',
    from: 'the pipelines',
    holds: () =>
      expect(pipelines).toEqual([
        'github/conformance-gate.yml',
        'github/conformance-nightly.yml',
        'gitlab/gitlab-ci.yml',
      ]),
  },
  ...pipelines.map((file) => ({
    doc: `examples/ci/${file} (parses, installs the suite pinned, runs only commands that exist on a proven Node line)`,
    from: 'package.json, scripts/command.ts, tools/runtimes/package.json',
    holds: () => pipelineHolds(file),
  })),
];

for (const { doc, from, holds } of rows) test(`${doc} is current (${from})`, holds);

test.describe('the readers the rows use', () => {
  test('a decisions table is read by its Row, Level and Source columns', () => {
    const table =
      '| Row | Review finding | Action | Level | Source |\n|---|---|---|---|---|\n| `X-1` | b | lowered | INFO | ST-1.2-A, RFC6750-3 |';
    expect(rowsOfTable(table)).toEqual(new Map([['X-1', { level: 'INFO', sources: ['ST-1.2-A', 'RFC6750-3'] }]]));
  });

  test('a classification table names single mutants and ranges, in its first column only', () => {
    const ids = classifiedIds(
      '| Mutants | What | Why |\n|---|---|---|\n| 4, 12–14, 20-21 | x | 99 is not an id here |\n',
    );
    expect([...ids].sort((a, b) => a - b)).toEqual([4, 12, 13, 14, 20, 21]);
  });

  test('a StrykerJS report is counted by status, survivors listed, and scored over the mutants that ran', () => {
    const mutant = (id: string, status: string) => ({
      id,
      status,
      mutatorName: 'ConditionalExpression',
      replacement: 'true',
      location: { start: { line: Number(id) } },
    });
    const statuses = ['Killed', 'Survived', 'Timeout', 'Ignored', 'NoCoverage'];
    const report = { files: { 'sandbox/x.ts': { mutants: statuses.map((s, i) => mutant(String(i + 1), s)) } } };
    const r = resultsOfReport(report, '2026-11-25T00:00:00Z')['sandbox/x.ts'];
    expect(r).toMatchObject({ mutants: 5, killed: 1, timedOut: 1, survived: 2, ignored: 1 });
    expect(r?.survivors.map((s) => s.id)).toEqual([2, 5]);
    expect(r && score(r)).toBe(0.5);
    expect(r?.lines, 'no range named').toBeUndefined();
    const ranged = resultsOfReport({ ...report, config: { mutate: ['sandbox/x.ts:198-271'] } }, '2026-11-25T00:00:00Z');
    expect(ranged['sandbox/x.ts:198-271']?.lines).toBe('198-271');
  });
});
