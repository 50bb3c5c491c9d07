import { relative } from 'node:path';
import type { FullConfig, Reporter, Suite } from '@playwright/test/reporter';
import { requirements } from '../catalog/catalog.ts';
import { citedIds } from '../kit/verdict-marks.ts';

/**
 * What `--list` prints: each test with its project, location, title and tags (the requirements it cites and the places
 * it checks them on), then the requirement index (each requirement's tag, level, part and how many listed tests cite
 * it), so that `--grep @ID` can be chosen from it.
 */
export default class ListingReporter implements Reporter {
  private rootDir = process.cwd();

  onConfigure(config: FullConfig): void {
    this.rootDir = config.rootDir;
  }

  onBegin(_config: unknown, suite: Suite): void {
    const tests = suite.allTests();
    console.log('Listing tests:');
    for (const test of tests) {
      const project = test.parent.project()?.name;
      console.log(
        `  ${project ? `[${project}] › ` : ''}${relative(this.rootDir, test.location.file)}:${test.location.line} › ${test.title} ${test.tags.join(' ')}`,
      );
    }
    console.log(`Total: ${tests.length} tests`);
    const counts = new Map<string, number>();
    for (const test of tests) for (const id of citedIds(test.annotations)) counts.set(id, (counts.get(id) ?? 0) + 1);
    const listed = requirements.filter((r) => counts.has(r.id));
    const width = Math.max(...listed.map((r) => r.id.length + 1), 0);
    console.log(`Requirements cited by the listed tests (select a requirement's tests with --grep @ID):`);
    for (const r of listed)
      console.log(
        `  ${`@${r.id}`.padEnd(width)}  ${r.level.padEnd(6)} part ${r.part.padEnd(4)} ${counts.get(r.id)} test${counts.get(r.id) === 1 ? '' : 's'}`,
      );
    console.log(`Total: ${listed.length} of ${requirements.length} requirements`);
  }

  printsToStdio(): boolean {
    return true;
  }
}
