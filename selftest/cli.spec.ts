import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { runCli, TS_NODE } from './evidence-harness.ts';

// Every command of package.json that is one of ours (node --import tsx <file>) prints its usage on --help and exits 0,
// and stops with exit code 2 on an option it does not know, before doing anything.
const scripts = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;
const ours = Object.entries(scripts).flatMap(([name, command]) => {
  const file = /^node --import tsx (\S+\.ts)$/.exec(command)?.[1];
  return file ? [{ name, file }] : [];
});

test('every npm script of ours is a tsx file, and there are some', () => {
  expect(ours.map((s) => s.name).sort()).toEqual(expect.arrayContaining(['bench', 'certify', 'certify-client', 'coverage', 'diff', 'report', 'sandbox', 'verify-bundle']));
});

test('every npm script of ours answers --help with its usage (exit 0) and an unknown option with exit 2', async () => {
  test.setTimeout(240_000);
  const env = { ...process.env, ENV_FILE: '/dev/null' } as Record<string, string>;
  const results = await Promise.all(
    ours.map(async ({ name, file }) => ({
      name,
      help: await runCli(TS_NODE[0], [...TS_NODE.slice(1), file, '--help'], env, 60_000),
      unknown: await runCli(TS_NODE[0], [...TS_NODE.slice(1), file, '--no-such-option'], env, 60_000),
    })),
  );
  for (const { name, help, unknown } of results) {
    expect(help.code, `npm run ${name} -- --help: ${help.stderr}`).toBe(0);
    expect(help.stdout, `npm run ${name} -- --help`).toContain(`Usage: npm run ${name}`);
    expect(unknown.code, `npm run ${name} -- --no-such-option`).toBe(2);
    expect(unknown.stderr, `npm run ${name} -- --no-such-option`).toMatch(/Unknown option '--no-such-option'[\s\S]*Usage:/);
  }
});
