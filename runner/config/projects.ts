import type { PlaywrightTestConfig } from '@playwright/test';
import type { SuiteConfig } from '../../kit/config/suite-config.ts';

type Project = NonNullable<PlaywrightTestConfig<object, { config: SuiteConfig }>['projects']>[number];

/**
 * The suite's projects, one per part of the document, in the order they start. Against a far target the run's end is
 * the latest of three things: identity's work (the most test time of any project), the webhook flows (each waits for
 * events 6 to 9 s late; a step-up's is answered once every step-up beside it has its event:
 * runner/webhooks/step-up-flows.ts), and the last accepted step-up's event (the check of every delivery waits for it).
 * So: the webhook flows first, identity and stepup (most of the run's step-ups) beside them, then reseller (a step-up
 * among its five tests) and auth (its step-up tests first in it: tests/auth/protected-calls.ts), and orders, which cause
 * no event; run-end after all.
 *
 * Against the far flavor (150 ms, events 6 to 9 s late, 12 workers), on 2026-11-27: 19.6 to 20.5 s, against 21.0 to
 * 24.5 s for the order before (auth before reseller, identity on four workers and the webhook flows on two), whose
 * identity ended last and whose step-up flows began 10 s into the run, after the document flows (docs/performance.md).
 */
export const projectNames = ['webhooks', 'identity', 'stepup', 'reseller', 'auth', 'orders', 'run-end'] as const;

/**
 * run-end's one test, the check of every delivery of the run: it waits for every other test of the run to end
 * (runner/run-progress.ts). Its project comes last, so that it is dispatched once every other test has been and
 * holds a worker only while the last ones finish. Its file sorts after the flows of tests/webhooks/, and that folder
 * after the others, so that a run of every test on one worker in file order (the proof's) ends with it too.
 */
const RUN_END = 'run-end';
/** The webhook flows' tests: they run on as many workers at most, each mostly waiting for its events. */
const WEBHOOK_FLOWS = 4;
const RUN_END_FILE = 'valid-deliveries.spec.ts';

/**
 * The Playwright projects of a conformance run. With the default 2 workers, one worker per project: the projects run
 * side by side, so that one project's worker boots (about half a second of loading) while another project's tests
 * run, and a run starts 6 workers, not more. With more workers (a slow target), a project runs on up to a third of
 * them (measured: npm run bench, docs/performance.md), identity on up to two fifths, and the webhook flows each on a
 * worker of its own: a flow that waits for a worker starts its events' delay late. The run's receiver lives in the
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
            workers: Math.min(perProject, WEBHOOK_FLOWS),
            testIgnore: RUN_END_FILE,
          }
        : {
            name,
            testDir: `${testsDir}/${name}`,
            // About two fifths of the run's test time is identity's.
            workers: name === 'identity' ? Math.max(1, Math.ceil((2 * workers) / 5)) : perProject,
          },
  );
}
