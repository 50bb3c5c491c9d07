import type { SandboxContext } from './context.ts';
import { refusal, type Refusal } from './errors.ts';
import { isObject } from '../schemas/json-value.ts';

/**
 * What the sandbox does to the values it keeps and shows back (inquiryId, tags): the flavor's policy for free text, and
 * the faults that each lose information in one class of value on one member in one way (sandbox/faults.ts, class
 * `values`). Routes call these where a value is stored or answered.
 */

const ASTRAL = /[\u{10000}-\u{10FFFF}]/gu;
const characters = (text: string) => [...text].length;
const firstCharacters = (text: string, count: number) => [...text].slice(0, count).join('');

/** A string decoded as a JSON string body a second time: \n, \t, \uXXXX and \\ in its text become what they escape. */
function unescapedAgain(text: string): string {
  return text.replace(/\\(u[0-9a-fA-F]{4}|[nrtbf"\\/])/g, (_, escape: string) =>
    escape.startsWith('u')
      ? String.fromCharCode(parseInt(escape.slice(1), 16))
      : (({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' } as Record<string, string>)[escape] ?? escape),
  );
}

/** A tag as the case keeps it: as sent, or in the flavor's form for free text, unless a fault changes it. */
export function storedTag(ctx: SandboxContext, tag: string): string {
  const { faults } = ctx;
  let kept = ctx.behaviour.tagForm === 'nfc-trimmed' ? tag.normalize('NFC').trim() : tag;
  if (faults.has('update-tags-cut-at-255')) kept = firstCharacters(kept, 255);
  if (faults.has('update-tags-astral-replaced')) kept = kept.replace(ASTRAL, '\uFFFD');
  if (faults.has('update-tags-unescaped-twice')) kept = unescapedAgain(kept);
  if (faults.has('update-tags-lower-cased')) kept = kept.toLowerCase();
  if (faults.has('update-tags-spaces-collapsed')) kept = kept.replace(/ {2,}/g, ' ');
  return kept;
}

/** The tags a case keeps after an update appended some: all of them, unless case-tags-capped-at-100 drops the rest. */
export function keptTags(ctx: SandboxContext, tags: string[]): string[] {
  return ctx.faults.has('case-tags-capped-at-100') ? tags.slice(0, 100) : tags;
}

/**
 * An inquiryId as an assessment keeps it: as sent, unless assessment-inquiry-nfc normalises it, or
 * assessment-inquiry-escapes-dropped drops what a hand-written JSON answer cannot write unescaped (quote, backslash,
 * control characters).
 */
export function storedInquiryId(ctx: SandboxContext, inquiryId: string): string {
  // eslint-disable-next-line no-control-regex
  if (ctx.faults.has('assessment-inquiry-escapes-dropped')) return inquiryId.replace(/["\\\u0000-\u001f]/g, '');
  return ctx.faults.has('assessment-inquiry-nfc') ? inquiryId.normalize('NFC') : inquiryId;
}

/** assessment-astral-inquiry-500: an inquiryId with a character outside the BMP fails the store (a three-byte UTF-8 column). */
export function inquiryStoreFailure(ctx: SandboxContext, inquiryId: unknown): Refusal | undefined {
  if (!ctx.faults.has('assessment-astral-inquiry-500') || typeof inquiryId !== 'string') return undefined;
  return inquiryId.match(ASTRAL) ? refusal(500, 'internal', 'incorrect string value for column inquiry_id') : undefined;
}

/** The inquiryId of a case as 4.5 shows it. */
export function fetchedInquiryId(ctx: SandboxContext, inquiryId: string): string {
  return ctx.faults.has('fetch-inquiry-lower-cased') ? inquiryId.toLowerCase() : inquiryId;
}

/** The inquiryId a document verification answers. */
export function answeredDocvInquiryId(ctx: SandboxContext, inquiryId: string): string {
  return ctx.faults.has('docv-inquiry-cut-at-255') ? firstCharacters(inquiryId, 255) : inquiryId;
}

function longestString(value: unknown): number {
  if (typeof value === 'string') return characters(value);
  if (Array.isArray(value)) return Math.max(0, ...value.map(longestString));
  if (isObject(value)) return Math.max(0, ...Object.values(value).map(longestString));
  return 0;
}

/** A body carrying a string longer than the flavor takes (part 8 shows no size limit: refusing is its choice) is refused 400. */
export function longValueRefusal(ctx: SandboxContext, body: unknown): Refusal | undefined {
  const limit = ctx.behaviour.maxValueCharacters;
  if (limit === undefined || longestString(body) <= limit) return undefined;
  return refusal(400, 'value_too_long', `a value is longer than ${limit} characters`);
}

/** update-long-tag-refused-after-append: a tag over 1,024 characters is refused, after the update's tags were appended. */
export function longTagRefusedLate(ctx: SandboxContext, tags: unknown): boolean {
  return (
    ctx.faults.has('update-long-tag-refused-after-append') &&
    Array.isArray(tags) &&
    tags.some((tag) => typeof tag === 'string' && characters(tag) > 1024)
  );
}
