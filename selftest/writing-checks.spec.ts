import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import ts from 'typescript';
import { requirements } from '../catalog/catalog.ts';
import { clientRequirements } from '../catalog/client-catalog.ts';
import { clientChecks } from '../kit/checks/client/checks.ts';
import { registry } from '../kit/checks/registry.ts';
import { checkExports, checksIndex, fixturesIndex, writingChecksPage } from '../scripts/writing-checks.ts';

// docs/writing-checks.md lists every check of the kit and every fixture a test can take, read from the code: the page
// cannot drift from it.
const page = readFileSync(writingChecksPage, 'utf8');
const block = (name: string) => new RegExp(`<!-- ${name} -->\\n([\\s\\S]*?)\\n<!-- /${name} -->`).exec(page)?.[1];

test('the checks of docs/writing-checks.md are those of kit/checks/, by area', () => {
  expect(block('checks'), 'regenerate with npm run writing-checks').toBe(checksIndex());
});

test('the fixtures of docs/writing-checks.md are those the modules of fixtures/ define', () => {
  expect(block('fixtures'), 'regenerate with npm run writing-checks').toBe(fixturesIndex());
});

test('every check of the list says what it judges', () => {
  expect(
    checksIndex()
      .split('\n')
      .filter((line) => /^\| `\w+` \|\s*\|$/.test(line)),
  ).toEqual([]);
});

test('every client requirement has its one check, and every check a requirement', () => {
  expect(Object.keys(clientChecks).sort()).toEqual(clientRequirements.map((r) => r.id).sort());
});

test('every check of kit/checks/ is in the registry, and every entry of the registry a check of kit/checks/', () => {
  const exported = checkExports().flatMap(({ names }) => names);
  expect(
    exported.filter((name) => !Object.hasOwn(registry, name)),
    'checks missing from kit/checks/registry.ts',
  ).toEqual([]);
  expect(
    Object.keys(registry).filter((name) => !exported.includes(name)),
    'entries of the registry that no module of kit/checks/ exports',
  ).toEqual([]);
});

test('no requirement ID is written in kit/checks/: the caller of a check passes it', () => {
  const ids = new Set([...requirements, ...clientRequirements].map((r) => r.id));
  const root = fileURLToPath(new URL('..', import.meta.url));
  const written: string[] = [];
  // The client judge's table (kit/checks/client/checks.ts) is where each client requirement is passed to its check,
  // as a test passes its own: the one place a client requirement's id meets its check.
  for (const { file } of checkExports().filter(({ file }) => file !== 'kit/checks/client/checks.ts')) {
    const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node))
        for (const word of node.text.match(/[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+/g) ?? [])
          if (ids.has(word)) written.push(`${file}: ${word}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  expect(written).toEqual([]);
});
