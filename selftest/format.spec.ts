import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import * as prettier from 'prettier';
import { repoRoot } from './evidence-harness.ts';

// `npm run lint` runs `prettier --check` on the whole tree after eslint (with Prettier's cache): a file the formatter
// would change fails it. What the check holds is the repository's own Prettier configuration, so it is asked here for
// the file a contributor would write.
const lintScript = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: { lint: string } })
  .scripts.lint;

test('npm run lint checks the formatting of the whole tree', () => {
  // Its options (the cache) aside, on the whole tree.
  expect(lintScript).toMatch(/\bprettier --check\b[^&|;]* \.$/);
});

const filepath = join(repoRoot, 'kit', 'checks', 'example.ts');
const widest = (source: string) => Math.max(...source.split('\n').map((line) => line.length));
const title =
  'an order whose identifier already exists is answered 409 client, the variant at the end of the title, as a person reads it in a CI summary';
/** [what, a line over 120 characters, the prose string in it the formatter keeps whole on one line, if any]. */
const longLines: Array<[string, string, string?]> = [
  [
    'an array literal',
    `export const places = [${Array.from({ length: 12 }, (_, i) => `'place-number-${i}'`).join(', ')}];\n`,
  ],
  [
    'a call with many arguments',
    `expectTagsContain(verdict, 'CU-TAGS-APPEND', before.body.tags, updates.flat(), after.body.tags, after.exchange, annotations);\n`,
  ],
  ['a long prose string', `test(cites(['ORD-409'], '${title}'), async () => undefined);\n`, `'${title}'`],
];

for (const [name, line, prose] of longLines) {
  test(`a line of code over 120 characters fails the check until formatted: ${name}${prose ? ', the formatter keeping the string whole on one line' : ''}`, async () => {
    const options = { ...(await prettier.resolveConfig(filepath)), filepath };
    expect(widest(line)).toBeGreaterThan(120);
    expect(await prettier.check(line, options), 'the line as written fails the check').toBe(false);
    const fixed = await prettier.format(line, options);
    expect(await prettier.check(fixed, options), 'the formatted code passes it').toBe(true);
    if (prose) {
      expect(fixed.split('\n')).toContainEqual(expect.stringContaining(prose));
      expect(widest(fixed), 'the prose string is left over the line length').toBeGreaterThan(120);
    } else expect(widest(fixed)).toBeLessThanOrEqual(120);
  });
}
