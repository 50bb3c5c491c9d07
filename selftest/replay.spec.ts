import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test as base } from '@playwright/test';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { childEnv, freePort, playwrightCli, repoRoot, runCli, TS_NODE } from './evidence-harness.ts';

// Every failure's replay, as the md and html matrices show it, pastes into bash and gets the failing answer back:
// the suite runs against a sandbox of its own process with two faults (a token for any scope, an assessment without
// strategy accepted), then each replay is run with only API_KEY in its environment, as a user's .env would give it.
// One failing test per fault: each failed test costs the child run a worker restart.
const FAULTS = 'token-any-scope,assessment-strategy-optional';
const GREP = 'identity token endpoint refuses another scope name|an assessment without strategy';

interface FailingRun {
  work: string;
  markdown: string;
  html: string;
  apiKey: string;
}

async function sandboxUp(url: string, sandbox: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (sandbox.exitCode !== null) throw new Error(`the sandbox exited with ${sandbox.exitCode}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`the sandbox did not answer at ${url} within 30 s`);
}

const test = base.extend<object, { failing: FailingRun }>({
  failing: [
    async ({}, use) => {
      const work = mkdtempSync(join(tmpdir(), 'replay-'));
      const port = await freePort();
      const tokenSecret = 'replay-self-test-token-secret-0123456789';
      const sandbox = spawn(TS_NODE[0], [...TS_NODE.slice(1), 'sandbox/main.ts'], { cwd: repoRoot, env: childEnv(work, { SANDBOX_PORT: String(port), SANDBOX_FAULTS: FAULTS, SANDBOX_TOKEN_SECRET: tokenSecret }), stdio: 'ignore' });
      try {
        const url = `http://127.0.0.1:${port}`;
        await sandboxUp(url, sandbox);
        const target = sandboxTargetEnv({ url, flavor: 'reference', tokenSecret });
        const reports = join(work, 'reports');
        const env = childEnv(work, { ...target, REPORTS_DIR: reports, TEST_RESULTS_DIR: join(work, 'test-results'), WEBHOOK_MODE: 'passive' });
        const run = await runCli(process.execPath, [playwrightCli, 'test', '--grep', GREP], env, 150_000);
        if (run.code !== 1) throw new Error(`expected the faulty run to fail (exit 1), got ${run.code}:\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}`);
        await use({ work, markdown: readFileSync(join(reports, 'conformance.md'), 'utf8'), html: readFileSync(join(reports, 'conformance.html'), 'utf8'), apiKey: target.API_KEY ?? '' });
      } finally {
        sandbox.kill('SIGTERM');
        rmSync(work, { recursive: true, force: true });
      }
    },
    { scope: 'worker', timeout: 300_000 },
  ],
});

test.describe.configure({ mode: 'default' });

const unescapeHtml = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

function replaysIn(markdown: string, html: string): { md: string[]; html: string[] } {
  return {
    md: [...markdown.matchAll(/```sh\n([\s\S]*?)\n```/g)].map((m) => m[1] as string),
    html: [...html.matchAll(/<pre class="replay">([\s\S]*?)<\/pre>/g)].map((m) => unescapeHtml(m[1] as string)),
  };
}

/** The status of the last answer a replay printed (curl -i prints every answer's status line). */
function replayStatus(command: string, apiKey: string): number | undefined {
  const result = spawnSync('bash', ['-c', command], { env: { PATH: process.env.PATH ?? '', API_KEY: apiKey }, encoding: 'utf8', timeout: 20_000 });
  return Number([...result.stdout.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].at(-1)?.[1]) || undefined;
}

test('every failing requirement has a replay in the md and the html, the same command in both, with no secret in it', ({ failing }) => {
  const { md, html } = replaysIn(failing.markdown, failing.html);
  expect(failing.markdown).toMatch(/### TOK-SCOPE-ONLY \(MUST[^\n]*failed/);
  expect(failing.markdown).toMatch(/### ASM-REQ-REQUIRED \(MUST[^\n]*failed/);
  expect(md.length).toBeGreaterThanOrEqual(2);
  expect(html).toEqual(md);
  for (const replay of md) expect(replay).not.toContain(failing.apiKey);
  expect(md.some((replay) => /^TOKEN=\$\(curl /.test(replay)), 'a replay with a bearer token obtains it first').toBe(true);
});

test('each replay, run by bash with only API_KEY set, gets the failing answer back: a 2xx the document forbids', ({ failing }) => {
  const { md } = replaysIn(failing.markdown, failing.html);
  // Both faults accept what must be refused: the replays of their failures must be answered 2xx again.
  // A test's failure shows under each requirement it breaks: each distinct command runs once.
  const distinct = [...new Set(md)];
  const statuses = distinct.map((replay) => replayStatus(replay, failing.apiKey));
  expect(statuses.length).toBeGreaterThan(0);
  for (const [index, status] of statuses.entries()) expect(status, distinct[index]).toBeGreaterThanOrEqual(200);
  for (const [index, status] of statuses.entries()) expect(status, distinct[index]).toBeLessThan(300);
});
