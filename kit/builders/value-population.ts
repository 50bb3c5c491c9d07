import type { Faker } from '@faker-js/faker';
import { clientTag } from './client-values.ts';
import { freshName } from './fresh-names.ts';
import { caseUpdate, type CaseRef } from './identity-bodies.ts';
// One locale per script the population needs, each loaded alone (the package's index loads ~70 of them).
import { faker as arabic } from '@faker-js/faker/locale/ar';
import { faker as greek } from '@faker-js/faker/locale/el';
import { faker as hebrew } from '@faker-js/faker/locale/he';
import { faker as japanese } from '@faker-js/faker/locale/ja';
import { faker as russian } from '@faker-js/faker/locale/ru';
import { faker as vietnamese } from '@faker-js/faker/locale/vi';
import { faker as chinese } from '@faker-js/faker/locale/zh_CN';

/** What the values are drawn with: the test's seeded faker and the run tag (a BodyContext is one). */
type DrawContext = { faker: Faker; runTag: string };

/**
 * The classes of value a real population sends in free-text and identifier members, each named once here and in the
 * table of docs/traffic.md. A class builds its value around a core the caller gives (a run-tagged fresh name, an
 * inquiry id), which it keeps whole: a value a check must find again keeps the run tag, and no earlier run and no
 * portal user can have made it. Drawn by the test's seeded faker, so the same SEED gives the same values.
 */
export const valueFamilies = ['unicode', 'escaping', 'size', 'form'] as const;
export type ValueFamily = (typeof valueFamilies)[number];

export interface ValueClass {
  id: string;
  family: ValueFamily;
  /** What it is, as docs/traffic.md names it. */
  name: string;
  /**
   * Whether its values may go into a URL path: identifiers (the records route can take the inquiry id) are drawn from
   * these only. No whitespace, no character a path or a proxy reads (/ ? # % \), at most 256 characters.
   */
  pathSafe: boolean;
  /** Its characters outside the Basic Multilingual Plane go on the wire as \uXXXX\uXXXX escapes, not raw. */
  escaped?: true;
  around: (core: string, faker: Faker) => string;
}

/** A faker of another locale, seeded from the test's faker: the same SEED gives the same words. */
function inLocale(locale: Faker, faker: Faker): Faker {
  locale.seed(faker.number.int({ max: 2 ** 31 - 1 }));
  return locale;
}

/** Letters, marks and digits kept, every other run of characters one hyphen: no space, nothing a path reads. */
const hyphenated = (text: string) => text.replace(/[^\p{L}\p{M}\p{N}]+/gu, '-').replace(/^-|-$/g, '');

/** A person's name in a locale, hyphenated. */
const nameIn = (locale: Faker, faker: Faker) => hyphenated(inLocale(locale, faker).person.fullName());

/** A Vietnamese name, the Latin script with the most diacritics (stacked ones too: ệ, ữ), in NFC or NFD. */
function diacritics(faker: Faker, form: 'NFC' | 'NFD'): string {
  for (let tries = 0; tries < 5; tries += 1) {
    const name = nameIn(vietnamese, faker).normalize('NFC');
    if (name.normalize('NFD') !== name) return name.normalize(form);
  }
  return 'Nguyễn-Thị-Ánh'.normalize(form);
}

/** Code points above U+FFFF: an emoji as faker draws it (sequences and modifiers kept), and a CJK Extension B ideograph. */
const ASTRAL = /[\u{10000}-\u{10FFFF}]/u;
function astral(faker: Faker): string {
  for (let tries = 0; tries < 20; tries += 1) {
    const emoji = faker.internet.emoji();
    if (ASTRAL.test(emoji)) return emoji;
  }
  return '\u{1F600}';
}
const nonBmp = (core: string, faker: Faker) =>
  `${astral(faker)}${faker.helpers.arrayElement(['\u{20BB7}', '\u{2000B}', '\u{1D11E}'])}-${core}-${astral(faker)}`;

/**
 * Base letters carrying one to three combining marks that no precomposed character replaces and that are in canonical
 * order: NFC and NFD leave the value as it is, so a target that drops or moves a mark changed it.
 */
function combining(faker: Faker): string {
  const letters: string[] = [];
  while (letters.length < 4) {
    const base = faker.helpers.arrayElement([...'bcdfghjkmpqvwxzBCDFGHJKMPQVWXZ']);
    const marks = faker.helpers.multiple(() => String.fromCodePoint(faker.number.int({ min: 0x300, max: 0x36f })), {
      count: { min: 1, max: 3 },
    });
    const letter = base + marks.join('');
    if (letter.normalize('NFC') === letter && letter.normalize('NFD') === letter) letters.push(letter);
  }
  return letters.join('');
}

