import type { CoreBehaviour } from './behaviour.ts';
import { reference } from './reference.ts';

/**
 * The reference's choices, but lenient where the document is silent on how input is refused, as common server stacks
 * are: numbers and booleans sent for strings taken as their text, "true"/"false" for booleans; invalid UTF-8 in JSON
 * decoded to U+FFFD; no Content-Type check on JSON bodies; an out-of-list case-update decision ignored; a null order
 * body read as {}; a malformed bearer credential answered 400 invalid_request (RFC 6750 §3.1).
 */
export const lenient: CoreBehaviour = {
  ...reference,
  getNeedsContentType: false,
  scalarTypes: 'coerce',
  invalidUtf8: 'replace',
  checksContentType: false,
  unknownDecision: 'ignore',
  nullOrderBody: 'as-empty',
  malformedBearerStatus: 400,
};
