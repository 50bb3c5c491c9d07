import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';

// The rooms of docs/architecture.md, as the imports say: no module imports itself back through others (type-only
// imports included), and no room imports one below it in the picture.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const rooms = ['catalog', 'schemas', 'harness', 'fixtures', 'tests', 'reporters', 'sandbox', 'scripts', 'selftest'];

/** What each room must not import. */
const forbidden: Record<string, string[]> = {
  catalog: ['schemas', 'harness', 'fixtures', 'tests', 'reporters', 'sandbox', 'scripts', 'selftest'],
  schemas: ['harness', 'fixtures', 'tests', 'reporters', 'sandbox', 'scripts', 'selftest'],
  harness: ['fixtures', 'tests', 'reporters', 'sandbox', 'scripts', 'selftest'],
  fixtures: ['tests', 'reporters', 'sandbox', 'scripts', 'selftest'],
  tests: ['reporters', 'sandbox', 'scripts', 'selftest'],
  reporters: ['fixtures', 'tests', 'sandbox', 'selftest'],
  sandbox: ['fixtures', 'tests', 'reporters', 'selftest'],
};
/** The one crossing: the configuration reads the sandbox's facts (its variables, faults, flavors) and starts it embedded. */
const allowed = new Set(['harness/config/resolve.ts', 'harness/config/embedded-sandbox.ts']);

function sources(): string[] {
  const found: string[] = [join(repoRoot, 'playwright.config.ts')];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith('.ts')) found.push(join(dir, entry.name));
    }
  };
  for (const room of rooms) walk(join(repoRoot, room));
  return found;
}

const importPattern =
  /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(['"](\.{1,2}\/[^'"]+)['"]\)/g;

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources()) {
    const deps = [...readFileSync(file, 'utf8').matchAll(importPattern)]
      .map((m) => resolve(dirname(file), m[1] ?? m[2] ?? ''))
      .filter((path) => existsSync(path) && path.endsWith('.ts'));
    graph.set(
      relative(repoRoot, file),
      deps.map((d) => relative(repoRoot, d)),
    );
  }
  return graph;
}

test('no import circle among the modules, type-only imports included', () => {
  const graph = importGraph();
  const circles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  expect(
    circles.map((c) => c.join(' -> ')),
    'import circles',
  ).toEqual([]);
});

test('no room imports a room below it in docs/architecture.md', () => {
  const crossings = [...importGraph()].flatMap(([file, deps]) => {
    const room = file.split('/')[0] ?? '';
    return deps
      .filter((dep) => !allowed.has(file) && forbidden[room]?.includes(dep.split('/')[0] ?? ''))
      .map((dep) => `${file} -> ${dep}`);
  });
  expect(crossings).toEqual([]);
});
