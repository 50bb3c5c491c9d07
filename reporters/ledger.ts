import type { LedgerEntry } from '../schemas/ledger.ts';
import type { RequirementVerdict } from './verdicts.ts';

const KNOWABLE = new Set(['failed', 'blocked', 'warning']);

/**
 * Applies the ledger to a run's verdicts: a failed, blocked or warning requirement that an entry lists, before its
 * expiry, reads "known" (its tests and details stay). An expired entry, or one whose requirement did not fail, is a
 * problem that fails the run: the ledger must not outlive the failure it excuses. An entry whose requirement changed
 * level since it was written (its `level`, or the requirement is now INFO and can fail nothing) is a notice instead,
 * until the entry expires: the catalog moved, not the target, and the entry's ID still names the same row.
 */
export function applyLedger(
  verdicts: readonly RequirementVerdict[],
  entries: readonly LedgerEntry[],
  today: string,
): { verdicts: RequirementVerdict[]; problems: string[]; notices: string[] } {
  const problems: string[] = [];
  const notices: string[] = [];
  const known = new Map<string, LedgerEntry>();
  for (const entry of entries) {
    const verdict = verdicts.find((v) => v.id === entry.requirement);
    const moved = verdict && (verdict.level === 'INFO' || (entry.level !== undefined && entry.level !== verdict.level));
    if (entry.expires < today)
      problems.push(
        `Ledger entry for ${entry.requirement} (${entry.owner}) expired on ${entry.expires}: fix the failure or renew the entry`,
      );
    else if (moved)
      notices.push(
        `${entry.requirement} is now ${verdict.level}${entry.level && entry.level !== verdict.level ? ` (the ledger entry was written for ${entry.level})` : ''}: remove this entry (${entry.owner})`,
      );
    else if (!verdict || !KNOWABLE.has(verdict.outcome))
      problems.push(
        `Ledger entry for ${entry.requirement} (${entry.owner}) is unused: the requirement is ${verdict?.outcome ?? 'not in this run'}; remove the entry`,
      );
    else known.set(entry.requirement, entry);
  }
  const applied = verdicts.map((v) => {
    const entry = known.get(v.id);
    return entry
      ? {
          ...v,
          outcome: 'known' as const,
          breakdown: `known (${v.outcome}): ${entry.reason} — ${entry.owner}, until ${entry.expires}`,
        }
      : v;
  });
  return { verdicts: applied, problems, notices };
}
