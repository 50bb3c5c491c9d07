import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import {
  chooseWorkers,
  DEFAULT_WORKERS,
  MOST_USEFUL_WORKERS,
  NEAR_MS,
  workersFor,
  workersLine,
} from '../runner/config/worker-count.ts';
import { measureRoundTrips } from '../runner/config/round-trip.ts';
import { handedOff, handOff } from '../runner/config/hand-off.ts';
import { resolveRun } from '../runner/config/resolve.ts';
import { decideWorkers } from '../runner/config/run-workers.ts';
import { problemsOf, repoRoot, validEnv } from './config-env.ts';
import { closedPort } from './evidence-harness.ts';

// Latency costs its depth, not its count: the runner chooses its workers from the target's round trip, which
// Playwright needs before the global setup, and never more than TARGET_CONCURRENCY.

const far = (ms: number, origin = 'https://api.example.com') => ({ ms, origin, samples: 3 });

test.describe('the choice of workers (pure)', () => {
  test('CONFORMANCE_WORKERS is taken as it is, and the embedded sandbox keeps 2, without a measurement', () => {
    expect(chooseWorkers({ configured: 7, embedded: false, cap: 16, roundTrips: [far(150)] })).toEqual({
      workers: 7,
      why: 'CONFORMANCE_WORKERS',
    });
    expect(workersLine({ workers: 7, why: 'CONFORMANCE_WORKERS' })).toBe('Workers: 7 (set by CONFORMANCE_WORKERS)');
    expect(chooseWorkers({ embedded: true, cap: 16 }).workers).toBe(DEFAULT_WORKERS);
    expect(chooseWorkers({ embedded: true, cap: 1 }), 'never more than the cap').toMatchObject({
      workers: 1,
      why: expect.stringContaining('TARGET_CONCURRENCY=1'),
    });
  });

  test('a near target keeps 2; a far one gets more, up to the most measured to help, never more than the cap', () => {
    expect(workersFor(0.4, 16), 'loopback').toBe(DEFAULT_WORKERS);
    expect(workersFor(NEAR_MS - 1, 16)).toBe(DEFAULT_WORKERS);
    expect(workersFor(150, 16), 'a target 150 ms away').toBe(MOST_USEFUL_WORKERS);
    expect(workersFor(150, 5), 'the cap bounds it').toBe(5);
    expect(workersFor(5_000, 16)).toBe(MOST_USEFUL_WORKERS);
    const counts = [0, 10, 20, 30, 50, 80, 120, 150, 300, 1000].map((ms) => workersFor(ms, 16));
    expect(counts, 'more latency never means fewer workers').toEqual([...counts].sort((a, b) => a - b));
    expect(counts.every((count) => count >= DEFAULT_WORKERS && count <= MOST_USEFUL_WORKERS)).toBe(true);
  });

  test('the slowest origin decides and is named; an origin that could not be measured keeps 2 and says why', () => {
    const chosen = chooseWorkers({
      embedded: false,
      cap: 16,
      roundTrips: [far(2, 'https://login.example.com'), far(152.4)],
    });
    expect(chosen).toEqual({
      workers: MOST_USEFUL_WORKERS,
      why: 'round trip 152 ms to https://api.example.com; CONFORMANCE_WORKERS sets it',
    });
    expect(workersLine(chosen)).toBe(
      `Workers: ${MOST_USEFUL_WORKERS} (round trip 152 ms to https://api.example.com; CONFORMANCE_WORKERS sets it)`,
    );
    const capped = chooseWorkers({ embedded: false, cap: 4, roundTrips: [far(150)] });
    expect(capped).toEqual({
      workers: 4,
      why: 'round trip 150 ms to https://api.example.com, at most TARGET_CONCURRENCY=4; CONFORMANCE_WORKERS sets it',
    });
    const dead = chooseWorkers({
      embedded: false,
      cap: 16,
      roundTrips: [far(150), { origin: 'https://login.example.com', problem: 'ECONNREFUSED (connect ECONNREFUSED)' }],
    });
    expect(dead).toEqual({
      workers: DEFAULT_WORKERS,
      why: 'round trip to https://login.example.com not measured: ECONNREFUSED (connect ECONNREFUSED); CONFORMANCE_WORKERS sets it',
    });
  });

  test('TARGET_CONCURRENCY is validated, and CONFORMANCE_WORKERS may not exceed it', () => {
    expect(problemsOf({ ...validEnv, TARGET_CONCURRENCY: '0' })).toEqual([
      expect.stringMatching(/^TARGET_CONCURRENCY="0" is not valid: expected a whole number from 1 /),
    ]);
    expect(problemsOf({ ...validEnv, TARGET_CONCURRENCY: 'many' })).toEqual([
      expect.stringMatching(/^TARGET_CONCURRENCY="many" is not valid/),
    ]);
    expect(problemsOf({ ...validEnv, TARGET_CONCURRENCY: '4', CONFORMANCE_WORKERS: '6' })).toEqual([
      expect.stringMatching(/^CONFORMANCE_WORKERS="6" is not valid: expected at most TARGET_CONCURRENCY \(4\)/),
    ]);
    expect(problemsOf({ ...validEnv, TARGET_CONCURRENCY: '4', CONFORMANCE_WORKERS: '4' })).toEqual([]);
  });
});

