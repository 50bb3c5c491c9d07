import { requirement } from '../catalog/catalog.ts';
import { optionalSettings } from '../runner/config/optional-settings.ts';
import { configSchema } from '../schemas/variables.ts';
import { failsRun, type Profile } from '../reporters/run-verdict.ts';

const profiles: readonly Profile[] = (configSchema.properties.PROFILE?.enum ?? []) as Profile[];

/** The profiles whose verdict fails when these requirements are not configured (the verdict engine's own rule). */
export function profilesNeeding(ids: readonly string[]): Profile[] {
  return profiles.filter((profile) => ids.some((id) => failsRun(requirement(id).level, 'not-configured', profile)));
}

export const rowsOf = (ids: readonly string[]) => ids.map((id) => `${id} (${requirement(id).level})`).join(', ');
const neededBy = (ids: readonly string[]) =>
  profilesNeeding(ids).join(', ') || 'none (the rows are recorded as not configured)';

/** The optional settings, as docs/doctor.md shows them: generated from runner/config/optional-settings.ts and the catalog. */
export function settingsTable(): string {
  return [
    '| Setting | Exercises | Rows not configured without it | Profiles that fail without it |',
    '|---|---|---|---|',
    ...optionalSettings.map(
      (s) =>
        `| ${s.variables.map((v) => `\`${v}\``).join(', ')} | ${s.exercises} | ${rowsOf(s.requirements)} | ${neededBy(s.requirements)} |`,
    ),
  ].join('\n');
}
