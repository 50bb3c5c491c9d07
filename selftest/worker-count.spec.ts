import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect, test } from '@playwright/test';
import {
  chooseWorkers,
  DEFAULT_WORKERS,
  MOST_USEFUL_WORKERS,
  NEAR_MS,
  TRAILING_READS_WORKERS,
  workersFor,
  workersLine,
} from '../runner/config/worker-count.ts';
import { measureRoundTrips } from '../runner/config/round-trip.ts';
import { resolveRun } from '../runner/config/resolve.ts';
import { decideWorkers } from '../runner/config/run-workers.ts';
import { problemsOf, repoRoot, validEnv } from './config-env.ts';
import { loadConfig } from '../runner/config/load-config.ts';
import { conformanceProjects, projectLayout, projectNames } from '../runner/config/projects.ts';
import { embeddedReadLagMs } from '../runner/config/run-config.ts';
import { closedPort } from './evidence-harness.ts';
import { served } from './served.ts';

// Latency costs its depth, not its count: the runner chooses its workers from the target's round trip, which
// Playwright needs before the global setup, and never more than TARGET_CONCURRENCY.

const far = (ms: number, origin = 'https://api.example.com') => ({ ms, origin, samples: 3 });
const choose = (input: Partial<Parameters<typeof chooseWorkers>[0]>) =>
  chooseWorkers({ embedded: false, cap: 16, ...input });
const sets = '; CONFORMANCE_WORKERS sets it';

test('CONFORMANCE_WORKERS is taken as it is; the embedded sandbox and a near target keep 2, a far one gets more; the slowest origin decides, one not measured keeps 2; never more than the cap', () => {
  expect(choose({ configured: 7, roundTrips: [far(150)] })).toEqual({ workers: 7, why: 'CONFORMANCE_WORKERS' });
  expect(workersLine({ workers: 7, why: 'CONFORMANCE_WORKERS' })).toBe('Workers: 7 (set by CONFORMANCE_WORKERS)');
  expect(choose({ embedded: true }).workers).toBe(DEFAULT_WORKERS);
  expect(choose({ embedded: true, cap: 1 }), 'never more than the cap').toMatchObject({
    workers: 1,
    why: expect.stringContaining('TARGET_CONCURRENCY=1'),
  });
  expect([workersFor(0.4, 16), workersFor(NEAR_MS - 1, 16)], 'loopback, near').toEqual([2, 2].fill(DEFAULT_WORKERS));
  expect([workersFor(150, 16), workersFor(150, 5)], 'far; the cap bounds it').toEqual([MOST_USEFUL_WORKERS, 5]);
  const counts = [0, 10, 20, 30, 50, 80, 120, 150, 300, 1000, 5000].map((ms) => workersFor(ms, 16));
  expect(counts, 'more latency never means fewer workers').toEqual([...counts].sort((a, b) => a - b));
  expect(counts.every((count) => count >= DEFAULT_WORKERS && count <= MOST_USEFUL_WORKERS)).toBe(true);
  expect(workersLine(choose({ roundTrips: [far(2, 'https://login.example.com'), far(152.4)] }))).toBe(
    `Workers: ${MOST_USEFUL_WORKERS} (round trip 152 ms to https://api.example.com${sets})`,
  );
  expect(choose({ cap: 4, roundTrips: [far(150)] })).toEqual({
    workers: 4,
    why: `round trip 150 ms to https://api.example.com, at most TARGET_CONCURRENCY=4${sets}`,
  });
  const problem = 'ECONNREFUSED (connect ECONNREFUSED)';
  expect(choose({ roundTrips: [far(150), { origin: 'https://login.example.com', problem }] })).toEqual({
    workers: DEFAULT_WORKERS,
    why: `round trip to https://login.example.com not measured: ${problem}${sets}`,
  });
  // A TARGET_CONCURRENCY that is no number, or below CONFORMANCE_WORKERS: config.spec.ts's table of wrong values.
  expect(problemsOf({ ...validEnv, TARGET_CONCURRENCY: '4', CONFORMANCE_WORKERS: '4' })).toEqual([]);
});

test('2 workers by default, one per project; more spread over the projects, identity on half, the webhook flows on six at most (one per flow); run-end, last, on one', () => {
  const perProject = (workers?: string) => {
    const env = { ...validEnv, ...(workers && { CONFORMANCE_WORKERS: workers }) };
    const projects = conformanceProjects(loadConfig(env, { repoRoot, embedded: false }), 'tests');
    return Object.fromEntries(projects.map((p) => [p.name, p.workers]));
  };
  const every = (count: number, identity: number) =>
    Object.fromEntries(projectNames.map((n) => [n, n === 'run-end' ? 1 : n === 'identity' ? identity : count]));
  expect(perProject()).toEqual(every(1, 1));
  expect(perProject('12')).toEqual(every(4, 6));
  expect(perProject('15')).toEqual(every(5, 8));
});

