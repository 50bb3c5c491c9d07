import type { PlaywrightTestConfig } from '@playwright/test';
import type { SuiteConfig } from './load-config.ts';

type Project = NonNullable<PlaywrightTestConfig<object, { config: SuiteConfig }>['projects']>[number];

/**
 * The suite's projects, one per part of the document, in the order they start: the webhook flows first (they mostly wait
 * for events, and their two step-ups run alone on their channel: harness/webhooks/step-up-flows.ts), then the longest
 * chains (auth, identity) while those wait, then the projects whose step-ups cause events no flow awaits (reseller,
 * stepup) early enough for their events to arrive while the rest runs, and orders, which cause none, last; run-end
 * after all. Against the far flavor (150 ms, events 6 to 9 s late) this order took 36.1 s (two runs), against 46.4 s
 * with stepup and reseller first (their step-ups waited for the webhook flows' channels), 39.1 s with reseller last
 * (the end of the run waited for its event), 36.3 to 38.8 s with identity before auth, and 36.9 to 40.5 s with more
 * workers per project or more workers (docs/performance.md).
 */
export const projectNames = ['webhooks', 'auth', 'identity', 'reseller', 'stepup', 'orders', 'run-end'] as const;

/**
 * run-end's one test, the check of every delivery of the run: it waits for every other test of the run to end
 * (harness/run/run-progress.ts). Its project comes last, so that it is dispatched once every other test has been and
 * holds a worker only while the last ones finish. Its file sorts after the flows of tests/webhooks/, and that folder
 * after the others, so that a run of every test on one worker in file order (the proof's) ends with it too.
 */
const RUN_END = 'run-end';
const RUN_END_FILE = 'valid-deliveries.spec.ts';

/**
 * The Playwright projects of a conformance run. With the default 2 workers, one worker per project: the projects run
 * side by side, so that one project's worker boots (about half a second of loading) while another project's tests
 * run, and a run starts 6 workers, not more. With more workers (a slow target), a project runs on up to a third of
 * them (measured: npm run bench, docs/performance.md). The run's receiver lives in the runner process, so the webhook
 * flows run side by side like any others.
 */
export function conformanceProjects(suite: SuiteConfig, testsDir: string): Project[] {
  return projectLayout(suite.workers, testsDir).map((project) => ({ ...project, use: { config: suite } satisfies { config: SuiteConfig } }));
}

/** The projects' names, folders and workers for a run on `workers` workers, without their configuration. */
export function projectLayout(workers: number, testsDir: string) {
  const perProject = Math.max(1, Math.ceil(workers / 3));
  return projectNames.map((name) =>
    name === RUN_END
      ? { name, testDir: `${testsDir}/webhooks`, testMatch: RUN_END_FILE, workers: 1 }
      : { name, testDir: `${testsDir}/${name}`, workers: perProject, ...(name === 'webhooks' ? { testIgnore: RUN_END_FILE } : {}) },
  );
}
