import type { SuiteConfig } from '../../kit/config/suite-config.ts';
import { measureRoundTrips } from './round-trip.ts';
import { chooseWorkers } from './worker-count.ts';
import type { WorkerChoice } from '../../reporters/run-facts.ts';
import { resolveRun } from './resolve.ts';
import { embeddedReadLagMs, type RunConfig } from './run-config.ts';

/** The target URLs whose origins the run talks to: every service's base URL and token endpoint. */
export const targetUrls = (suite: SuiteConfig) =>
  Object.values(suite.services).flatMap((service) => [service.baseUrl, service.tokenUrl]);

/**
 * In the runner: the run's workers, measured against the target when CONFORMANCE_WORKERS is unset and the target is not
 * the embedded sandbox. The workers take the count with the rest of the run's configuration (runner/config/hand-off.ts).
 */
export async function decideWorkers(suite: SuiteConfig, readLagMs?: number): Promise<WorkerChoice> {
  const measure = !suite.workersSet && !suite.embedded;
  const roundTrips = measure ? await measureRoundTrips(targetUrls(suite), suite.http.network) : undefined;
  return chooseWorkers({
    ...(suite.workersSet ? { configured: suite.workers } : {}),
    embedded: suite.embedded,
    cap: suite.targetConcurrency,
    ...(roundTrips ? { roundTrips } : {}),
    ...(readLagMs !== undefined ? { readLagMs } : {}),
  });
}

/**
 * In the runner: the run's configuration with its worker count decided in it, before anything takes the value (the
 * workers, the reporters, the global setup); Playwright fixes the count before the global setup.
 */
export async function resolveRunWithWorkers(
  env?: Readonly<Record<string, string | undefined>>,
  repoRoot?: string,
): Promise<{ run: RunConfig; workers: WorkerChoice }> {
  const resolved = resolveRun(env, repoRoot);
  const workers = await decideWorkers(resolved.suite, embeddedReadLagMs(resolved.sandbox));
  return { run: { ...resolved, suite: { ...resolved.suite, workers: workers.workers } }, workers };
}
