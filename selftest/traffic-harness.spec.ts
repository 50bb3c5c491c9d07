import type { RequestListener, ServerResponse } from 'node:http';
import { expect, test } from '@playwright/test';
import { loadConfig } from '../runner/config/load-config.ts';
import { problemsOf, repoRoot, validEnv } from './config-env.ts';
import { HttpClient } from '../runner/http/client.ts';
import { served } from './served.ts';

// The parts of docs/traffic.md that stand on their own: the second client's configuration and the sender of calls at
// once. The concurrency rounds' defaults and bounds are the configuration schema's (CONCURRENCY_ROUNDS, _CALLS).

const load = (env: Record<string, string> = {}) => loadConfig({ ...validEnv, ...env }, { repoRoot, embedded: false });
const refused = (env: Record<string, string>) => problemsOf({ ...validEnv, ...env }).join('\n');

test('a second client is configured with both its variables, and its client id must differ from CLIENT_ID', () => {
  const second = { SECOND_CLIENT_API_KEY: 'c2Vjb25kOnNlY3JldA==', SECOND_CLIENT_ID: 'client-456' };
  const config = load(second);
  expect(config.secondClient).toEqual({ apiKey: second.SECOND_CLIENT_API_KEY, clientId: 'client-456' });
  expect(config.secrets).toContain(second.SECOND_CLIENT_API_KEY);
  expect(refused({ ...second, SECOND_CLIENT_ID: validEnv.CLIENT_ID })).toMatch(
    /SECOND_CLIENT_ID.*other than CLIENT_ID/,
  );
  expect(refused({ SECOND_CLIENT_API_KEY: second.SECOND_CLIENT_API_KEY })).toContain('SECOND_CLIENT_ID');
  expect(load().secondClient).toBeUndefined();
});

test('calls sent at once overlap, each on its own connection, and a 503 among them is not retried', async () => {
  const calls = 4;
  const held: ServerResponse[] = [];
  const ports = new Set<number>();
  // The server answers only once every call has arrived: calls sent one after another would never be answered.
  const answer: RequestListener = (req, res) => {
    req.resume();
    req.on('end', () => {
      ports.add(req.socket.remotePort ?? 0);
      held.push(res);
      if (held.length === calls)
        held.forEach((r, i) => r.writeHead(i === 0 ? 503 : 200, { 'content-type': 'application/json' }).end('{}'));
    });
  };
  await served(answer, async (base) => {
    const url = `${base}/case-update`;
    const client = new HttpClient({ retries: 3, baseMs: 1, maxMs: 5, timeoutMs: 10_000 });
    const headers: Array<[string, string]> = [['content-type', 'application/json']];
    const request = { label: 'caseUpdate', method: 'POST', url, headers, body: '{"tags":["a"]}' };
    const answers = await client.sendAtOnce(Array.from({ length: calls }, () => request));
    expect(answers.map((a) => ('exchange' in a ? a.exchange.status : a.noAnswer)).sort()).toEqual([200, 200, 200, 503]);
    expect(ports.size, 'a connection of its own per call').toBe(calls);
    expect(client.stats).toMatchObject({
      requests: calls,
      retries: 0,
      roundsAtOnce: 1,
      roundsRateLimited: 0,
      roundsUnanswered: 0,
    });
  });
});
