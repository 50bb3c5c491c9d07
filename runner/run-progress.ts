/**
 * Which tests of the run have not ended yet, per webhook receiver (WEBHOOK_LISTEN's port), kept by the conformance
 * reporter in the runner process: the check of every delivery of the run (tests/webhooks/valid-deliveries.spec.ts)
 * waits until every other test that sends to its target has ended, so that it judges their deliveries too.
 */
export interface TestOfRun {
  id: string;
  /** The webhook port of the test's project (its configuration's), undefined when its project has none. */
  port: number | undefined;
}

export class RunProgress {
  private readonly pending = new Map<string, number | undefined>();
  private readonly waiters = new Set<{ port: number; except: string; resolve: () => void }>();

  /**
   * @param workers the run's workers: with one, a test that waits for the others would wait for ever (they run after
   * it on the same worker), so nothing waits.
   */
  constructor(
    tests: readonly TestOfRun[],
    private readonly workers: number,
  ) {
    for (const test of tests) this.pending.set(test.id, test.port);
  }

  /** A test's final result is in (it will not be retried). */
  ended(id: string): void {
    this.pending.delete(id);
    for (const waiter of [...this.waiters]) {
      if (this.othersLeft(waiter.port, waiter.except)) continue;
      this.waiters.delete(waiter);
      waiter.resolve();
    }
  }

  /** Resolves once every test for `port` but `except` has ended, or at once when that cannot be waited for. */
  othersEnded(port: number, except: string): Promise<void> {
    if (this.workers <= 1 || !this.othersLeft(port, except)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.add({ port, except, resolve }));
  }

  /** How many tests for `port` but `except` have not ended. */
  othersLeft(port: number, except: string): number {
    let left = 0;
    for (const [id, testPort] of this.pending) if (testPort === port && id !== except) left += 1;
    return left;
  }
}
