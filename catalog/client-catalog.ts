import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Level } from './catalog.ts';

/** A requirement on a client of the API (catalog/client-requirements.json), judged by npm run certify-client. */
export interface ClientRequirement {
  id: string;
  part: string;
  level: Level;
  statement: string;
  /** As Requirement.source: the statements and RFC clauses a MUST or SHOULD rests on. */
  source?: string[];
  sourceNote?: string;
  /** A row of the certification procedure (the scenario), not of the document: it has no source. */
  procedure?: boolean;
  rfc?: string;
}

const text = readFileSync(new URL('./client-requirements.json', import.meta.url), 'utf8');
export const clientRequirements: readonly ClientRequirement[] = (
  JSON.parse(text) as { requirements: ClientRequirement[] }
).requirements;
/** The SHA-256 of catalog/client-requirements.json, named in the client matrix and bundle. */
export const clientCatalogSha256 = createHash('sha256').update(text).digest('hex');

export function clientRequirement(id: string): ClientRequirement {
  const found = clientRequirements.find((r) => r.id === id);
  if (!found)
    throw new Error(
      `Unknown client requirement ${id}: catalog/client-requirements.json has ${clientRequirements.map((r) => r.id).join(', ')}`,
    );
  return found;
}
