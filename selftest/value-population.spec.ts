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
import { customerIdNearMisses, nearMissBase, serviceIdNearMisses } from '../kit/builders/near-misses.ts';
import { dateTimeForms, writeDateTime } from '../kit/builders/date-time-forms.ts';
import { schemaIdFor, schemaIssues } from '../schemas/registry.ts';
import { howChanged, tagsShown } from '../kit/checks/value-round-trip.ts';

// The population of values (docs/traffic.md): each class what it says it is, drawn the same for the same seed, and
// the checks that judge what comes back, each with a value that passes and one that fails.

const CORE = 'tag-run1-abcd1234';
const context = (seed: number) => ({ faker: seededFaker(seed, 'value population'), runTag: 'run1', templates: {} });
const ASTRAL = /[\u{10000}-\u{10FFFF}]/u;

/** What each class's value is, beyond keeping its core: the class a draw must match, by its id. */
const classIs: Record<string, { is: string; holds: (value: string) => boolean }> = {
  'latin-nfd': { is: 'decomposed: NFC changes it', holds: (v) => v.normalize('NFC') !== v },
  'latin-nfc': {
    is: 'composed, with diacritics: NFC keeps it, NFD changes it',
    holds: (v) => v.normalize('NFC') === v && v.normalize('NFD') !== v,
  },
  combining: {
    is: 'combining marks no normal form changes',
    holds: (v) => /\p{M}/u.test(v) && v.normalize('NFC') === v && v.normalize('NFD') === v,
  },
  'non-bmp': { is: 'outside the BMP', holds: (v) => ASTRAL.test(v) },
  cyrillic: { is: 'Cyrillic', holds: (v) => /\p{Script=Cyrillic}/u.test(v) },
  greek: { is: 'Greek', holds: (v) => /\p{Script=Greek}/u.test(v) },
  'right-to-left': { is: 'Hebrew or Arabic', holds: (v) => /[\p{Script=Hebrew}\p{Script=Arabic}]/u.test(v) },
  cjk: { is: 'Han or kana', holds: (v) => /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(v) },
  control: {
    is: 'every control character listed',
    holds: (v) => [...'\t\n\r\b\f\u0001\u001f'].every((ch) => v.includes(ch)),
  },
  'identifier-escapes': {
    is: 'a double quote, a backslash and a control character, no NUL',
    // eslint-disable-next-line no-control-regex
    holds: (v) => v.includes('"') && v.includes('\\') && /[\u0001-\u001f]/.test(v) && !v.includes('\u0000'),
  },
  'line-separators': { is: 'U+2028 then U+2029', holds: (v) => /\u2028[^]*\u2029/.test(v) },
  'script-close': { is: 'a </script>', holds: (v) => v.includes('</script>') },
  backslash: { is: 'a backslash before n', holds: (v) => v.includes('\\n') },
  'long-256': { is: '256 characters', holds: (v) => [...v].length === 256 },
  'long-1024': { is: '1,024 characters', holds: (v) => [...v].length === 1024 },
  'long-4096': { is: '4,096 characters', holds: (v) => [...v].length === 4096 },
  'mixed-case': { is: 'mixed case', holds: (v) => v !== v.toLowerCase() && v !== v.toUpperCase() },
  'outer-spaces': { is: 'spaces around it', holds: (v) => /^ +\S.*\S +$/.test(v) },
  'inner-spaces': { is: 'two spaces or more inside it', holds: (v) => /^\S.* {2,}.*\S$/.test(v) },
};

