import type { FullConfig, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import type { SuiteConfig } from '../kit/config/suite-config.ts';
import { RunProgress } from './run-progress.ts';
import { runState } from './run-state.ts';

/**
 * Keeps which tests of the run have not ended (run-progress.ts) where the run's receiver finds it: the check
 * of every delivery waits on it. In every run that has a receiver, a shard's included; it prints nothing.
 */
export default class RunProgressReporter implements Reporter {
  onBegin(config: FullConfig, suite: Suite): void {
    const portOf = (test: TestCase) =>
      (test.parent.project()?.use as { config?: SuiteConfig } | undefined)?.config?.webhook.port;
    runState().progress = new RunProgress(
      suite.allTests().map((test) => ({ id: test.id, port: portOf(test) })),
      config.workers,
    );
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    // A test that will be retried has not ended.
    if (result.retry >= test.retries || result.status === 'passed' || result.status === 'skipped')
      runState().progress?.ended(test.id);
  }

  printsToStdio(): boolean {
    return false;
  }
}
