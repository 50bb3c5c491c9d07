import type { PlaywrightTestConfig } from '@playwright/test';
import type { SuiteConfig } from './load-config.ts';

type Project = NonNullable<PlaywrightTestConfig<object, { config: SuiteConfig }>['projects']>[number];

/** The suite's projects, one per part of the document, in the order they start, then the run's end. */
export const projectNames = ['webhooks', 'auth', 'identity', 'stepup', 'orders', 'reseller', 'run-end'] as const;

/** The project every other one depends on; it holds no test. Its teardown, run-end, runs after all of them, whatever their results. */
const RUN = 'run';
const RUN_END = 'run-end';
/**
 * The check of every delivery of the run, run-end's one file. It sorts after the flows of tests/webhooks/, and
 * tests/webhooks/ after the other folders, so that a run of all tests on one worker in file order (the proof's) ends
 * with it too.
 */
const RUN_END_FILE = 'valid-deliveries.spec.ts';

/**
 * The Playwright projects of a conformance run. With the default 2 workers, one worker per project: the projects run
 * side by side, so that one project's worker boots (about half a second of loading) while another project's tests
 * run, and a run starts 6 workers, not more. With more workers (a slow target), a project runs on up to a third of
 * them (measured: npm run bench, docs/performance.md). The webhooks project comes first, because its flows mostly wait
 * for events and the other projects' tests run meanwhile; the run's receiver lives in the runner process, so its flows
 * run in parallel like any others. run-end judges every delivery of the run once every other project has finished:
 * it is the teardown of a project without tests that all the others depend on, so it runs even when they failed.
 */
export function conformanceProjects(suite: SuiteConfig, testsDir: string): Project[] {
  const use = { config: suite } satisfies { config: SuiteConfig };
  const start: Project = { name: RUN, testDir: `${testsDir}/webhooks`, testMatch: /(?!)/, teardown: RUN_END, use };
  const projects = projectLayout(suite.workers, testsDir).map((project) => ({ ...project, use, ...(project.name === RUN_END ? {} : { dependencies: [RUN] }) }));
  return [start, ...projects];
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
