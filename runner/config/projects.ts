import type { PlaywrightTestConfig } from '@playwright/test';
import type { SuiteConfig } from '../../kit/config/suite-config.ts';

type Project = NonNullable<PlaywrightTestConfig<object, { config: SuiteConfig }>['projects']>[number];

/**
 * The suite's projects, one per part of the document, in the order they start. Against a far target the run's end is
 * the later of two things: its longest chain of requests, and its last accepted step-up's event (the check of every
 * delivery waits for it, and the webhook flows' step-ups are answered once every step-up beside them has its event:
 * runner/webhooks/step-up-flows.ts). So: the webhook flows first (they mostly wait for events), identity (the longest
 * chain) and stepup (most of the run's step-ups) beside them, then auth (its step-up tests first in it:
 * tests/auth/protected-calls.ts), reseller, and orders, which cause no event; run-end after all. Against the far
 * flavor (150 ms, events 6 to 9 s late), on 2026-11-26, two runs each: 29.9 and 30.2 s, against 36.2 and 37.6 s for the
 * order before (webhooks, auth, identity, reseller, stepup, orders), whose stepup project began 15 s into the run;
 * identity on 5 or 6 workers, or 9 or 15 workers in all, were no better (31 to 34 s; docs/performance.md).
 * The webhook flows on two workers instead of four (auth then starts in the first wave): 32.9 and 29.8 s against 34.0
 * and 34.4 s, by turns.
 */
export const projectNames = ['webhooks', 'identity', 'stepup', 'auth', 'reseller', 'orders', 'run-end'] as const;

/**
 * run-end's one test, the check of every delivery of the run: it waits for every other test of the run to end
 * (runner/run-progress.ts). Its project comes last, so that it is dispatched once every other test has been and
 * holds a worker only while the last ones finish. Its file sorts after the flows of tests/webhooks/, and that folder
 * after the others, so that a run of every test on one worker in file order (the proof's) ends with it too.
 */
const RUN_END = 'run-end';
/** The most workers the webhook flows run on (see conformanceProjects). */
const WEBHOOK_FLOW_WORKERS = 2;
const RUN_END_FILE = 'valid-deliveries.spec.ts';

/**
 * The Playwright projects of a conformance run. With the default 2 workers, one worker per project: the projects run
 * side by side, so that one project's worker boots (about half a second of loading) while another project's tests
 * run, and a run starts 6 workers, not more. With more workers (a slow target), a project runs on up to a third of
 * them (measured: npm run bench, docs/performance.md), but the webhook flows on two at most: their four tests mostly
 * wait (the document flows for their events, then the step-ups for the events of every step-up beside them), and a
 * third and fourth worker would only wait beside them while auth waits for a worker. The run's receiver lives in the
 * runner process, so the webhook flows run side by side like any others.
 */
export function conformanceProjects(suite: SuiteConfig, testsDir: string): Project[] {
  return projectLayout(suite.workers, testsDir).map((project) => ({
    ...project,
    use: { config: suite } satisfies { config: SuiteConfig },
  }));
}

/** The projects' names, folders and workers for a run on `workers` workers, without their configuration. */
export function projectLayout(workers: number, testsDir: string) {
  const perProject = Math.max(1, Math.ceil(workers / 3));
  return projectNames.map((name) =>
    name === RUN_END
      ? { name, testDir: `${testsDir}/webhooks`, testMatch: RUN_END_FILE, workers: 1 }
      : name === 'webhooks'
        ? {
            name,
            testDir: `${testsDir}/${name}`,
            workers: Math.min(perProject, WEBHOOK_FLOW_WORKERS),
            testIgnore: RUN_END_FILE,
          }
        : { name, testDir: `${testsDir}/${name}`, workers: perProject },
  );
}
