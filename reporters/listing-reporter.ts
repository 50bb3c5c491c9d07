import type { Reporter, Suite } from '@playwright/test/reporter';
import { requirements } from '../catalog/catalog.ts';
import { citedIds } from '../harness/verdict-marks.ts';

/**
 * `--list` prints each test's title (Playwright's own listing, which shows no tags); this adds the requirement index:
 * each requirement's tag, level, part and how many listed tests cite it, so that `--grep @ID` can be chosen from it.
 */
export default class ListingReporter implements Reporter {
  onBegin(_config: unknown, suite: Suite): void {
    const tests = suite.allTests();
    const counts = new Map<string, number>();
    for (const test of tests) for (const id of citedIds(test.annotations)) counts.set(id, (counts.get(id) ?? 0) + 1);
    const listed = requirements.filter((r) => counts.has(r.id));
    const width = Math.max(...listed.map((r) => r.id.length + 1), 0);
    console.log(`Requirements cited by the listed tests (select a requirement's tests with --grep @ID):`);
    for (const r of listed) console.log(`  ${`@${r.id}`.padEnd(width)}  ${r.level.padEnd(6)} part ${r.part.padEnd(4)} ${counts.get(r.id)} test${counts.get(r.id) === 1 ? '' : 's'}`);
    console.log(`Total: ${listed.length} of ${requirements.length} requirements`);
  }

  printsToStdio(): boolean {
    return true;
  }
}
