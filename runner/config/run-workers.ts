import type { SuiteConfig } from '../../kit/config/suite-config.ts';
import { measureRoundTrips } from './round-trip.ts';
import { chooseWorkers } from './worker-count.ts';
import type { WorkerChoice } from '../../reporters/run-facts.ts';

/** Where the runner leaves the count it chose, for its workers (which load playwright.config.ts too) to read. */
export const RUN_WORKERS_ENV = 'CONFORMANCE_RUN_WORKERS';

/** The target URLs whose origins the run talks to: every service's base URL and token endpoint. */
export const targetUrls = (suite: SuiteConfig) =>
  Object.values(suite.services).flatMap((service) => [service.baseUrl, service.tokenUrl]);

/**
 * In the runner: the run's workers, measured against the target when CONFORMANCE_WORKERS is unset and the target is not
 * the embedded sandbox, and handed to the workers through RUN_WORKERS_ENV (they inherit the runner's environment).
 */
export async function decideWorkers(
  suite: SuiteConfig,
  env: Record<string, string | undefined> = process.env,
): Promise<WorkerChoice> {
  const measure = !suite.workersSet && !suite.embedded;
  const roundTrips = measure ? await measureRoundTrips(targetUrls(suite), suite.http.network) : undefined;
  const choice = chooseWorkers({
    ...(suite.workersSet ? { configured: suite.workers } : {}),
    embedded: suite.embedded,
    cap: suite.targetConcurrency,
    ...(roundTrips ? { roundTrips } : {}),
  });
  env[RUN_WORKERS_ENV] = String(choice.workers);
  return choice;
}

/** In a worker: the count its runner chose, so that the projects are laid out as the runner laid them out. */
export function inheritedWorkers(env: Record<string, string | undefined> = process.env): number | undefined {
  const value = Number(env[RUN_WORKERS_ENV]);
  return Number.isInteger(value) && value >= 1 ? value : undefined;
}
