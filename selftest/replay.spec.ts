import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startSandbox, type ReceivedRequest } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { childEnv, freePort, playwrightCli, readText, runCli, TS_NODE, type CliRun } from './evidence-harness.ts';

// Every failure's replay, as the md and html matrices show it, pastes into bash and gets the failing answer back:
// the suite runs against a sandbox with three faults (a token for any scope, an assessment without strategy
// accepted, an order body that is not JSON answered 500), then each replay is run with only API_KEY in its
// environment, as a user's .env would give it. The sandbox records every request it receives, so the bytes a replay
// sends can be compared with those the run sent. One failing test per fault: each costs the child run a worker restart.
// The same failing run is the whole run two shards of it are merged against (scaling out: shards write blob reports;
// merge-reports with the suite's own reporters gives the verdicts, the JUnit and the exit code of one whole run).
const FAULTS = ['token-any-scope', 'assessment-strategy-optional', 'order-malformed-500'];
const GREP =
  'identity token endpoint refuses another scope name|an assessment without strategy|non-UTF-8 and non-object bodies';
const ORDERS_PATH = '/v2/orders';

const entities: Record<string, string> = { lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' };
const unescapeHtml = (text: string) =>
  text.replace(/&(lt|gt|quot|#39|amp);/g, (_, name: string) => entities[name] ?? '');

/** The status of the last answer a replay printed (curl -i prints every answer's status line); bash runs beside the sandbox of this process. */
function replayStatus(command: string, apiKey: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const bash = spawn('bash', ['-c', command], {
      // eslint-disable-next-line no-restricted-properties -- the environment given to a child process
      env: { PATH: process.env.PATH ?? '', API_KEY: apiKey },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let stdout = '';
    bash.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('latin1')));
    bash.on('error', reject);
    bash.on('close', () => resolve(Number([...stdout.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].at(-1)?.[1]) || undefined));
  });
}

type Matrix = { requirements: Array<{ id: string; outcome: string }> };
const outcomesOf = (dir: string) =>
  (JSON.parse(readText(join(dir, 'conformance.json'))) as Matrix).requirements
    .map((r) => `${r.id}: ${r.outcome}`)
    .sort();
const output = (run: CliRun) => `${run.stdout}\n${run.stderr}`.slice(-3000);

const headerOf = (request: ReceivedRequest, name: string) =>
  request.rawHeaders.find((_, i, raw) => i % 2 === 1 && raw[i - 1]?.toLowerCase() === name);

test('every failing requirement has a replay in the md and the html, the same command in both, with no secret in it; run by bash with only API_KEY set, each gets the failing answer back: a 2xx the document forbids, or the 500; a replay of a body that is not UTF-8 sends the very bytes the run sent, not a replacement character; two shards of the run merged give the same verdicts, JUnit cases and exit code', async () => {
  test.setTimeout(300_000);
  const work = test.info().outputPath();
  const tokenSecret = 'replay-self-test-token-secret-0123456789';
  // Every request the sandbox received, the run's first, then the replays'.
  const received: ReceivedRequest[] = [];
  const sandbox = await startSandbox({
    tokenSecret,
    faults: FAULTS,
    onRequest: (request) => received.push(request),
    warn: () => undefined,
  });
  try {
    const target = sandboxTargetEnv({ url: sandbox.url, flavor: 'reference', tokenSecret });
    const apiKey = target.API_KEY ?? '';
    const reports = join(work, 'reports');
    // A receiver of its own: another run on this machine may hold WEBHOOK_LISTEN's default port.
    const envFor = async (name: string, extra: Record<string, string> = {}) =>
      childEnv(work, {
        ...target,
        SEED: '4242',
        RUN_TAG: 'replayshards',
        REPORTS_DIR: join(work, name),
        TEST_RESULTS_DIR: join(work, `results-${name}`),
        WEBHOOK_MODE: 'passive',
        WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`,
        ...extra,
      });
    const conformance = (env: Record<string, string>, ...args: string[]) =>
      runCli(process.execPath, [playwrightCli, 'test', '--grep', GREP, ...args], env, 150_000);
    // The whole run and the two shards are independent: started together, they overlap where each waits. The whole run
    // has a RUN_TAG of its own, so that its identifiers are not those the shards send the same sandbox meanwhile.
    const [run, ...shards] = await Promise.all([
      envFor('reports', { RUN_TAG: 'replaywhole' }).then((env) => conformance(env)),
      ...['1', '2'].map(async (shard) =>
        conformance(
          await envFor(`shard-${shard}`, { CONFORMANCE_SHARD: '1', BLOB_DIR: join(work, `blob-${shard}`) }),
          `--shard=${shard}/2`,
        ),
      ),
    ]);
    expect(run.code, `the faulty run fails:\n${output(run)}`).toBe(1);
    const blobs = join(work, 'blobs');
    mkdirSync(blobs);
    for (const [index, shard] of shards.entries()) {
      expect([0, 1], output(shard)).toContain(shard.code);
      const dir = join(work, `blob-${index + 1}`);
      for (const file of readdirSync(dir)) cpSync(join(dir, file), join(blobs, file));
    }
    const merged = await runCli(
      TS_NODE[0],
      [...TS_NODE.slice(1), 'scripts/merge-reports.ts', blobs],
      await envFor('merged'),
    );
    expect(merged.code, output(merged)).toBe(run.code);
    expect(outcomesOf(join(work, 'merged'))).toEqual(outcomesOf(reports));
    const cases = (dir: string) =>
      [...readText(join(dir, 'junit.xml')).matchAll(/<testcase name="([^"]*)"/g)].map((m) => m[1]).sort();
    expect(cases(join(work, 'merged'))).toEqual(cases(reports));
    expect(
      readdirSync(join(work, 'merged', 'allure-results')).some((name) => name.endsWith('-result.json')),
      'Allure results from the merge',
    ).toBe(true);

    const markdown = readFileSync(join(reports, 'conformance.md'), 'utf8');
    const html = readFileSync(join(reports, 'conformance.html'), 'utf8');
    const md = [...markdown.matchAll(/```sh\n([\s\S]*?)\n```/g)].map((m) => m[1] as string);
    const fromHtml = [...html.matchAll(/<pre class="replay">([\s\S]*?)<\/pre>/g)].map((m) =>
      unescapeHtml(m[1] as string),
    );
    expect(markdown).toMatch(/### TOK-SCOPE-ONLY \(MUST[^\n]*failed/);
    expect(markdown).toMatch(/### ASM-REQ-REQUIRED \(MUST[^\n]*failed/);
    expect(fromHtml).toEqual(md);
    for (const replay of md) expect(replay).not.toContain(apiKey);
    expect(
      md.some((replay) => /^TOKEN=\$\(curl /.test(replay)),
      'a replay with a bearer token obtains it first',
    ).toBe(true);
    // The token and assessment faults accept what must be refused: the replays of their failures must be answered 2xx
    // again; the order fault answers a body that is not JSON 500, and so must the replay of that body.
    // A test's failure shows under each requirement it breaks: each distinct command runs once.
    const distinct = [...new Set(md)];
    const orders = distinct.filter((replay) => replay.includes(ORDERS_PATH));
    expect(orders.length, 'the order fault has replays').toBeGreaterThan(0);
    expect(distinct.length - orders.length, 'the token and assessment faults have replays').toBeGreaterThan(0);
    const binary = distinct.filter((replay) => /^printf '/m.test(replay));
    expect(binary.length, 'the failure of a body that is not UTF-8 has a printf replay').toBeGreaterThan(0);
    for (const replay of distinct) {
      const before = received.length;
      const status = await replayStatus(replay, apiKey);
      expect(String(status), replay).toMatch(orders.includes(replay) ? /^500$/ : /^2\d\d$/);
      if (!binary.includes(replay)) continue;
      const sent = received.slice(before).find((request) => request.url.includes(ORDERS_PATH));
      expect(sent, `the replay reached ${ORDERS_PATH}: ${replay}`).toBeDefined();
      const correlation = headerOf(sent as ReceivedRequest, 'x-correlation-id');
      expect(correlation, 'the replay sends the x-correlation-id the run sent').toBeDefined();
      const original = received
        .slice(0, before)
        .find((request) => request.url.includes(ORDERS_PATH) && headerOf(request, 'x-correlation-id') === correlation);
      expect(original, `the run sent a request with x-correlation-id ${correlation}`).toBeDefined();
      expect(isUtf8((original as ReceivedRequest).body), "the run's body is not UTF-8").toBe(false);
      expect((sent as ReceivedRequest).body.toString('hex'), replay).toBe(
        (original as ReceivedRequest).body.toString('hex'),
      );
    }
  } finally {
    await sandbox.close();
  }
});
