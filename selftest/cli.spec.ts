import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { ProbedScript } from './cli-probe.ts';
import { ourScripts, probeScripts, repoRoot, runCli, TS_NODE } from './evidence-harness.ts';

// The environment of a command started by hand: Playwright sets FORCE_COLOR=1 in its workers, and Node 24 warns on
// standard error when FORCE_COLOR meets a NO_COLOR of the user's.
// eslint-disable-next-line no-restricted-properties -- the environment given to the commands, child processes
const { FORCE_COLOR: _workerColor, ...handEnv } = process.env;
const commandEnv = { ...handEnv, ENV_FILE: '/dev/null' } as Record<string, string>;

// Each script is started once with an option it does not know, all in one process (selftest/cli-probe.ts): exit 2
// and its own usage before doing anything prove it reads its command line through parseCli first.
test('every npm script of ours is a tsx file and stops on an unknown option with exit 2, what is wrong and its own usage', async () => {
  const names = 'bench certify certify-client coverage diff report sandbox verify-bundle'.split(' ');
  expect(ourScripts.map((s) => s.name)).toEqual(expect.arrayContaining(names));
  const files = ourScripts.map((s) => s.file);
  const probed = await probeScripts('--no-such-option', files, commandEnv);
  expect(probed.map((p) => p.file)).toEqual(files);
  for (const [index, { name }] of ourScripts.entries()) {
    const unknown = probed[index] as ProbedScript;
    expect(unknown.threw, `npm run ${name} -- --no-such-option`).toBeUndefined();
    expect(unknown.code, `npm run ${name} -- --no-such-option: ${unknown.stderr}`).toBe(2);
    expect(unknown.stderr, `npm run ${name} -- --no-such-option`).toMatch(/Unknown option '--no-such-option'/);
    expect(unknown.stderr, `npm run ${name} -- --no-such-option`).toContain(`Usage: npm run ${name}`);
  }
});

// A command a self-test also calls in process runs its work only when it is the script Node was started with; started
// through a link to its file it must still run, never end at once with exit 0 and nothing done. With the probe above
// (exit 2, what is wrong, the usage) this is parseCli's proof on this line; package.spec.ts has --help on the others.
test('--help through a real command started through a link to its file: the usage on standard output, exit 0', async () => {
  const link = test.info().outputPath('doctor.ts');
  symlinkSync(join(repoRoot, 'scripts', 'doctor.ts'), link);
  const help = await runCli(TS_NODE[0], [...TS_NODE.slice(1), link, '--help'], commandEnv, 60_000);
  expect(help.code, help.stderr).toBe(0);
  expect(help.stdout).toContain('Usage: npm run doctor');
  expect(help.stderr).toBe('');
});