const word = (faker: Faker) => faker.word.noun();

/** Exactly `length` characters (code points, all in the BMP and ASCII), the core first, then words joined by hyphens. */
function ofLength(core: string, faker: Faker, length: number): string {
  let text = core;
  while (text.length < length) text += `-${faker.lorem.word()}`;
  return text.slice(0, length);
}

/** Alternating case outside the core, which keeps the run tag as it is. */
const mixedCase = (text: string) =>
  [...text].map((ch, i) => (i % 2 === 0 ? ch.toUpperCase() : ch.toLowerCase())).join('');

export const valueClasses: readonly ValueClass[] = [
  {
    id: 'latin-nfc',
    family: 'unicode',
    name: 'Latin with diacritics, composed (NFC)',
    pathSafe: true,
    around: (core, faker) => `${diacritics(faker, 'NFC')}-${core}`,
  },
  {
    id: 'latin-nfd',
    family: 'unicode',
    name: 'Latin with diacritics, decomposed (NFD)',
    pathSafe: true,
    around: (core, faker) => `${diacritics(faker, 'NFD')}-${core}`,
  },
  {
    id: 'cyrillic',
    family: 'unicode',
    name: 'Cyrillic',
    pathSafe: true,
    around: (core, faker) => `${nameIn(russian, faker)}-${core}`,
  },
  {
    id: 'greek',
    family: 'unicode',
    name: 'Greek',
    pathSafe: true,
    around: (core, faker) => `${nameIn(greek, faker)}-${core}`,
  },
  {
    id: 'right-to-left',
    family: 'unicode',
    name: 'Hebrew or Arabic, right to left',
    pathSafe: true,
    around: (core, faker) => `${nameIn(faker.datatype.boolean() ? hebrew : arabic, faker)}-${core}`,
  },
  {
    id: 'cjk',
    family: 'unicode',
    name: 'Chinese or Japanese (CJK)',
    pathSafe: true,
    around: (core, faker) => `${nameIn(faker.datatype.boolean() ? chinese : japanese, faker)}-${core}`,
  },
  {
    id: 'non-bmp',
    family: 'unicode',
    name: 'characters outside the BMP (emoji, CJK Extension B), sent raw',
    pathSafe: true,
    around: nonBmp,
  },
  {
    id: 'non-bmp-escaped',
    family: 'unicode',
    name: 'characters outside the BMP, sent as \\ud83d\\ude00-style escapes',
    pathSafe: true,
    escaped: true,
    around: nonBmp,
  },
  {
    id: 'combining',
    family: 'unicode',
    name: 'combining marks no precomposed character replaces',
    pathSafe: true,
    around: (core, faker) => `${combining(faker)}-${core}`,
  },
  {
    id: 'quotes',
    family: 'escaping',
    name: 'double and single quotes',
    pathSafe: false,
    around: (core, faker) => `"${word(faker)}" ${core} '${word(faker)}' “${word(faker)}”`,
  },
  {
    id: 'backslash',
    family: 'escaping',
    name: 'backslashes, and text that reads as an escape (\\n, \\u0041) once decoded',
    pathSafe: false,
    around: (core, faker) => `C:\\${word(faker)}\\n${core}\\u0041\\\\${word(faker)}`,
  },
  {
    id: 'control',
    family: 'escaping',
    name: 'control characters (tab, line feed, carriage return, backspace, form feed, U+0001, U+001F) inside',
    pathSafe: false,
    around: (core, faker) => `${word(faker)}\t${core}\n${word(faker)}\r\n\b\f\u0001\u001f${word(faker)}`,
  },
  {
    id: 'identifier-escapes',
    family: 'escaping',
    name: 'a double quote, a backslash and a control character (U+0007) around the core, for identifiers outside a path',
    pathSafe: false,
    around: (core, faker) => `${word(faker)}"${core}\\${word(faker)}\u0007`,
  },
  {
    id: 'line-separators',
    family: 'escaping',
    name: 'U+2028 and U+2029 (valid in JSON, not in JavaScript before ES2019)',
    pathSafe: false,
    around: (core, faker) => `${word(faker)}\u2028${core}\u2029${word(faker)}`,
  },
  {
    id: 'script-close',
    family: 'escaping',
    name: '</script>, markup and an entity',
    pathSafe: false,
    around: (core, faker) => `</script><script>${core}</script><!-- ${word(faker)} &amp; <b>`,
  },
  {
    id: 'long-256',
    family: 'size',
    name: '256 characters',
    pathSafe: true,
    around: (core, faker) => ofLength(core, faker, 256),
  },
  {
    id: 'long-1024',
    family: 'size',
    name: '1,024 characters',
    pathSafe: false,
    around: (core, faker) => ofLength(core, faker, 1024),
  },
  {
    id: 'long-4096',
    family: 'size',
    name: '4,096 characters',
    pathSafe: false,
    around: (core, faker) => ofLength(core, faker, 4096),
  },
  {
    id: 'mixed-case',
    family: 'form',
    name: 'mixed case',
    pathSafe: true,
    around: (core, faker) => `${mixedCase(word(faker))}-${core}-${mixedCase(word(faker)).toUpperCase()}`,
  },
  {
    id: 'outer-spaces',
    family: 'form',
    name: 'leading and trailing spaces',
    pathSafe: false,
    around: (core, faker) => `  ${word(faker)}-${core}   `,
  },
  {
    id: 'inner-spaces',
    family: 'form',
    name: 'runs of spaces inside',
    pathSafe: false,
    around: (core, faker) => `${word(faker)}   ${word(faker)}  ${core}`,
  },
];

