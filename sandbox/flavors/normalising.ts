import type { CoreBehaviour } from './behaviour.ts';
import { reference } from './reference.ts';

/**
 * The reference's choices, with two policies for values the document leaves open: the tags of a case update kept
 * normalised to NFC with their outer whitespace trimmed (free text, its information kept), and a body carrying a
 * string of more than 1,024 characters refused with 400 (part 8 shows no size limit).
 */
export const normalising: CoreBehaviour = {
  ...reference,
  tagForm: 'nfc-trimmed',
  maxValueCharacters: 1024,
};
