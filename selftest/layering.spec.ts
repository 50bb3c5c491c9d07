import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import ts from 'typescript';
import { requirements } from '../catalog/catalog.ts';
import { clientRequirements } from '../catalog/client-catalog.ts';
import { registry } from '../kit/checks/registry.ts';
import { productRoot as repoRoot } from '../scripts/product.ts';
import { checkExports } from '../scripts/writing-checks.ts';
import { roomOf, rooms } from './rooms.ts';

// The rooms of docs/architecture.md (selftest/rooms.ts) and what each may import, as the imports say, type-only
// imports included. Then the rules of where code goes: checks in the registry, requirement IDs passed by the caller,
// statuses read by kit/http/consequence.ts.

/** The TypeScript files under a folder of the repository, at any depth. */
const tsFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name));

const importPattern =
  /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(['"](\.{1,2}\/[^'"]+)['"]\)/g;

/** Every module of the rooms (the room folders, and the room files) and the modules it imports. */
const importGraph = (): Map<string, string[]> =>
  new Map(
    rooms
      .flatMap(({ room }) => (room.endsWith('.ts') ? [join(repoRoot, room)] : tsFiles(join(repoRoot, room))))
      .map((file) => [
        relative(repoRoot, file),
        [...readFileSync(file, 'utf8').matchAll(importPattern)]
          .map((m) => resolve(dirname(file), m[1] ?? m[2] ?? ''))
          .filter((path) => existsSync(path) && path.endsWith('.ts'))
          .map((dep) => relative(repoRoot, dep)),
      ]),
  );

const allowedFrom = (file: string, dep: string): boolean =>
  roomOf(file) === roomOf(dep) ||
  (rooms.find((r) => r.room === roomOf(file))?.mayImport.some((m) => m === roomOf(dep) || m === dep) ?? false);

test('no import circle among the modules, type-only imports included', () => {
  const graph = importGraph();
  const circles: string[] = [];
  const done = new Set<string>();
  const visit = (node: string, path: readonly string[]): void => {
    if (path.includes(node)) circles.push([...path.slice(path.indexOf(node)), node].join(' -> '));
    else if (!done.has(node)) {
      for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
      done.add(node);
    }
  };
  for (const node of graph.keys()) visit(node, []);
  expect(circles, 'import circles').toEqual([]);
});

test('every import is one the room table allows, type-only imports included; the runner reaches the sandbox from runner/config/ alone, which starts the embedded sandbox', () => {
  const graph = [...importGraph()];
  const crossings = graph.flatMap(([file, deps]) =>
    deps.filter((dep) => !allowedFrom(file, dep)).map((dep) => `${file} -> ${dep}`),
  );
  expect(crossings).toEqual([]);
  const runnerToSandbox = graph.flatMap(([file, deps]) =>
    file.startsWith('runner/') && !file.startsWith('runner/config/')
      ? deps.filter((dep) => dep.startsWith('sandbox/')).map((dep) => `${file} -> ${dep}`)
      : [],
  );
  expect(runnerToSandbox, 'runner modules outside runner/config/ importing the sandbox').toEqual([]);
});

test('the rules the issue names hold: the kit never imports the runner, the sandbox never the suite, the reporters never the runner, scripts never the self-tests', () => {
  const suite = ['kit', 'runner', 'fixtures', 'tests', 'reporters', 'scripts'];
  const forbidden = ['kit runner', 'reporters runner', 'scripts selftest', ...suite.map((to) => `sandbox ${to}`)];
  expect(forbidden.filter((pair) => allowedFrom(...(pair.split(' ') as [string, string])))).toEqual([]);
  expect(rooms.find((r) => r.room === 'fixtures')?.mayImport.filter((m) => m.startsWith('runner'))).toEqual([
    'runner/worker.ts',
  ]);
});

test('no test compares a status inline: accepted and refused have one meaning, in kit/http/consequence.ts', () => {
  const comparison =
    /([\w.]*)\bstatus\s*(?:[<>]=?|[!=]==?)\s*\d{3}\b|\b\d{3}\s*(?:[<>]=?|[!=]==?)\s*([\w.]*)\bstatus\b/g;
  const inline = tsFiles(join(repoRoot, 'tests')).flatMap((path) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        [...line.matchAll(comparison)]
          // A row of the part-7 table (catalog) names a status; it is no answer.
          .filter((m) => (m[1] ?? m[2]) !== 'row.')
          .map((m) => `${relative(repoRoot, path)}:${i + 1}: ${m[0]}`),
      ),
  );
  expect(inline).toEqual([]);
});

test('every check of kit/checks/ is in the registry, and every entry of the registry a check of kit/checks/', () => {
  const exported = checkExports().flatMap(({ names }) => names);
  const missing = exported.filter((name) => !Object.hasOwn(registry, name));
  expect(missing, 'missing from kit/checks/registry.ts').toEqual([]);
  const unexported = Object.keys(registry).filter((name) => !exported.includes(name));
  expect(unexported, 'exported by no module').toEqual([]);
});

test('no requirement ID is written in kit/checks/: the caller of a check passes it', () => {
  const ids = new Set([...requirements, ...clientRequirements].map((r) => r.id));
  const written: string[] = [];
  // The client judge's table (kit/checks/client/checks.ts) is where each client requirement is passed to its check,
  // as a test passes its own: the one place a client requirement's id meets its check.
  for (const { file } of checkExports().filter(({ file }) => file !== 'kit/checks/client/checks.ts')) {
    const source = ts.createSourceFile(file, readFileSync(join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, true);
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