export function valueClass(id: string): ValueClass {
  const found = valueClasses.find((c) => c.id === id);
  if (!found)
    throw new Error(`Unknown value class "${id}": expected one of ${valueClasses.map((c) => c.id).join(', ')}`);
  return found;
}

/** Updates with many tags, and a case with more than a hundred over its life (size, for the array of 2.5). */
export const MANY_TAGS_PER_UPDATE = { min: 20, max: 50 } as const;
export const CASE_TAGS_OVER = 100;

/** Members that may go into a path, whose values come from path-safe classes only. */
export const identifierMembers: readonly string[] = ['inquiryId'];

/**
 * Emails and phone numbers that are unusual but valid: 2.6 states no syntax, so a refusal of one is recorded, not
 * failed. Recipients are never real: domains RFC 2606 reserves, numbers in ranges kept for fiction.
 */
export interface ContactClass {
  id: string;
  member: 'email' | 'phoneNumber';
  name: string;
  draw: (faker: Faker) => string;
}

const localPart = (faker: Faker) => `${faker.person.firstName()}.${faker.person.lastName()}`.replace(/[^A-Za-z.]/g, '');
const exampleDomain = (faker: Faker) => faker.helpers.arrayElement(['example.com', 'example.net', 'example.org']);

export const contactClasses: readonly ContactClass[] = [
  {
    id: 'email-plus-address',
    member: 'email',
    name: 'plus-addressing (first.last+tag@)',
    draw: (faker) => `${localPart(faker).toLowerCase()}+${faker.word.noun()}@${exampleDomain(faker)}`,
  },
  {
    id: 'email-special-characters',
    member: 'email',
    name: "a local part with the other characters RFC 5322 allows (o'brien, !#$%&*)",
    draw: (faker) => `o'${localPart(faker).toLowerCase()}!#$%&*@${exampleDomain(faker)}`,
  },
  {
    id: 'email-mixed-case-subdomain',
    member: 'email',
    name: 'mixed case and a subdomain (Ada.Lovelace@Mail.Example.COM)',
    draw: (faker) => `${localPart(faker)}@Mail.${exampleDomain(faker).replace('example', 'Example').toUpperCase()}`,
  },
  {
    id: 'phone-uk-drama',
    member: 'phoneNumber',
    name: "a United Kingdom mobile number of Ofcom's drama range (+44 7700 900000 to 900999)",
    draw: (faker) => `+447700900${faker.string.numeric(3)}`,
  },
  {
    id: 'phone-au-fiction',
    member: 'phoneNumber',
    name: "an Australian number of ACMA's fictional range ((0x) 5550 xxxx)",
    draw: (faker) => `+61${faker.helpers.arrayElement(['2', '3', '7', '8'])}5550${faker.string.numeric(4)}`,
  },
  {
    id: 'phone-nanp-formatted',
    member: 'phoneNumber',
    name: 'a North American fictional number written with spaces, parentheses and a hyphen (+1 (201) 555-0123)',
    draw: (faker) =>
      `+1 (${faker.number.int({ min: 2, max: 9 })}${faker.string.numeric(2)}) 555-01${faker.string.numeric(2)}`,
  },
];

/** A value of one class around a core, which it keeps whole. */
export function drawValue(ctx: DrawContext, cls: ValueClass, core: string): string {
  return cls.around(core, ctx.faker);
}

