import type { PlaywrightTestConfig } from '@playwright/test';
import type { SuiteConfig } from '../../kit/config/suite-config.ts';

type Project = NonNullable<PlaywrightTestConfig<object, { config: SuiteConfig }>['projects']>[number];

/**
 * The suite's projects, one per part of the document, in the order they start on one worker each (the embedded
 * sandbox, a near target): the webhook flows beside identity, the longest, which sends no step-up, so that the flows'
 * counted step-ups run beside few others (runner/webhooks/step-up-flows.ts): a step-up beside a counted one that ends
 * without an event (a target may answer it within a session it already has) leaves the count unproven, and the check
 * then waits for its step-up sent again alone. Then stepup, auth (its step-up tests first in it:
 * tests/auth/protected-calls.ts), reseller and orders; run-end after all.
 */
export const projectNames = ['webhooks', 'identity', 'stepup', 'auth', 'reseller', 'orders', 'run-end'] as const;

/**
 * The order with more workers (a far target), where every project starts at once anyway. The run's end is then the
 * latest of three things: identity's work (the most test time of any project), the webhook flows (each waits for
 * events 6 to 9 s late; a step-up's is answered once every step-up beside it has its event), and the last accepted
 * step-up's event (the check of every delivery waits for it). So the projects that send step-ups start right after the
 * webhook flows, and all of the run's step-ups go out in its first seconds: stepup, reseller (a step-up among its five
 * tests) and auth. Identity then takes every worker they leave, up to half of them; orders, which cause no event,
 * follow.
 *
 * Against the far flavor (150 ms, events 6 to 9 s late, 12 workers), on 2026-11-27, two runs each: 19.8 and 20.5 s,
 * against 22.3 and 22.4 s with identity second (auth's step-ups then went out 8 s into the run, and the webhook flows
 * waited for their events) and 21.1 and 21.3 s with identity on two fifths of the workers (docs/performance.md).
 */
const stepUpsFirst: ReadonlyArray<(typeof projectNames)[number]> = [
  'webhooks',
  'stepup',
  'reseller',
  'auth',
  'identity',
  'orders',
  'run-end',
];

/**
 * run-end's one test, the check of every delivery of the run: it waits for every other test of the run to end
 * (runner/run-progress.ts). Its project comes last, so that it is dispatched once every other test has been and
 * holds a worker only while the last ones finish. Its file sorts after the flows of tests/webhooks/, and that folder
 * after the others, so that a run of every test on one worker in file order (the proof's) ends with it too.
 */
const RUN_END = 'run-end';
/**
 * The webhook flows' tests: they run on as many workers at most, each mostly waiting for its events. The number of
 * tests of the webhooks project (selftest/tags.spec.ts counts them in the suite's listing).
 */
export const WEBHOOK_FLOWS = 6;
// Compiled to .js in the installed package.
const RUN_END_FILE = 'valid-deliveries.spec.[jt]s';

/**
 * The Playwright projects of a conformance run. With the default 2 workers, one worker per project: the projects run
 * side by side, so that one project's worker boots (about half a second of loading) while another project's tests
 * run, and a run starts 6 workers, not more. With more workers (a slow target), a project runs on up to a third of
 * them (measured: npm run bench, docs/performance.md), identity on up to half, and the webhook flows each on a
 * worker of its own: a flow that waits for a worker starts its events' delay late. The run's receiver lives in the
 * runner process, so the webhook flows run side by side like any others.
 */
export function conformanceProjects(suite: SuiteConfig, testsDir: string, readsTrail = false): Project[] {
  return projectLayout(suite.workers, testsDir, readsTrail).map((project) => ({
    ...project,
    use: { config: suite } satisfies { config: SuiteConfig },
  }));
}

/**
 * The projects' names, folders and workers for a run on `workers` workers, without their configuration. When the
 * target's reads trail its writes, identity, whose checks read most of what they write, starts right after the
 * webhook flows, as on 2 workers, and waits on all workers but two, while the other projects follow one another on
 * those two, one worker each: its waits for the replica are the run's longest chain, and every worker a project
 * starts costs a process start (measured: runner/config/worker-count.ts TRAILING_READS_WORKERS).
 */
export function projectLayout(workers: number, testsDir: string, readsTrail = false) {
  const perProject = readsTrail ? 1 : Math.max(1, Math.ceil(workers / 3));
  const identityWorkers = readsTrail ? Math.max(1, workers - 2) : Math.max(1, Math.ceil(workers / 2));
  return (perProject === 1 ? projectNames : stepUpsFirst).map((name) =>
    name === RUN_END
      ? { name, testDir: `${testsDir}/webhooks`, testMatch: RUN_END_FILE, workers: 1 }
      : name === 'webhooks'
        ? {
            name,
            testDir: `${testsDir}/${name}`,
            workers: Math.min(perProject, WEBHOOK_FLOWS),
            testIgnore: RUN_END_FILE,
          }
        : {
            name,
            testDir: `${testsDir}/${name}`,
            // Identity has the most test time: it takes the workers the others leave.
            workers: name === 'identity' ? identityWorkers : perProject,
          },
  );
}
