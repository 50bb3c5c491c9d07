import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { operations, requirements } from '../catalog/catalog.ts';
import { configSchema } from '../schemas/variables.ts';
import { faults } from '../sandbox/faults.ts';

// The README repeats a few facts for its readers; these tests keep it in step with their single sources.
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The text between <!-- name --> and <!-- /name -->, which a script writes. */
function generatedBlock(text: string, name: string): string {
  const start = text.indexOf(`<!-- ${name} -->\n`);
  const end = text.indexOf(`<!-- /${name} -->`);
  expect(start >= 0 && end > start, `a <!-- ${name} --> block`).toBe(true);
  return text.slice(start + `<!-- ${name} -->\n`.length, end);
}

test('the README starts with the two commands that do everything on a fresh machine, then how long each takes, from the bench', () => {
  const [before = '', firstBlock = '', after = ''] = readme.split('```');
  expect(before.trim(), 'only the title before them').toMatch(/^# [^\n]+$/);
  expect(
    firstBlock
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('sh'))
      .map((line) => line.split('#')[0]?.trim()),
  ).toEqual(['npm ci && npm run conformance', 'npm ci && npm test']);
  expect(after.trimStart().startsWith('<!-- first-commands -->'), 'the timings follow at once').toBe(true);
  const timings = generatedBlock(readme, 'first-commands');
  for (const command of ['npm ci', 'npm run conformance', 'npm test'])
    expect(timings, `the time of ${command}, written by npm run bench`).toMatch(
      new RegExp(`\`${command}\` (\\d+(\\.\\d+)? s|not measured)`),
    );
});

test("the first steps against a deployment name every variable a vendor's onboarding gives: the required ones, every route with its default, the webhook pair", () => {
  const section = readme.slice(readme.indexOf('## Against your deployment'), readme.indexOf('## Documentation'));
  const block = section.split('```')[1] ?? '';
  const assigned = new Map(
    [...block.matchAll(/^([A-Z_]+)=("[^"]*"|\S+)/gm)].map((m) => [
      m[1] as string,
      (m[2] as string).replace(/^"|"$/g, ''),
    ]),
  );
  for (const name of [...configSchema.required, 'WEBHOOK_PUBLIC_URL', 'WEBHOOK_LISTEN'])
    expect(assigned.has(name), `${name} in the first steps`).toBe(true);
  for (const op of operations.filter((o) => o.routeEnv))
    expect(assigned.get(op.routeEnv as string), `${op.routeEnv}: its default`).toBe(op.defaultRoute);
  expect(assigned.get('WEBHOOK_LISTEN')).toBe(configSchema.properties.WEBHOOK_LISTEN?.default);
  expect(section, 'the doctor comes before the run').toMatch(/npm run doctor[\s\S]*npm run conformance/);
});

test('the README lists every page of docs/ under Documentation', () => {
  const list = readme.slice(
    readme.indexOf('## Documentation'),
    readme.indexOf('\n## ', readme.indexOf('## Documentation') + 1),
  );
  const pages = readdirSync(new URL('../docs/', import.meta.url)).filter((name) => name.endsWith('.md'));
  expect(pages.filter((page) => !list.includes(`](docs/${page})`))).toEqual([]);
});

test('the README types no measured figure: durations and request counts are only in the blocks npm run bench and npm run load write', () => {
  const prose = readme.replace(/<!-- ([a-z-]+) -->[\s\S]*?<!-- \/\1 -->/g, '').replace(/```[\s\S]*?```/g, '');
  const typed = [
    ...prose.matchAll(
      /\b(?:in|took|takes|measured:?)\s+(?:about\s+)?\d[\d.]*\s?m?s\b|\bof \d+ MUST\b|\bRequests: \d/gi,
    ),
  ].map((m) => m[0]);
  expect(typed).toEqual([]);
});

test('the README states the catalog counts as they are, and no count of the faults (a new fault needs no file outside sandbox/)', () => {
  expect(readme).toContain(`${requirements.length} requirements`);
  for (const level of ['MUST', 'SHOULD', 'INFO'] as const) {
    expect(readme, `${level} count`).toContain(
      `| ${level} (${requirements.filter((r) => r.level === level).length}) |`,
    );
  }
  expect(readme).toContain('It carries named faults (`sandbox/faults.ts`');
  expect(readme).not.toMatch(new RegExp(`\\b${faults.length} (named )?faults`));
});

test('the route table of docs/configuration.md lists the defaults of catalog/operations.json', () => {
  const page = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
  for (const op of operations) {
    const row = page.split('\n').find((line) => line.startsWith(`| ${op.title.split(' (')[0]} | ${op.part} |`));
    expect(row, `a row for ${op.id}`).toBeDefined();
    expect(row).toContain(op.routeEnv ? `\`${op.routeEnv}\` | \`${op.defaultRoute}\`` : `\`${op.fixedRoute}\``);
  }
});

test('every link of the README and the docs opens in a fresh clone: relative, to a file of the repository', () => {
  const documents = [
    'README.md',
    'reporters/README.md',
    ...readdirSync(new URL('../docs/', import.meta.url)).map((name) => `docs/${name}`),
  ];
  const broken: string[] = [];
  for (const document of documents) {
    const text = readFileSync(new URL(`../${document}`, import.meta.url), 'utf8');
    for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (target.startsWith('#')) continue;
      if (/^[a-z]+:/i.test(target)) broken.push(`${document}: ${target} leaves the repository`);
      else if (!existsSync(new URL(target.split('#')[0] ?? '', new URL(`../${document}`, import.meta.url))))
        broken.push(`${document}: ${target} does not exist`);
    }
  }
  expect(broken).toEqual([]);
});
