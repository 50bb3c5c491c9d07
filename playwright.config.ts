import { defineConfig } from '@playwright/test';
import { enableCompileCache } from './runner/config/compile-cache.ts';
import { handedOff, handOff } from './runner/config/hand-off.ts';
import { playwrightOptions } from './runner/config/playwright-options.ts';
import { moduleFile } from './runner/module-file.ts';
import type { RunConfig } from './runner/config/run-config.ts';
import type { WorkerChoice } from './reporters/run-facts.ts';
import type { WorkerFixtures } from './fixtures/test.ts';

// eslint-disable-next-line no-restricted-properties -- the workers inherit the compile cache through the environment
enableCompileCache(process.env);

// Playwright loads this file in the runner, then again in every worker. The runner resolves the run's configuration,
// once (runner/config/resolve.ts); a worker takes the runner's (runner/config/hand-off.ts) and reads no variable of its
// own.
// eslint-disable-next-line no-restricted-properties -- a worker reads the hand-off of the runner that started it
const handed = handedOff(process.env);
const isWorker = handed !== undefined;
// A listing runs no test: it needs no worker count, no sandbox, no run state and no reporters of a run.
const listing = process.argv.includes('--list');

/** In the runner: the configuration, the worker count, the start line, the embedded sandbox and the run's state. */
async function prepareRun(): Promise<RunConfig> {
  // Loaded here, in the runner only: a worker needs none of it.
  const [{ ConfigError }, { resolveRun }, { resolveRunWithWorkers }, { workersLine }] = await Promise.all([
    import('./runner/config/load-config.ts'),
    import('./runner/config/resolve.ts'),
    import('./runner/config/run-workers.ts'),
    import('./runner/config/worker-count.ts'),
  ]);
  // Playwright fixes the worker count here, before the global setup: the runner chooses it (from the target's round
  // trip unless CONFORMANCE_WORKERS is set) as part of the configuration, which its workers take with the rest.
  const resolveOrExit = async (): Promise<{ run: RunConfig; workers?: WorkerChoice }> => {
    try {
      return listing ? { run: resolveRun() } : await resolveRunWithWorkers();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(error.message);
      // The run's reports say it did not run, and why, in place of an earlier run's verdict.
      if (!listing) (await import('./runner/run-reporters.ts')).endBeforeTests(error.problems);
      process.exit(2);
    }
  };
  const { run, workers: workerChoice } = await resolveOrExit();
  const { suite, sandbox } = run;
  // eslint-disable-next-line no-restricted-properties -- the hand-off to the workers, which inherit this environment
  handOff(run, process.env);
  if (!run.console.quiet) {
    const target = sandbox ? `embedded sandbox at ${sandbox.url}` : suite.services.identity.baseUrl;
    console.log(
      `Conformance run: profile ${suite.profile}, seed ${suite.seed} (replay with SEED=${suite.seed}), target ${target}`,
    );
    if (workerChoice) console.log(workersLine(workerChoice));
  }
  if (listing) return run;
  // Started now, in the runner's process: the sandbox, the run's state and the reporters belong to the runner.
  const [{ startEmbeddedSandbox }, { runState }, { runFacts }, { startReports }] = await Promise.all([
    import('./runner/config/embedded-sandbox.ts'),
    import('./runner/run-state.ts'),
    import('./reporters/run-facts.ts'),
    import('./runner/run-reporters.ts'),
  ]);
  runState().run = run;
  // Every report the run will write says "not finished" until it ends: a crash leaves no earlier run's verdict behind.
  startReports(run);
  if (sandbox) runState().sandbox = startEmbeddedSandbox(sandbox);
  if (workerChoice) runFacts().workers = workerChoice;
  return run;
}

const run = handed ?? (await prepareRun());

// Imported by the runner only, as its own statement: tsc rewrites the extension of this import to the package's .js.
const { reportersFor } = isWorker ? { reportersFor: () => [] } : await import('./runner/run-reporters.ts');

export default defineConfig<object, WorkerFixtures>({
  ...playwrightOptions(run, './tests'),
  reporter: isWorker ? [] : reportersFor(run),
  // The embedded sandbox listening, the run's token broker, then the preflight (runner/global-setup.ts).
  ...(!isWorker && !listing ? { globalSetup: moduleFile('./runner/global-setup', import.meta.url) } : {}),
});
