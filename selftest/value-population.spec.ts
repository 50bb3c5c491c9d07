import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import {
  CASE_TAGS_OVER,
  MANY_TAGS_PER_UPDATE,
  contactClasses,
  drawValue,
  jsonText,
  populate,
  tagClassUpdates,
  valueClass,
  valueClasses,
} from '../kit/builders/value-population.ts';
import { seededFaker } from '../kit/builders/seeded-faker.ts';
import { RUN_VARYING_MEMBERS } from '../kit/builders/client-values.ts';
import { customerIdNearMisses, nearMissBase, serviceIdNearMisses } from '../kit/builders/near-misses.ts';
import { dateTimeForms, writeDateTime } from '../kit/builders/date-time-forms.ts';
import { schemaIdFor, schemaIssues } from '../schemas/registry.ts';
import { howChanged } from '../kit/checks/value-round-trip.ts';

// The population of values (docs/traffic.md): each class what it says it is, drawn the same for the same seed, and the
// words a failure gives for a value that came back changed. The tags check's good and bad inputs are its check units
// (selftest/check-units/server.ts); tag items shown as objects, the proto3 flavor's, pass in the portability proof.

const CORE = 'tag-run1-abcd1234';
const context = (seed: number) => ({ faker: seededFaker(seed, 'value population'), runTag: 'run1', templates: {} });
const ASTRAL = /[\u{10000}-\u{10FFFF}]/u;
const length = (n: number) => (v: string) => [...v].length === n;
const normal = (v: string, form: 'NFC' | 'NFD') => v.normalize(form) === v;