test('every class keeps its run-tagged core whole, and is what its name says', () => {
  // One assertion over every draw: a list of what went wrong says more than the first failure, and costs one step.
  const problems: string[] = [];
  for (let seed = 1; seed <= 20; seed += 1) {
    const ctx = context(seed);
    for (const cls of valueClasses) {
      const value = drawValue(ctx, cls, CORE);
      const wrong = (what: string) => problems.push(`seed ${seed}, ${cls.id}: ${what}: ${JSON.stringify(value)}`);
      if (!value.includes(CORE)) wrong('lost its core');
      if (cls.pathSafe && /[\s/?#%\\]/u.test(value)) wrong('not path-safe');
      if (cls.pathSafe && [...value].length > 256) wrong('over 256 characters');
      const expected = classIs[cls.id];
      if (expected && !expected.holds(value)) wrong(`not ${expected.is}`);
    }
  }
  expect(problems).toEqual([]);
  expect(
    Object.keys(classIs).filter((id) => !valueClasses.some((cls) => cls.id === id)),
    'classes described that are not drawn',
  ).toEqual([]);
});

test('the same seed draws the same values; an identifier takes a path-safe class', () => {
  const draw = () => {
    const ctx = context(11);
    return [
      valueClasses.map((cls) => drawValue(ctx, cls, CORE)),
      contactClasses.map((cls) => cls.draw(ctx.faker)),
      populate(ctx, { inquiryId: 'inq-run1-x', channel: 'web' }, ['inquiryId', 'channel']).text,
    ];
  };
  expect(draw()).toEqual(draw());
  for (let seed = 1; seed <= 40; seed += 1) {
    const drawn = populate(context(seed), { inquiryId: 'inq-run1-x' }, ['inquiryId']);
    expect(valueClass(drawn.valueClass.id).pathSafe, drawn.valueClass.id).toBe(true);
    expect(drawn.plain).toEqual({ inquiryId: 'inq-run1-x' });
  }
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

test('the tags round trip sends an update per class, then two of 20 to 50 tags, over 100 tags on the case', () => {
  for (let seed = 1; seed <= 20; seed += 1) {
    const updates = tagClassUpdates(context(seed), { inquiryId: 'inq-1', authenticationId: 'case-1' });
    expect(updates.map((u) => u.valueClass.id)).toEqual([...valueClasses.map((c) => c.id), 'many-tags', 'many-tags']);
    const counts = updates.map((u) => (u.body['tags'] as string[]).length);
    for (const count of counts.slice(-2)) {
      expect(count).toBeGreaterThanOrEqual(MANY_TAGS_PER_UPDATE.min);
      expect(count).toBeLessThanOrEqual(MANY_TAGS_PER_UPDATE.max);
    }
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThan(CASE_TAGS_OVER);
    const all = updates.flatMap((u) => u.body['tags'] as string[]);
    expect(new Set(all).size, 'every tag fresh').toBe(all.length);
    expect(
      all.filter((tag) => !tag.includes('-run1-')),
      'tags without the run tag',
    ).toEqual([]);
  }
});

test('the unusual emails are on reserved domains and the phone numbers in ranges kept for fiction', () => {
  for (let seed = 1; seed <= 20; seed += 1) {
    const { faker } = context(seed);
    for (const cls of contactClasses) {
      const value = cls.draw(faker);
      if (cls.member === 'email')
        expect(value.split('@')[1]?.toLowerCase()).toMatch(/^(mail\.)?example\.(com|net|org)$/);
      else
        expect(value.replace(/[ ()-]/g, ''), cls.id).toMatch(
          /^(\+447700900\d{3}|\+61[2378]5550\d{4}|\+1[2-9]\d{2}55501\d{2})$/,
        );
    }
  }
});

test('howChanged names how a value came back changed, and tagsShown tells a tag as sent from one normalised or trimmed', () => {
  const sent = 'Nguye\u0302\u0303n-inq-run1-AbC';
  expect(howChanged(sent, sent.normalize('NFC'))).toBe('normalised to NFC');
  expect(howChanged(sent, sent.toLowerCase())).toBe('lower-cased');
  expect(howChanged(sent, sent.slice(0, 10))).toBe('cut to its first 10 characters');
  expect(howChanged('a\u{1F600}', 'a\uFFFD')).toBe('characters outside the BMP replaced with U+FFFD');
  const tags = ['Zoe\u0308-run1', '  spaced-run1 ', 'plain-run1', 'Mixed-run1'];
  const shown = ['Zo\u00eb-run1', 'spaced-run1', 'plain-run1', 'Mixed-run1'];
  expect(tagsShown(tags, shown).map((t) => t.shown)).toEqual([
    ['normalised to NFC'],
    ['outer whitespace trimmed'],
    ['as sent'],
    ['as sent'],
  ]);
  // The item shape is not shown: objects naming their tag count as the tag.
  expect(tagsShown(['plain-run1'], [{ name: 'plain-run1', addedAt: '2026-01-01T00:00:00Z' }])[0]?.shown).toEqual([
    'as sent',
  ]);
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
    expect(new Date(written).getTime(), form.id).toBe(
      instant - (form.digits === 0 ? 678 : form.digits < 3 ? 678 % 10 ** (3 - form.digits) : 0),
    );
    expect(schemaIssues(schema, { strategy: 's', inquiryId: 'i', creationDateTime: written }), form.id).toEqual([]);
  }
  expect(new Set(dateTimeForms.map((form) => form.digits))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
});

test('docs/traffic.md names every class of value and of contact', () => {
  const doc = readFileSync(new URL('../docs/traffic.md', import.meta.url), 'utf8');
  for (const cls of [
    ...valueClasses,
    ...contactClasses,
    ...customerIdNearMisses,
    ...dateTimeForms,
    { id: 'many-tags' },
  ])
    expect(doc, `docs/traffic.md names ${cls.id}`).toContain(`\`${cls.id}\``);
});
