import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { operations, requirements } from '../catalog/catalog.ts';
import { faults } from '../sandbox/faults.ts';

// The README repeats a few facts for its readers; these tests keep it in step with their single sources.
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

test('the README starts with the two commands that do everything on a fresh machine', () => {
  const firstBlock = readme.split('```')[1] ?? '';
  expect(firstBlock).toContain('npm ci && npm run conformance');
  expect(firstBlock).toContain('npm ci && npm test');
});

test('the README states the catalog and fault counts as they are', () => {
  expect(readme).toContain(`${requirements.length} requirements`);
  for (const level of ['MUST', 'SHOULD', 'INFO'] as const) {
    expect(readme, `${level} count`).toContain(`| ${level} (${requirements.filter((r) => r.level === level).length}) |`);
  }
  expect(readme).toContain(`It carries ${faults.length} named faults`);
});

test('the README route table lists the defaults of catalog/operations.json', () => {
  for (const op of operations) {
    const row = readme.split('\n').find((line) => line.startsWith(`| ${op.title.split(' (')[0]} | ${op.part} |`));
    expect(row, `a row for ${op.id}`).toBeDefined();
    expect(row).toContain(op.routeEnv ? `\`${op.routeEnv}\` | \`${op.defaultRoute}\`` : `\`${op.fixedRoute}\``);
  }
});

test('every link of the README and the docs opens in a fresh clone: relative, to a file of the repository', () => {
  const documents = ['README.md', 'reporters/README.md', ...readdirSync(new URL('../docs/', import.meta.url)).map((name) => `docs/${name}`)];
  const broken: string[] = [];
  for (const document of documents) {
    const text = readFileSync(new URL(`../${document}`, import.meta.url), 'utf8');
    for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (target.startsWith('#')) continue;
      if (/^[a-z]+:/i.test(target)) broken.push(`${document}: ${target} leaves the repository`);
      else if (!existsSync(new URL(target.split('#')[0] ?? '', new URL(`../${document}`, import.meta.url)))) broken.push(`${document}: ${target} does not exist`);
    }
  }
  expect(broken).toEqual([]);
});
