import type { LedgerEntry } from '../harness/config/ledger.ts';
import type { RequirementVerdict } from './verdicts.ts';

const KNOWABLE = new Set(['failed', 'blocked', 'warning']);

/**
 * Applies the ledger to a run's verdicts: a failed, blocked or warning requirement that an entry lists, before its
 * expiry, reads "known" (its tests and details stay). An expired entry, or one whose requirement did not fail, is a
 * problem that fails the run: the ledger must not outlive the failure it excuses.
 */
export function applyLedger(verdicts: readonly RequirementVerdict[], entries: readonly LedgerEntry[], today: string): { verdicts: RequirementVerdict[]; problems: string[] } {
  const problems: string[] = [];
  const known = new Map<string, LedgerEntry>();
  for (const entry of entries) {
    const verdict = verdicts.find((v) => v.id === entry.requirement);
    if (entry.expires < today) problems.push(`Ledger entry for ${entry.requirement} (${entry.owner}) expired on ${entry.expires}: fix the failure or renew the entry`);
    else if (!verdict || !KNOWABLE.has(verdict.outcome)) problems.push(`Ledger entry for ${entry.requirement} (${entry.owner}) is unused: the requirement is ${verdict?.outcome ?? 'not in this run'}; remove the entry`);
    else known.set(entry.requirement, entry);
  }
  const applied = verdicts.map((v) => {
    const entry = known.get(v.id);
    return entry ? { ...v, outcome: 'known' as const, breakdown: `known (${v.outcome}): ${entry.reason} — ${entry.owner}, until ${entry.expires}` } : v;
  });
  return { verdicts: applied, problems };
}
