import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const readmePath = join(fileURLToPath(new URL('..', import.meta.url)), 'README.md');

/** Replaces the README's text between <!-- name --> and <!-- /name --> with figures a script just measured. */
export function replaceReadmeBlock(name: string, text: string): void {
  const readme = readFileSync(readmePath, 'utf8');
  const start = readme.indexOf(`<!-- ${name} -->`);
  const end = readme.indexOf(`<!-- /${name} -->`);
  if (start < 0 || end < start) throw new Error(`README.md has no <!-- ${name} --> ... <!-- /${name} --> block`);
  writeFileSync(readmePath, `${readme.slice(0, start)}<!-- ${name} -->\n${text}\n${readme.slice(end)}`);
}