/** A request whose members carry values of one class (one per request, so that a refusal names it). */
export interface Populated<B extends Record<string, unknown> = Record<string, unknown>> {
  /** The request with the drawn values. */
  body: B;
  /** The same request with the values they replaced: what is sent again when the populated one is refused. */
  plain: B;
  /** The class the values were drawn from. */
  valueClass: { id: string; name: string };
  /** The members that carry it. */
  members: readonly string[];
  /** The body as sent: JSON, with the characters outside the BMP as escapes when the class is sent so. */
  text: string;
}

/**
 * The request with its `members` replaced by values of one class drawn by the test's faker, each built around the
 * member's plain value (which keeps its run tag); an array member (tags) gets a value per item. A member that may go
 * into a path takes a path-safe class. `among` narrows the classes drawn from.
 */
export function populate<B extends Record<string, unknown>>(
  ctx: DrawContext,
  plain: B,
  members: readonly string[],
  among: readonly ValueClass[] = valueClasses,
): Populated<B> {
  const pathSafe = members.some((member) => identifierMembers.includes(member));
  const cls = ctx.faker.helpers.arrayElement(among.filter((c) => c.pathSafe || !pathSafe));
  return populatedWith(ctx, plain, members, cls);
}

/** The request with its `members` carrying values of the given class. */
export function populatedWith<B extends Record<string, unknown>>(
  ctx: DrawContext,
  plain: B,
  members: readonly string[],
  cls: ValueClass,
): Populated<B> {
  const body: Record<string, unknown> = { ...plain };
  for (const member of members) {
    const value = plain[member];
    body[member] = Array.isArray(value)
      ? value.map((item) => drawValue(ctx, cls, String(item)))
      : drawValue(ctx, cls, String(value));
  }
  return { body: body as B, plain, valueClass: cls, members, text: jsonText(body, cls.escaped === true) };
}

/** The request with its email or phone number one of the unusual but valid ones, of a class drawn by the test's faker. */
export function populateContact<B extends Record<string, unknown>>(
  ctx: DrawContext,
  plain: B,
  member: ContactClass['member'],
): Populated<B> {
  const cls = ctx.faker.helpers.arrayElement(contactClasses.filter((c) => c.member === member));
  const body = { ...plain, [member]: cls.draw(ctx.faker) };
  return { body, plain, valueClass: cls, members: [member], text: jsonText(body, false) };
}

/**
 * A body as JSON text; with `escapeAstral`, every character outside the BMP written as its UTF-16 surrogate pair of
 * \u escapes (lower-case hex, as JavaScript and Jackson write them): after decoding, the same value as raw.
 */
export function jsonText(body: unknown, escapeAstral: boolean): string {
  const text = JSON.stringify(body);
  if (!escapeAstral) return text;
  return text.replace(/[\u{10000}-\u{10FFFF}]/gu, (ch) =>
    Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}

/** How many tags of its class each update of tagClassUpdates carries: fewer of the longest, for the size of the body. */
const tagsOfClass = (cls: ValueClass) => ({ 'long-4096': 1, 'long-1024': 2 })[cls.id] ?? 3;

/**
 * The case updates of the tags' round trip (2.5, shown back by 2.2): one per class of value, each carrying fresh tags
 * of that class only, so that a refusal names its class; then two updates of 20 to 50 plain tags each, so that the
 * case ends with more than a hundred.
 */
export function tagClassUpdates(ctx: DrawContext, ref: CaseRef): Populated[] {
  const perClass = valueClasses.map((cls) =>
    populatedWith<Record<string, unknown>>(
      ctx,
      caseUpdate(ref, { tags: Array.from({ length: tagsOfClass(cls) }, () => freshName('tag', ctx)) }),
      ['tags'],
      cls,
    ),
  );
  const fewer = perClass.reduce((sum, update) => sum + (update.body['tags'] as string[]).length, 0);
  const first = ctx.faker.number.int(MANY_TAGS_PER_UPDATE);
  const second = Math.max(ctx.faker.number.int(MANY_TAGS_PER_UPDATE), CASE_TAGS_OVER + 1 - fewer - first);
  const many = [first, second].map((count) => {
    const body = caseUpdate(ref, { tags: Array.from({ length: count }, () => clientTag(ctx)) });
    return {
      body,
      plain: body,
      valueClass: {
        id: 'many-tags',
        name: `${MANY_TAGS_PER_UPDATE.min} to ${MANY_TAGS_PER_UPDATE.max} tags in one update`,
      },
      members: ['tags'],
      text: jsonText(body, false),
    };
  });
  return [...perClass, ...many];
}
