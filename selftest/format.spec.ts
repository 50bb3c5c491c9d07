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

async function formatted(source: string): Promise<boolean> {
  const filepath = join(repoRoot, 'kit', 'checks', 'example.ts');
  const options = await prettier.resolveConfig(filepath);
  return prettier.check(source, { ...options, filepath });
}

test('npm run lint checks the formatting of the whole tree', () => {
  // Its options (the cache) aside, on the whole tree.
  expect(lintScript).toMatch(/\bprettier --check\b[^&|;]* \.$/);
});

const longLines = {
  'an array literal': `export const places = [${Array.from({ length: 12 }, (_, i) => `'place-number-${i}'`).join(', ')}];\n`,
  'a call with many arguments': `expectTagsContain(verdict, 'CU-TAGS-APPEND', before.body.tags, updates.flat(), after.body.tags, after.exchange, annotations);\n`,
};

for (const [name, line] of Object.entries(longLines)) {
  test(`a line of code over 120 characters fails the check: ${name}`, async () => {
    expect(line.trimEnd().length).toBeGreaterThan(120);
    expect(await formatted(line)).toBe(false);
    const fixed = await prettier.format(line, {
      ...(await prettier.resolveConfig(join(repoRoot, 'kit', 'x.ts'))),
      filepath: 'x.ts',
    });
    expect(Math.max(...fixed.split('\n').map((l) => l.length))).toBeLessThanOrEqual(120);
    expect(await formatted(fixed)).toBe(true);
  });
}

test('a long prose string is the formatter’s to leave: the formatted code keeps it whole on one line', async () => {
  const title =
    'an order whose identifier already exists is answered 409 client, the variant at the end of the title, as a person reads it in a CI summary';
  const source = `test(cites(['ORD-409'], '${title}'), async () => undefined);\n`;
  const fixed = await prettier.format(source, {
    ...(await prettier.resolveConfig(join(repoRoot, 'tests', 'x.ts'))),
    filepath: 'x.ts',
  });
  expect(fixed.split('\n')).toContainEqual(expect.stringContaining(`'${title}'`));
  expect(Math.max(...fixed.split('\n').map((l) => l.length))).toBeGreaterThan(120);
  expect(await formatted(fixed)).toBe(true);
});
