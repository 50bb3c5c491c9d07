import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { parse } from 'yaml';
import { commands as subcommands } from '../scripts/command.ts';
import { repoRoot } from './evidence-harness.ts';

// No CI service is reachable here, so the example pipelines are linted: each parses as YAML, installs the suite as a
// package pinned by version, runs only subcommands its command has (and npm scripts and npx commands that exist), and
// runs on a Node line the suite is proven on.
const folder = join(repoRoot, 'examples', 'ci');
const files = readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.yml'));
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  bin: Record<string, string>;
};
const runtimes = JSON.parse(readFileSync(join(repoRoot, 'tools', 'runtimes', 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
const scripts = Object.keys(manifest.scripts);
/** The Node lines selftest/package.spec.ts proves the suite on: the node<line> aliases of tools/runtimes. */
const supportedLines = Object.keys(runtimes.dependencies).flatMap((alias) => /^node(\d+)$/.exec(alias)?.[1] ?? []);

/** The Node major versions a pipeline runs on: GitHub's setup-node `node-version`, GitLab's `image: node:<n>`. */
function nodeLines(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(nodeLines);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => {
    if (key === 'node-version') return [String(value).split('.')[0] as string];
    if (key === 'image' && typeof value === 'string' && value.startsWith('node:'))
      return [/^node:(\d+)/.exec(value)?.[1] ?? value];
    return nodeLines(value);
  });
}

/** Every shell line of a pipeline: GitHub's `run:` and GitLab's `script`, `before_script` and `after_script`. */
function commands(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(commands);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => {
    if (key === 'run' && typeof value === 'string') return value.split('\n');
    if (['script', 'before_script', 'after_script'].includes(key) && Array.isArray(value)) return value.map(String);
    return commands(value);
  });
}

test('there are example pipelines for GitHub Actions (gate and nightly) and GitLab CI', () => {
  expect(files.sort()).toEqual([
    'github/conformance-gate.yml',
    'github/conformance-nightly.yml',
    'gitlab/gitlab-ci.yml',
  ]);
});

for (const file of files) {
  test(`${file} parses and runs only commands that exist`, () => {
    const pipeline = parse(readFileSync(join(folder, file), 'utf8')) as unknown;
    const lines = commands(pipeline);
    expect(lines.length, 'the pipeline runs commands').toBeGreaterThan(0);
    const npmRuns = lines.flatMap((line) => [...line.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1] as string));
    expect(
      npmRuns.filter((name) => !scripts.includes(name)),
      'npm scripts that package.json does not define',
    ).toEqual([]);
    const npxRuns = lines.flatMap((line) => [...line.matchAll(/npx ([\w@/.-]+)/g)].map((m) => m[1] as string));
    expect(
      npxRuns.filter((bin) => !(bin in manifest.bin) && !existsSync(join(repoRoot, 'node_modules', '.bin', bin))),
      'npx commands with no binary in node_modules/.bin',
    ).toEqual([]);
    const ours = lines.flatMap((line) =>
      [...line.matchAll(/npx identity-proofing-conformance (\S+)/g)].map((m) => m[1] as string),
    );
    expect(
      ours.filter((name) => !(name in subcommands)),
      'subcommands identity-proofing-conformance does not have',
    ).toEqual([]);
    expect(
      ours.some((name) => name === 'run' || name === 'merge-reports'),
      'the pipeline runs the suite',
    ).toBe(true);
    expect(
      lines.some((line) => /npm install .*"\$CONFORMANCE_SUITE"/.test(line)),
      'the pipeline installs the suite as a package',
    ).toBe(true);
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    const text = readFileSync(join(folder, file), 'utf8');
    expect(text, 'the suite pinned by version').toContain(
      `CONFORMANCE_SUITE: identity-proofing-conformance@${version}`,
    );
    // npm builds a git install through the package's prepare (tools/prepare.js): it runs no prepack there.
    expect(text, 'the suite pinned by a git tag, the other form').toMatch(
      new RegExp(
        `CONFORMANCE_SUITE: git\\+https://\\S+/identity-proofing-conformance\\.git#v${version.replace(/\./g, '\\.')}\n`,
      ),
    );
    const pipelineLines = nodeLines(pipeline);
    expect(pipelineLines.length, 'the pipeline names its Node version').toBeGreaterThan(0);
    expect(
      pipelineLines.filter((line) => !supportedLines.includes(line)),
      `Node versions outside the supported lines ${supportedLines.join(', ')}`,
    ).toEqual([]);
  });
}
