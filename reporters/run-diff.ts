import { OUTCOMES, type RequirementOutcome } from './verdicts.ts';

/** What a conformance.json holds that a diff reads. */
export interface RunReport {
  finishedAt?: string;
  result?: string;
  requirements: Array<{ id: string; level: string; outcome: string }>;
}

export interface OutcomeChange {
  id: string;
  level: string;
  before: string;
  after: string;
  /** worse: a requirement that now fails, is blocked or warns where it did not; better: the reverse. */
  direction: 'worse' | 'better' | 'changed';
}

const BAD = new Set<string>(['failed', 'blocked', 'warning']);
const rank = (outcome: string) => {
  const index = OUTCOMES.indexOf(outcome as RequirementOutcome);
  return index < 0 ? OUTCOMES.length : index;
};

/** The requirements whose outcome differs between two runs, worst news first. */
export function diffRuns(before: RunReport, after: RunReport): OutcomeChange[] {
  const old = new Map(before.requirements.map((r) => [r.id, r]));
  const changes: OutcomeChange[] = [];
  for (const now of after.requirements) {
    const was = old.get(now.id)?.outcome ?? '(not in the old run)';
    if (was === now.outcome) continue;
    const direction =
      BAD.has(now.outcome) && !BAD.has(was)
        ? 'worse'
        : BAD.has(was) && !BAD.has(now.outcome)
          ? 'better'
          : BAD.has(now.outcome) && rank(now.outcome) < rank(was)
            ? 'worse'
            : 'changed';
    changes.push({ id: now.id, level: now.level, before: was, after: now.outcome, direction });
  }
  for (const gone of before.requirements) {
    if (!after.requirements.some((r) => r.id === gone.id))
      changes.push({
        id: gone.id,
        level: gone.level,
        before: gone.outcome,
        after: '(not in the new run)',
        direction: 'changed',
      });
  }
  const order = { worse: 0, changed: 1, better: 2 } as const;
  return changes.sort((a, b) => order[a.direction] - order[b.direction] || a.id.localeCompare(b.id));
}

export function diffMarkdown(before: RunReport, after: RunReport, changes: readonly OutcomeChange[]): string {
  const lines = [
    `Runs compared: ${before.finishedAt ?? '?'} (${before.result ?? '?'}) -> ${after.finishedAt ?? '?'} (${after.result ?? '?'})`,
    changes.length === 0
      ? 'No requirement changed outcome.'
      : `${changes.length} requirement${changes.length === 1 ? '' : 's'} changed outcome:`,
  ];
  if (changes.length > 0) {
    lines.push('', '| Requirement | Level | Before | After | |', '|---|---|---|---|---|');
    for (const c of changes)
      lines.push(
        `| ${c.id} | ${c.level} | ${c.before} | ${c.after} | ${c.direction === 'worse' ? '**worse**' : c.direction} |`,
      );
  }
  return `${lines.join('\n')}\n`;
}
