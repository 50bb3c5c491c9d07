import { readFileSync } from 'node:fs';
import type { Level } from './catalog.ts';

/** A requirement on a client of the API (catalog/client-requirements.json), judged by npm run certify-client. */
export interface ClientRequirement {
  id: string;
  part: string;
  level: Level;
  statement: string;
  rfc?: string;
}

export const clientRequirements: readonly ClientRequirement[] = (
  JSON.parse(readFileSync(new URL('./client-requirements.json', import.meta.url), 'utf8')) as { requirements: ClientRequirement[] }
).requirements;

export function clientRequirement(id: string): ClientRequirement {
  const found = clientRequirements.find((r) => r.id === id);
  if (!found) throw new Error(`Unknown client requirement ${id}: catalog/client-requirements.json has ${clientRequirements.map((r) => r.id).join(', ')}`);
  return found;
}
