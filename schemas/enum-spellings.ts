/**
 * How an enum value of schemas/enums.schema.json may be spelled in a response, where the document does not show its
 * spelling: the listed name (DENY), its lower case (deny), or the display form a generated enum-to-display mapping of a
 * gateway writes (Deny, NONCE_OTH as NonceOth). Exact, locale-free comparisons only: no case folding that could make
 * another string equal (a dotless ı upper-cases to I).
 */
export function displaySpelling(value: string): string {
  return value
    .split('_')
    .map((word) => word.charAt(0) + word.slice(1).toLowerCase())
    .join('');
}

export function enumSpellings(value: string): string[] {
  return [...new Set([value, value.toLowerCase(), displaySpelling(value)])];
}
