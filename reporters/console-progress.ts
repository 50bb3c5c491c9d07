import { marksOf } from '../kit/verdict-marks.ts';
import { splitReplays } from './replay.ts';
import type { JudgedRequirement, TestRecord } from './verdicts.ts';

/** What one test came to, for the console's line per project. */
function testEnd(record: TestRecord): 'failed' | 'blocked' | 'not configured' | 'passed' {
  if (record.status === 'failed' || record.status === 'timedOut') return 'failed';
  const kinds = new Set(marksOf(record.annotations).map((m) => m.kind));
  if (kinds.has('blocked')) return 'blocked';
  if (record.status === 'skipped' || record.status === 'interrupted') return 'not configured';
  return 'passed';
}

/**
 * One console line per Playwright project, printed when its last test ends ("  auth      41 tests: 41 passed"):
 * what a green run shows while it runs, instead of a line per test (CONFORMANCE_VERBOSE=1 brings those back).
 */
export class ProjectProgress {
  private readonly ended = new Map<string, TestRecord[]>();
  private readonly width: number;

  constructor(private readonly totals: ReadonlyMap<string, number>) {
    this.width = Math.max(0, ...[...totals.keys()].map((name) => name.length));
  }

  /** The project's line when this was its last test. */
  add(record: TestRecord): string | undefined {
    const list = [...(this.ended.get(record.project) ?? []), record];
    this.ended.set(record.project, list);
    return list.length === this.totals.get(record.project) ? this.line(record.project, list) : undefined;
  }

  /** Lines of the projects whose tests did not all end (an interrupted run, --max-failures). */
  unfinished(): string[] {
    return [...this.totals]
      .filter(([name, total]) => (this.ended.get(name)?.length ?? 0) < total)
      .map(([name]) => this.line(name, this.ended.get(name) ?? []));
  }

  private line(project: string, records: readonly TestRecord[]): string {
    const total = this.totals.get(project) ?? records.length;
    const counts = new Map<string, number>();
    for (const record of records) counts.set(testEnd(record), (counts.get(testEnd(record)) ?? 0) + 1);
    const ends = ['failed', 'blocked', 'not configured', 'passed']
      .filter((e) => counts.has(e))
      .map((e) => `${counts.get(e)} ${e}`);
    const left = records.length < total ? [`${total - records.length} did not run`] : [];
    return `  ${project.padEnd(this.width)}  ${total} test${total === 1 ? '' : 's'}: ${[...ends, ...left].join(', ') || 'none ended'}`;
  }
}

const MAX_LINE = 300;
const clip = (line: string) => (line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line);

/**
 * A failed test, once: each requirement it failed, its statement once, with the evidence of every check that failed
 * it, then each replay command once (a test citing two requirements of one exchange has one replay), a token line
 * only where the token changes; or the error when no check raised it.
 */
export function failureBlock(
  record: TestRecord,
  catalog: ReadonlyMap<string, JudgedRequirement>,
  withWarnings = false,
): string[] {
  const lines = [`  ✘ [${record.project}] › ${record.location} › ${record.title}`];
  const failed = marksOf(record.annotations).filter((m) => m.kind === 'fail' || (withWarnings && m.kind === 'warn'));
  const replays = new Set<string>();
  for (const id of new Set(failed.map((m) => m.id))) {
    const req = catalog.get(id);
    lines.push(clip(`    ${id}${req ? ` (${req.level}, part ${req.part}): ${req.statement}` : ''}`));
    for (const mark of failed.filter((m) => m.id === id)) {
      const { evidence, replays: found } = splitReplays(mark.detail);
      for (const line of evidence) if (line.trim()) lines.push(clip(`      ${line.trim()}`));
      for (const replay of found) replays.add(replay);
    }
  }
  if (failed.length === 0)
    for (const line of (record.error ?? record.status).split('\n')) lines.push(clip(`    ${line}`));
  if (replays.size > 0) lines.push('    Replay (API_KEY from your .env):');
  let token: string | undefined;
  for (const replay of replays) {
    for (const line of replay.split('\n')) {
      // The same token as the command before: it is in $TOKEN already.
      if (/^TOKEN=\$\(/.test(line)) {
        if (line === token) continue;
        token = line;
      }
      lines.push(`      ${line}`);
    }
  }
  return lines;
}
