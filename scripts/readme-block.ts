import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const readmePath = join(fileURLToPath(new URL('..', import.meta.url)), 'README.md');

/** Replaces a Markdown file's text between <!-- name --> and <!-- /name --> with what a script just measured. */
export function replaceMarkedBlock(path: string, name: string, text: string): void {
  const markdown = readFileSync(path, 'utf8');
  const start = markdown.indexOf(`<!-- ${name} -->`);
  const end = markdown.indexOf(`<!-- /${name} -->`);
  if (start < 0 || end < start) throw new Error(`${path} has no <!-- ${name} --> ... <!-- /${name} --> block`);
  writeFileSync(path, `${markdown.slice(0, start)}<!-- ${name} -->\n${text}\n${markdown.slice(end)}`);
}

/** Replaces the README's text between <!-- name --> and <!-- /name --> with figures a script just measured. */
export function replaceReadmeBlock(name: string, text: string): void {
  replaceMarkedBlock(readmePath, name, text);
}
