import { existsSync, readFileSync } from 'node:fs';
import { isRequirementId } from '../catalog/catalog.ts';
import { describeIssues, schemaIdFor, schemaIssues } from './registry.ts';

/** One known failure: which requirement, why, who fixes it, and until when the entry holds. */
export interface LedgerEntry {
  requirement: string;
  reason: string;
  owner: string;
  /** YYYY-MM-DD, the last day the entry holds. */
  expires: string;
  /** The requirement's level when the entry was written: when the catalog changes it, the entry reads as a notice. */
  level?: 'MUST' | 'SHOULD' | 'INFO';
}

const LEDGER_SCHEMA = schemaIdFor('ledger');

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
  if (unknown.length > 0)
    throw new Error(`${path} names requirements the catalog does not have: ${unknown.join(', ')}`);
  return entries;
}