/** What each class's value is, beyond keeping its core: the class a draw must match, by its id. */
const classIs: Array<[id: string, is: string, holds: RegExp | ((value: string) => boolean)]> = [
  ['latin-nfd', 'decomposed: NFC changes it', (v) => !normal(v, 'NFC')],
  ['latin-nfc', 'composed, with diacritics', (v) => normal(v, 'NFC') && !normal(v, 'NFD')],
  ['combining', 'marks no normal form changes', (v) => /\p{M}/u.test(v) && normal(v, 'NFC') && normal(v, 'NFD')],
  ['non-bmp', 'outside the BMP', ASTRAL],
  ['cyrillic', 'Cyrillic', /\p{Script=Cyrillic}/u],
  ['greek', 'Greek', /\p{Script=Greek}/u],
  ['right-to-left', 'Hebrew or Arabic', /[\p{Script=Hebrew}\p{Script=Arabic}]/u],
  ['cjk', 'Han or kana', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['control', 'every control character listed', (v) => [...'\t\n\r\b\f\u0001\u001f'].every((ch) => v.includes(ch))],
  // eslint-disable-next-line no-control-regex
  ['identifier-escapes', 'a quote, a backslash and a control, no NUL', /^(?=.*")(?=.*\\)(?=.*[\u0001-\u001f])[^\0]*$/s],
  ['line-separators', 'U+2028 then U+2029', /\u2028[^]*\u2029/],
  ['script-close', 'a </script>', /<\/script>/],
  ['backslash', 'a backslash before n', /\\n/],
  ['long-256', '256 characters', length(256)],
  ['long-1024', '1,024 characters', length(1024)],
  ['long-4096', '4,096 characters', length(4096)],
  ['mixed-case', 'mixed case', (v) => v !== v.toLowerCase() && v !== v.toUpperCase()],
  ['outer-spaces', 'spaces around it', /^ +\S.*\S +$/],
  ['inner-spaces', 'two spaces or more inside it', /^\S.* {2,}.*\S$/],
];

test('over many seeds every class keeps its run-tagged core whole and is what its name says, an identifier takes a path-safe class, contacts are fictional, and the tags round trip goes over 100 tags', () => {
  const problems: string[] = [];
  const expectedUpdates = [...valueClasses.map((c) => c.id), 'many-tags', 'many-tags'].join();
  for (let seed = 1; seed <= 20; seed += 1) {
    const ctx = context(seed);
    const wrong = (what: string, value: unknown) => problems.push(`seed ${seed}: ${what}: ${JSON.stringify(value)}`);
    for (const cls of valueClasses) {
      const value = drawValue(ctx, cls, CORE);
      if (!value.includes(CORE)) wrong(`${cls.id} lost its core`, value);
      if (cls.pathSafe && (/[\s/?#%\\]/u.test(value) || [...value].length > 256))
        wrong(`${cls.id} not path-safe`, value);
      const [, is, holds] = classIs.find(([id]) => id === cls.id) ?? [];
      if (holds && !(typeof holds === 'function' ? holds(value) : holds.test(value)))
        wrong(`${cls.id} not ${is}`, value);
    }
    for (const drawn of [seed, seed + 20].map((s) => populate(context(s), { inquiryId: 'inq-run1-x' }, ['inquiryId'])))
      if (!valueClass(drawn.valueClass.id).pathSafe || drawn.plain.inquiryId !== 'inq-run1-x')
        wrong('an identifier drawn from a class not path-safe, or not kept plain', drawn.valueClass.id);
    for (const cls of contactClasses) {
      const value = cls.draw(ctx.faker);
      const fictional =
        cls.member === 'email'
          ? /^(mail\.)?example\.(com|net|org)$/.test(value.split('@')[1]?.toLowerCase() ?? '')
          : /^(\+447700900\d{3}|\+61[2378]5550\d{4}|\+1[2-9]\d{2}55501\d{2})$/.test(value.replace(/[ ()-]/g, ''));
      if (!fictional) wrong(`${cls.id} not on a reserved domain or in a fictional range`, value);
    }
    const updates = tagClassUpdates(ctx, { inquiryId: 'inq-1', authenticationId: 'case-1' });
    const counts = updates.map((u) => (u.body['tags'] as string[]).length);
    const all = updates.flatMap((u) => u.body['tags'] as string[]);
    if (updates.map((u) => u.valueClass.id).join() !== expectedUpdates) wrong('the tag updates', updates.length);
    if (counts.slice(-2).some((n) => n < MANY_TAGS_PER_UPDATE.min || n > MANY_TAGS_PER_UPDATE.max))
      wrong('many tags per update', counts);
    if (counts.reduce((a, b) => a + b, 0) <= CASE_TAGS_OVER) wrong(`not over ${CASE_TAGS_OVER} tags`, counts);
    if (new Set(all).size !== all.length || all.some((tag) => !tag.includes('-run1-'))) wrong('stale tags', all);
  }
  expect(problems).toEqual([]);
  const undrawn = classIs.filter(([id]) => !valueClasses.some((cls) => cls.id === id)).map(([id]) => id);
  expect(undrawn, 'classes described that are not drawn').toEqual([]);
  const draw = () => {
    const ctx = context(11);
    return [
      valueClasses.map((cls) => drawValue(ctx, cls, CORE)),
      contactClasses.map((cls) => cls.draw(ctx.faker)),
      populate(ctx, { inquiryId: 'inq-run1-x', channel: 'web' }, ['inquiryId', 'channel']).text,
    ];
  };
  expect(draw(), 'the same seed draws the same values').toEqual(draw());
});

test('the escaped class goes on the wire as \\ud83d\\ude00-style escapes and decodes to the value sent raw', () => {
  const value = `\u{1F600}x\u{20BB7}-${CORE}`;
  const text = jsonText({ tags: [value] }, true);
  expect(text).toContain('\\ud83d\\ude00');
  expect(text).toContain('\\ud842\\udfb7');
  expect(text).not.toMatch(ASTRAL);
  expect(JSON.parse(text)).toEqual({ tags: [value] });
  expect(jsonText({ tags: [value] }, false)).toMatch(ASTRAL);
});

test('howChanged names how a value came back changed', () => {
  const sent = 'Nguye\u0302\u0303n-inq-run1-AbC';
  expect([sent.normalize('NFC'), sent.toLowerCase(), sent.slice(0, 10)].map((back) => howChanged(sent, back))).toEqual([
    'normalised to NFC',
    'lower-cased',
    'cut to its first 10 characters',
  ]);
  expect(howChanged('a\u{1F600}', 'a\uFFFD')).toBe('characters outside the BMP replaced with U+FFFD');
});

test('near misses: a prefix and an extension of the real id, and every kind of a customer id differs from its base', () => {
  const base = nearMissBase('inq-run1-abcd1234');
  expect(base, 'the base is what a normalising store keeps').toBe(base.normalize('NFC').trim().toLowerCase());
  const derived = customerIdNearMisses.map((miss) => [miss.id, miss.derive(base)] as const);
  expect(derived.filter(([, near]) => near === undefined || near === base).map(([id]) => id)).toEqual([]);
  const [prefix, extension] = serviceIdNearMisses.map((miss) => miss.derive('CASE-000012'));
  expect([prefix, extension]).toEqual(['CASE-00001', 'CASE-0000120']);
  const letterCase = serviceIdNearMisses.find((miss) => miss.id === 'letter-case');
  expect(letterCase?.derive('000012'), 'no letters: no letter-case variant').toBeUndefined();
});

test('date-time forms: each is RFC 3339 with an upper-case T and Z, names the instant, and the client judge takes it', () => {
  const instant = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
  const rfc3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/;
  const schema = schemaIdFor('assessment-request.schema.json');
  for (const form of dateTimeForms) {
    const written = writeDateTime(form, instant, 901234);
    expect(written, form.id).toMatch(rfc3339);
    expect(written.endsWith('-00:00'), form.id).toBe(false);
    const lost = form.digits === 0 ? 678 : form.digits < 3 ? 678 % 10 ** (3 - form.digits) : 0;
    expect(new Date(written).getTime(), form.id).toBe(instant - lost);
    expect(schemaIssues(schema, { strategy: 's', inquiryId: 'i', creationDateTime: written }), form.id).toEqual([]);
  }
  expect(new Set(dateTimeForms.map((form) => form.digits))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
});

test('docs/traffic.md names every class of value and of contact, and every member whose value differs between two runs of one SEED and RUN_TAG', () => {
  const doc = readFileSync(new URL('../docs/traffic.md', import.meta.url), 'utf8');
  const classes = [...valueClasses, ...contactClasses, ...customerIdNearMisses, ...dateTimeForms, { id: 'many-tags' }];
  expect(classes.filter((cls) => !doc.includes(`\`${cls.id}\``)).map((cls) => cls.id)).toEqual([]);
  expect(RUN_VARYING_MEMBERS.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
});