/** A real HTTP server that answers every request `delayMs` late: a target that far away, as the run sees it. */
async function slowServer(delayMs: number) {
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    setTimeout(() => res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not here"}'), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

test.describe('the round trip, measured against a real server', () => {
  test('each origin is measured once, with any answer; a closed port gives its problem instead of a figure', async () => {
    const slow = await slowServer(NEAR_MS * 3);
    const closed = `http://127.0.0.1:${await closedPort()}`;
    try {
      const trips = await measureRoundTrips(
        [`${slow.url}/identity`, `${slow.url}/auth/v1/token`, `${closed}/token`],
        undefined,
      );
      expect(trips).toHaveLength(2);
      // The server's delay is a floor: a busy machine only adds to it.
      expect(trips[0]).toMatchObject({ origin: slow.url, ms: expect.any(Number) });
      expect((trips[0] as { ms: number }).ms).toBeGreaterThanOrEqual(NEAR_MS * 3 - 2);
      expect(trips[1]).toMatchObject({ origin: closed, problem: expect.stringContaining('ECONNREFUSED') });
      expect(
        slow.seen.every((line) => line === 'GET /'),
        "only the origin's root was asked",
      ).toBe(true);
    } finally {
      await slow.close();
    }
  });

  test('the runner hands its choice to its workers; with CONFORMANCE_WORKERS set or the embedded sandbox, nothing is measured', async () => {
    const slow = await slowServer(NEAR_MS * 3);
    try {
      const run = resolveRun(
        {
          ...validEnv,
          ENV_FILE: '/dev/null',
          IDENTITY_BASE_URL: `${slow.url}/identity`,
          IDENTITY_TOKEN_URL: `${slow.url}/token`,
          STEPUP_BASE_URL: `${slow.url}/stepup`,
          STEPUP_TOKEN_URL: `${slow.url}/token`,
          ORDERS_BASE_URL: `${slow.url}/commerce`,
          CONFORMANCE_WORKERS: '5',
        },
        repoRoot,
      );
      const { suite } = run;
      expect(await decideWorkers(suite)).toEqual({ workers: 5, why: 'CONFORMANCE_WORKERS' });
      expect(await decideWorkers({ ...suite, workersSet: false, embedded: true })).toMatchObject({
        workers: DEFAULT_WORKERS,
      });
      expect(slow.seen, 'nothing measured').toEqual([]);
      const measured = await decideWorkers({ ...suite, workersSet: false });
      expect(slow.seen.length, 'the target was measured').toBeGreaterThan(0);
      const env: Record<string, string | undefined> = {};
      handOff({ ...run, suite: { ...suite, workers: measured.workers } }, env);
      expect(handedOff(env, process.pid)?.suite.workers, 'what a worker of this runner reads').toBe(measured.workers);
      expect(handedOff(env, process.pid + 1), "another process's: not this runner's worker").toBeUndefined();
      expect(handedOff({}, process.pid), 'outside a run: nothing handed off').toBeUndefined();
    } finally {
      await slow.close();
    }
  });
});