test('an embedded sandbox whose reads trail its writes gets TRAILING_READS_WORKERS, at most the cap, and identity starts right after the webhook flows; its lag is stated by the resolution', () => {
  expect(choose({ embedded: true, readLagMs: 1000 })).toEqual({
    workers: TRAILING_READS_WORKERS,
    why: `the embedded sandbox, whose reads trail its writes by up to 1000 ms${sets}`,
  });
  expect(choose({ embedded: true, cap: 3, readLagMs: 1000 }).workers).toBe(3);
  expect(choose({ readLagMs: 1000 }).workers, 'a target of its own').toBe(2);
  expect(choose({ configured: 2, embedded: true, readLagMs: 1000 }).workers).toBe(2);
  const layout = (readsTrail: boolean) => projectLayout(TRAILING_READS_WORKERS, 'tests', readsTrail);
  expect(layout(true).map((p) => p.name)).toEqual([...projectNames]);
  expect(
    layout(false).findIndex((p) => p.name === 'identity'),
    'the step-ups first otherwise',
  ).toBeGreaterThan(1);
  expect(
    layout(true).map((p) => p.workers),
    'identity on all workers but two, the others on one each',
  ).toEqual([1, 4, 1, 1, 1, 1, 1]);
  const lagOf = (env: Record<string, string>) =>
    embeddedReadLagMs(resolveRun({ ENV_FILE: '/dev/null', SANDBOX_PORT: '0', ...env }, repoRoot).sandbox);
  expect(lagOf({ SANDBOX_FLAVOR: 'trailing' }), 'the default lag').toBe(1000);
  expect(lagOf({ SANDBOX_FLAVOR: 'trailing', SANDBOX_READ_LAG_MS: '3000' })).toBe(3000);
  expect(lagOf({ SANDBOX_FLAVOR: 'trailing', SANDBOX_READ_LAG_MS: '0' }), 'reads that do not trail').toBeUndefined();
  expect(lagOf({ SANDBOX_FLAVOR: 'reference', SANDBOX_READ_LAG_MS: '3000' })).toBeUndefined();
});

test('against a real server: each origin measured once, with any answer, a closed port giving its problem; nothing measured with CONFORMANCE_WORKERS or the embedded sandbox', async () => {
  // A server answering every request this late: a target that far away, as the run sees it.
  const delayMs = NEAR_MS * 3;
  const seen: string[] = [];
  const closed = `http://127.0.0.1:${await closedPort()}`;
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    setTimeout(() => res.writeHead(404).end('{"message":"not here"}'), delayMs);
  };
  await served(answer, async (url) => {
    const trips = await measureRoundTrips([`${url}/identity`, `${url}/v1/token`, `${closed}/token`], undefined);
    expect(trips).toEqual([
      { origin: url, ms: expect.any(Number), samples: expect.any(Number) },
      { origin: closed, problem: expect.stringContaining('ECONNREFUSED') },
    ]);
    // The server's delay is a floor: a busy machine only adds to it.
    expect((trips[0] as { ms: number }).ms).toBeGreaterThanOrEqual(delayMs - 2);
    expect(new Set(seen), "only the origin's root was asked").toEqual(new Set(['GET /']));
    seen.length = 0;
    const names = ['IDENTITY_BASE_URL', 'IDENTITY_TOKEN_URL', 'STEPUP_BASE_URL', 'STEPUP_TOKEN_URL', 'ORDERS_BASE_URL'];
    const urls = Object.fromEntries(names.map((n) => [n, `${url}/${n.toLowerCase()}`]));
    const { suite } = resolveRun({ ...validEnv, ...urls, ENV_FILE: '/dev/null', CONFORMANCE_WORKERS: '5' }, repoRoot);
    expect(await decideWorkers(suite)).toEqual({ workers: 5, why: 'CONFORMANCE_WORKERS' });
    expect((await decideWorkers({ ...suite, workersSet: false, embedded: true })).workers).toBe(DEFAULT_WORKERS);
    expect(seen, 'nothing measured').toEqual([]);
    await decideWorkers({ ...suite, workersSet: false });
    expect(seen.length, 'the target was measured').toBeGreaterThan(0);
  });
});
