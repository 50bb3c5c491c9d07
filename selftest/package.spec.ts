import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { childEnv, filesUnder, freePort, readText, repoRoot, type CliRun } from './evidence-harness.ts';

// The product as a user gets it: packed, installed from the tarball into an empty folder, and run through npx from
// there, on the Node that runs this test, with a .env of that folder. One install serves every step.

const COMMAND = 'identity-proofing-conformance';

function inFolder(cwd: string, command: string, args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every file of a folder with its size and modification time: what a run must leave as it found it. */
const snapshot = (dir: string): string[] =>
  filesUnder(dir).map((file) => `${file} ${statSync(file).size} ${statSync(file).mtimeMs}`);

const verdictOf = (folder: string, reports: string): string =>
  (JSON.parse(readText(join(folder, reports, 'conformance.json'))) as { result: string }).result;

test('the packed tarball, installed into an empty folder, runs doctor, run (embedded sandbox and a target of its .env), certify and verify-bundle there, writing nothing into the package', async () => {
  test.setTimeout(900_000);
  const work = mkdtempSync(join(tmpdir(), 'package-'));
  const folder = join(work, 'user');
  mkdirSync(folder);
  // No variable of the developer's, no npm script's PATH: the folder's .env and the user's Node alone.
  const { ENV_FILE: _envFile, REPORTS_DIR: _reportsDir, CONFORMANCE_WORKERS: _workers, ...env } = childEnv(work, {});
  const npx = (args: string[]) => inFolder(folder, 'npx', ['--no-install', COMMAND, ...args], env);
  let sandbox: ReturnType<typeof spawn> | undefined;
  try {
    const packed = await inFolder(repoRoot, 'npm', ['pack', '--silent', '--pack-destination', work], env);
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = join(work, packed.stdout.trim().split('\n').at(-1) ?? '');
    writeFileSync(join(folder, 'package.json'), '{ "name": "an-implementers-repository", "private": true }\n');
    const installed = await inFolder(
      folder,
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball],
      env,
    );
    expect(installed.code, installed.stderr).toBe(0);
    const packageDir = join(folder, 'node_modules', COMMAND);
    expect(existsSync(join(packageDir, 'selftest')), 'no self-test in the package').toBe(false);
    expect(existsSync(join(packageDir, 'tools')), 'no workshop tool in the package').toBe(false);
    const before = snapshot(packageDir);

    const version = await npx(['--version']);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout).toMatch(
      /^identity-proofing-conformance \d+\.\d+\.\d+ \(.+ \d+\.\d+\.\d+, catalog SHA-256 [0-9a-f]{64}\)/,
    );

    // The embedded sandbox, on ports of this test's.
    const embedded = [`SANDBOX_PORT=${await freePort()}`, `WEBHOOK_LISTEN=127.0.0.1:${await freePort()}`];
    writeFileSync(join(folder, '.env'), `${embedded.join('\n')}\n`);
    const doctor = await npx(['doctor']);
    expect(doctor.code, `${doctor.stdout}\n${doctor.stderr}`).toBe(0);
    const run = await npx(['run']);
    expect(run.code, `${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`).toBe(0);
    expect(verdictOf(folder, 'reports')).toBe('conformant');
    for (const name of ['conformance.md', 'junit.xml', 'results.json'])
      expect(existsSync(join(folder, 'reports', name)), `reports/${name} in the folder`).toBe(true);
    expect(readdirSync(join(folder, 'allure-results')).length, 'Allure results in the folder').toBeGreaterThan(0);

    // A second process serving the target (the package's own sandbox command), named by another .env of the folder.
    const sandboxPort = await freePort();
    const webhookListen = `127.0.0.1:${await freePort()}`;
    const tokenSecret = randomBytes(16).toString('hex');
    sandbox = spawn('npx', ['--no-install', COMMAND, 'sandbox'], {
      cwd: folder,
      env: {
        ...env,
        SANDBOX_PORT: String(sandboxPort),
        SANDBOX_TOKEN_SECRET: tokenSecret,
        SANDBOX_WEBHOOK_URL: `http://${webhookListen}/webhooks`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let served = '';
    sandbox.stdout?.on('data', (chunk: Buffer) => (served += chunk.toString()));
    sandbox.stderr?.on('data', (chunk: Buffer) => (served += chunk.toString()));
    while (!served.includes('Health:')) {
      if (sandbox.exitCode !== null) throw new Error(served);
      await new Promise<void>((resolve) => sandbox?.stdout?.once('data', () => resolve()));
    }
    const target = sandboxTargetEnv({ url: `http://127.0.0.1:${sandboxPort}`, flavor: 'reference', tokenSecret });
    const targetEnv = [
      ...Object.entries(target).map(([name, value]) => `${name}='${value}'`),
      `WEBHOOK_LISTEN=${webhookListen}`,
      `WEBHOOK_PUBLIC_URL=http://${webhookListen}/webhooks`,
      'REPORTS_DIR=reports-target',
    ];
    writeFileSync(join(folder, 'target.env'), `${targetEnv.join('\n')}\n`);
    const targetDoctor = await npx(['--env-file', 'target.env', 'doctor']);
    expect(targetDoctor.code, `${targetDoctor.stdout}\n${targetDoctor.stderr}`).toBe(0);
    const targetRun = await npx(['--env-file', 'target.env', 'run']);
    expect(targetRun.code, `${targetRun.stdout.slice(-3000)}\n${targetRun.stderr.slice(-3000)}`).toBe(0);
    expect(verdictOf(folder, 'reports-target')).toBe('conformant');

    // A signed bundle of the embedded sandbox's certification, verified offline.
    const key = await npx(['certify', '--new-key', '--key-dir', 'keys']);
    expect(key.code, key.stderr).toBe(0);
    writeFileSync(
      join(folder, '.env'),
      `${[...embedded, `CERTIFY_SIGNING_KEY_FILE=${join(folder, 'keys', 'certify-signing-key.pem')}`].join('\n')}\n`,
    );
    const certify = await npx(['certify']);
    expect(certify.code, `${certify.stdout.slice(-3000)}\n${certify.stderr.slice(-3000)}`).toBe(0);
    const [bundle] = readdirSync(join(folder, 'certification')).filter((name) => name !== 'keys');
    expect(bundle, 'a bundle under certification/ of the folder').toBeDefined();
    const verified = await npx([
      'verify-bundle',
      '--public-key',
      join('keys', 'certify-signing-key.pub.pem'),
      '--require-conformant',
      join('certification', bundle ?? ''),
    ]);
    expect(verified.code, `${verified.stdout}\n${verified.stderr}`).toBe(0);

    expect(snapshot(packageDir), 'the installed package, as installed').toEqual(before);
  } finally {
    // The sandbox's process group: npx, the command and the sandbox it started.
    if (sandbox?.pid !== undefined && sandbox.exitCode === null) process.kill(-sandbox.pid, 'SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
});
