import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCli } from '../scripts/cli.ts';

// npm pack's prepack: the product compiled to dist/ (Node strips no types under node_modules, nor does Playwright
// transform there), with the data its modules read beside them, as they are in the clone.
parseCli({
  summary: 'Compiles the product into dist/, with the data its modules read, for npm pack (its prepack).',
  usage: 'npm run build',
  options: {},
  describe: {},
});
const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const rooms = ['tests', 'fixtures', 'kit', 'runner', 'reporters', 'sandbox', 'catalog', 'schemas', 'scripts'];

rmSync(dist, { recursive: true, force: true });
// Emit only: the types are checked by npm run typecheck (npm test, CI), and the JavaScript does not depend on them
// (verbatimModuleSyntax), so the check would be made twice. Half the time of npm pack (measured: 6 s against 12 s).
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck'], { cwd: root, stdio: 'inherit' });

const data = (name: string) => name.endsWith('.json') || name.endsWith('.cjs');
const visit = (relative: string): void => {
  for (const name of readdirSync(join(root, relative))) {
    const path = join(relative, name);
    if (statSync(join(root, path)).isDirectory()) visit(path);
    else if (data(name)) {
      mkdirSync(dirname(join(dist, path)), { recursive: true });
      copyFileSync(join(root, path), join(dist, path));
    }
  }
};
for (const room of rooms) visit(room);
// Read by the suite's version (reporters/run-environment.ts, runner/http/user-agent.ts) and the user docs the
// commands name.
copyFileSync(join(root, 'package.json'), join(dist, 'package.json'));
cpSync(join(root, 'docs'), join(dist, 'docs'), {
  recursive: true,
  filter: (path) => !/(performance|mutation|client-retry|architecture|writing-checks)[^/]*$/.test(path),
});

// tsc rewrites a relative import's .ts to .js, but not every dynamic one: a module left naming a .ts fails to load.
const unrewritten = (relative: string): string[] =>
  readdirSync(join(dist, relative)).flatMap((name) => {
    const path = join(relative, name);
    if (statSync(join(dist, path)).isDirectory()) return unrewritten(path);
    if (!name.endsWith('.js')) return [];
    return /(?:from |import\()\s*['"]\.{1,2}\/[^'"]+\.ts['"]/.test(readFileSync(join(dist, path), 'utf8'))
      ? [path]
      : [];
  });
const left = unrewritten('.');
if (left.length > 0) throw new Error(`dist/ modules still import .ts files: ${left.join(', ')}`);
