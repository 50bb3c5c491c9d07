import type { FullConfig, Reporter, Suite } from '@playwright/test/reporter';

/** Prints the plain closing line CI reads: "selftest: N passed, N failed, N skipped", one count per test's final outcome. */
export default class PlainSummaryReporter implements Reporter {
  private root: Suite | undefined;

  onBegin(_config: FullConfig, suite: Suite): void {
    this.root = suite;
  }

  onEnd(): void {
    const tests = this.root?.allTests() ?? [];
    const count = (...outcomes: string[]) => tests.filter((t) => outcomes.includes(t.outcome())).length;
    console.log(
      `selftest: ${count('expected', 'flaky')} passed, ${count('unexpected')} failed, ${count('skipped')} skipped`,
    );
  }

  printsToStdio(): boolean {
    return false;
  }
}
