import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { isStartedScript, parseCli } from './cli.ts';
import { replaceMarkedBlock } from './readme-block.ts';
import { registry } from '../kit/checks/registry.ts';

// The two lists of docs/writing-checks.md, read from the code itself: every check of the registry by area, and every
// fixture a test can take. selftest/docs-current.spec.ts fails when the page and the code part.

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const writingChecksPage = join(repoRoot, 'docs', 'writing-checks.md');

/** A check's name says what it does: it judges (expect), records an INFO requirement (observe) or sends and judges (check). */
const CHECK_NAME = /^(expect|observe|check)[A-Z]/;
/** A precondition helper's name: what a check stands on, which blocks the test when it does not hold. */
const PRECONDITION_NAME = /^require[A-Z]/;

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(join(repoRoot, path), 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The first sentence of a node's JSDoc, on one line, with the table's pipe escaped. */
function summary(node: ts.Node): string {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  return firstSentence(ts.getTextOfJSDocComment(docs.at(-1)?.comment) ?? '');
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/\.(\s|$)/);
  return (end < 0 ? flat : flat.slice(0, end + 1)).replace(/\|/g, '\\|');
}

function isExported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

/** The exported functions (and function-valued constants) of a module, with their doc comments. */
function exportedFunctions(path: string): Array<{ name: string; node: ts.Node }> {
  const found: Array<{ name: string; node: ts.Node }> = [];
  for (const statement of parse(path).statements) {
    if (!isExported(statement)) continue;
    if (ts.isFunctionDeclaration(statement) && statement.name)
      found.push({ name: statement.name.text, node: statement });
    if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name)) found.push({ name: declaration.name.text, node: statement });
  }
  return found;
}

/** The module's own comment: the first doc comment followed by a blank line (a declaration's comment touches it). */
function moduleSummary(path: string): string {
  const source = parse(path);
  const text = source.getFullText();
  for (const statement of source.statements) {
    const ranges = ts.getLeadingCommentRanges(text, statement.getFullStart()) ?? [];
    const own = ranges.find(
      (r, i) =>
        text.startsWith('/**', r.pos) && /\n\s*\n/.test(text.slice(r.end, ranges[i + 1]?.pos ?? statement.getStart())),
    );
    if (own) return firstSentence(text.slice(own.pos + 3, own.end - 2).replace(/^\s*\* ?/gm, ''));
  }
  return '';
}

function tsFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? tsFiles(join(dir, entry.name))
        : entry.name.endsWith('.ts')
          ? [relative(repoRoot, join(repoRoot, dir, entry.name))]
          : [],
    )
    .sort();
}

/** The exported functions of `files` named as `named` says, file by file, each with its doc comment's first sentence. */
function listing(files: readonly string[], named: RegExp, keep: (name: string) => boolean = () => true): string[] {
  const lines: string[] = [];
  for (const file of files) {
    const entries = exportedFunctions(file).filter((f) => named.test(f.name) && keep(f.name));
    if (entries.length === 0) continue;
    const about = moduleSummary(file);
    lines.push('', `**\`${file}\`**${about ? `: ${about}` : ''}`, '', '| Check | What it judges |', '|---|---|');
    for (const { name, node } of entries) lines.push(`| \`${name}\` | ${summary(node)} |`);
  }
  return lines;
}

/** The check-named exports of the modules of kit/checks/ (the client's under kit/checks/client/), by module. */
export function checkExports(): Array<{ file: string; names: string[] }> {
  return tsFiles('kit/checks').map((file) => ({
    file,
    names: exportedFunctions(file)
      .map((f) => f.name)
      .filter((name) => CHECK_NAME.test(name)),
  }));
}

/**
 * Every check of the kit, file by file (an area each: the server's by part, the client's under kit/checks/client/):
 * the checks of the registry (kit/checks/registry.ts), each listed in the module that defines it.
 */
export function checksIndex(): string {
  const registered = new Set(Object.keys(registry));
  const lines = tsFiles('kit/checks').flatMap((file) => listing([file], CHECK_NAME, (name) => registered.has(name)));
  const preconditions = listing(['kit/preconditions.ts', 'fixtures/preconditions.ts'], PRECONDITION_NAME).map((line) =>
    line.replace('| Check | What it judges |', '| Precondition | What it stands on |'),
  );
  return [...lines, ...preconditions].join('\n').trim();
}

interface FixtureRow {
  name: string;
  scope: 'test' | 'worker';
  files: string[];
  about: string;
}

/** The keys of the object a fixtures module hands to `.extend(...)`, with the scope each is declared with. */
function extendedFixtures(source: ts.SourceFile): Array<{ name: string; scope: 'test' | 'worker' }> {
  const found: Array<{ name: string; scope: 'test' | 'worker' }> = [];
  const visit = (node: ts.Node): void => {
    const extend =
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'extend' &&
      node.arguments[0] !== undefined &&
      ts.isObjectLiteralExpression(node.arguments[0]);
    if (!extend) return ts.forEachChild(node, visit);
    for (const property of (node.arguments[0] as ts.ObjectLiteralExpression).properties) {
      if (!property.name || !ts.isIdentifier(property.name)) continue;
      const value = ts.isPropertyAssignment(property) ? property.initializer.getText() : '';
      found.push({ name: property.name.text, scope: /scope:\s*'worker'/.test(value) ? 'worker' : 'test' });
    }
  };
  visit(source);
  return found;
}

/** The doc comments of the members of every interface of the fixtures modules, by member name. */
function fixtureDocs(sources: readonly ts.SourceFile[]): Map<string, string> {
  const docs = new Map<string, string>();
  for (const source of sources)
    for (const statement of source.statements)
      if (ts.isInterfaceDeclaration(statement))
        for (const member of statement.members)
          if (member.name && ts.isIdentifier(member.name) && summary(member))
            docs.set(member.name.text, summary(member));
  return docs;
}

/** Every fixture a test can take: the keys of each fixtures module's `.extend(...)`, documented in its interfaces. */
export function fixturesIndex(): string {
  const files = ['fixtures/test.ts', ...tsFiles('fixtures').filter((f) => f !== 'fixtures/test.ts')];
  const sources = files.map(parse);
  const docs = fixtureDocs(sources);
  const rows: FixtureRow[] = [];
  sources.forEach((source, i) => {
    for (const { name, scope } of extendedFixtures(source)) {
      const known = rows.find((row) => row.name === name);
      if (known) known.files.push(files[i] as string);
      else rows.push({ name, scope, files: [files[i] as string], about: docs.get(name) ?? '' });
    }
  });
  const undocumented = rows.filter((row) => row.about === '').map((row) => row.name);
  if (undocumented.length)
    throw new Error(`Fixtures without a doc comment in an interface of fixtures/: ${undocumented.join(', ')}`);
  const lines = ['| Fixture | Scope | Defined in | What it is |', '|---|---|---|---|'];
  for (const row of rows)
    lines.push(`| \`${row.name}\` | ${row.scope} | ${row.files.map((f) => `\`${f}\``).join(', ')} | ${row.about} |`);
  return lines.join('\n');
}

if (isStartedScript(import.meta.url)) {
  parseCli({
    summary:
      'Writes the lists of docs/writing-checks.md from the code: every check of kit/checks/ by area, every precondition helper and every fixture of fixtures/.',
    usage: 'npm run writing-checks',
    options: {},
    describe: {},
  });
  replaceMarkedBlock(writingChecksPage, 'checks', checksIndex());
  replaceMarkedBlock(writingChecksPage, 'fixtures', fixturesIndex());
  console.log('the lists of docs/writing-checks.md written');
}
