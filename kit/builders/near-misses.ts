/**
 * Identifiers that nearly match a real one (docs/traffic.md, "Near misses"): what a lookup in the field resolves by
 * mistake. A `LIKE 'id%'` query resolves an id cut short; a column of fixed width truncates an id with characters
 * appended. Each is derived from a real identifier, which the caller takes as the target issued (service ids) or as the
 * case was created with (an inquiryId in NFC, trimmed): a base the target's own normalisation leaves as it is.
 *
 * `binding` near misses name no case the document lets the id name: the rule's own level judges them. The others differ
 * in a way some correct stores ignore (ULID and UUID compare case-insensitively by their own specifications; common
 * database collations fold case, trim, or normalise Unicode): observed only.
 */
export interface NearMiss {
  id: string;
  /** What it is, as the test title and docs/traffic.md name it. */
  name: string;
  binding: boolean;
  /** The near miss of `real`; undefined when this kind cannot differ from it (no letters to change the case of). */
  derive: (real: string) => string | undefined;
}

/** Appended by an extension: a digit, so that a sequential id extended is still an id of its own shape. */
const APPENDED = '0';

const prefix: NearMiss = {
  id: 'prefix',
  name: 'the real id cut short by its last character',
  binding: true,
  derive: (real) => (real.length > 1 ? real.slice(0, -1) : undefined),
};

const extension: NearMiss = {
  id: 'extension',
  name: `the real id with "${APPENDED}" appended`,
  binding: true,
  derive: (real) => `${real}${APPENDED}`,
};

const letterCase: NearMiss = {
  id: 'letter-case',
  name: 'the real id with the case of its letters swapped',
  binding: false,
  derive: (real) => {
    const swapped = [...real].map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase())).join('');
    return swapped === real ? undefined : swapped;
  },
};

const whitespace: NearMiss = {
  id: 'whitespace',
  name: 'the real id between spaces',
  binding: false,
  derive: (real) => ` ${real} `,
};

const normalisation: NearMiss = {
  id: 'unicode-normalisation',
  name: 'the real id decomposed (NFD) where it was sent composed (NFC)',
  binding: false,
  derive: (real) => (real.normalize('NFD') === real ? undefined : real.normalize('NFD')),
};

/** Near misses of an identifier the service generates (authenticationId, the case id of 4.4 and 4.5). */
export const serviceIdNearMisses: readonly NearMiss[] = [prefix, extension, letterCase, whitespace];

/** Near misses of an identifier the customer generates (the inquiryId a case update or a step-up must map). */
export const customerIdNearMisses: readonly NearMiss[] = [prefix, extension, letterCase, whitespace, normalisation];

/**
 * An inquiryId for a case whose near misses are sent: a fresh one with a composed (NFC) accented letter and lower-case
 * letters, so that every kind of customerIdNearMisses differs from it, and trimmed, in NFC: what a normalising store
 * keeps unchanged.
 */
export function nearMissBase(fresh: string): string {
  return `${fresh}-\u00e9`.normalize('NFC');
}
