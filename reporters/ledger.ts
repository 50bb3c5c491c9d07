import { existsSync, readFileSync } from 'node:fs';
import { isRequirementId } from '../catalog/catalog.ts';
import { describeIssues, schemaIdFor, schemaIssues } from '../schemas/registry.ts';
import type { RequirementVerdict } from './verdicts.ts';

/** One known failure: which requirement, why, who fixes it, and until when the entry holds. */
export interface LedgerEntry {
  requirement: string;
  reason: string;
  owner: string;
  /** YYYY-MM-DD, the last day the entry holds. */
  expires: string;
}

const LEDGER_SCHEMA = schemaIdFor('ledger');
const KNOWABLE = new Set(['failed', 'blocked', 'warning']);

/** Reads conformance-ledger.json; no file, no entries. A malformed ledger throws with every problem listed. */
export function loadLedger(path: string): LedgerEntry[] {
  if (!existsSync(path)) return [];
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const issues = schemaIssues(LEDGER_SCHEMA, value);
  if (issues.length > 0) throw new Error(`${path} is not a valid ledger:\n${describeIssues(LEDGER_SCHEMA, issues)}`);
  const entries = (value as { entries: LedgerEntry[] }).entries;
  const unknown = entries.filter((e) => !isRequirementId(e.requirement)).map((e) => e.requirement);
  if (unknown.length > 0) throw new Error(`${path} names requirements the catalog does not have: ${unknown.join(', ')}`);
  return entries;
}

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
