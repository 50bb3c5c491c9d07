import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/**
 * What a run's verdicts are made of besides the target's answers: the checks, the fixtures and the library they use,
 * the reporters that judge, the schemas and the catalog they read, the scripts that run and judge (certify, the
 * client judge), the sandbox (the embedded target, and the facts the configuration reads from it), the Playwright
 * configuration, and the dependency versions pinned by the lock file.
 */
export const SOURCE_PATHS: readonly string[] = [
  'tests',
  'kit',
  'runner',
  'fixtures',
  'reporters',
  'schemas',
  'catalog',
  'scripts',
  'sandbox',
  'playwright.config.ts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
];

/** The bundle file listing every source file with its SHA-256, in `sha256sum` format (`sha256sum -c` reads it). */
export const SOURCE_LIST_FILE = 'source-files.sha256';

/** What the signed statement says about the code that ran. */
export interface SourceClaim {
  /** The checkout's git commit, or "unknown" (no git, or not a git checkout: a tarball). */
  commit: string;
  /** Whether the checkout had changes not committed (tracked or untracked files); "unknown" without git. */
  dirty: boolean | 'unknown';
  /** The SHA-256 of the list file: one digest for the whole source. */
  digest: { sha256: string };
  files: number;
  paths: string[];
  list: string;
}

const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** Every file under the given paths of root, POSIX paths relative to root, each with its SHA-256, sorted by path. */
export function sourceFiles(root: string, paths: readonly string[] = SOURCE_PATHS): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (path: string): void => {
    const stats = statSync(path);
    if (stats.isDirectory()) {
      for (const name of readdirSync(path)) if (name !== 'node_modules' && name !== '.git') visit(join(path, name));
    } else if (stats.isFile()) found.set(relative(root, path).split(sep).join('/'), sha256(readFileSync(path)));
  };
  for (const path of paths) if (existsSync(join(root, path))) visit(join(root, path));
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export const listText = (files: ReadonlyMap<string, string>): string =>
  [...files].map(([path, digest]) => `${digest}  ${path}\n`).join('');

export function parseList(text: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    if (match) files.set(match[2] as string, match[1] as string);
  }
  return files;
}

function git(root: string, args: string[]): string | undefined {
  const run = spawnSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return run.status === 0 ? run.stdout : undefined;
}

/** The commit and dirty flag of root's git checkout; "unknown" for both when git is absent or root is no checkout. */
export function gitState(root: string): Pick<SourceClaim, 'commit' | 'dirty'> {
  // An installed package is no checkout of its own: the repository around it is the user's, not the suite's.
  if (!existsSync(join(root, '.git'))) return { commit: 'unknown', dirty: 'unknown' };
  const commit = git(root, ['rev-parse', '--verify', 'HEAD'])?.trim();
  if (!commit) return { commit: 'unknown', dirty: 'unknown' };
  const status = git(root, ['status', '--porcelain', '--untracked-files=normal']);
  return { commit, dirty: status === undefined ? 'unknown' : status.trim() !== '' };
}

/** The source of a checkout as it is on disk now: the claim for the statement and the list file's text. */
export function pinSource(root: string): { claim: SourceClaim; list: string } {
  const files = sourceFiles(root);
  const list = listText(files);
  return {
    claim: {
      ...gitState(root),
      digest: { sha256: sha256(list) },
      files: files.size,
      paths: [...SOURCE_PATHS],
      list: SOURCE_LIST_FILE,
    },
    list,
  };
}

/** A one-line account of the claim, for the console. */
export function describeSource(claim: SourceClaim): string {
  const dirty = claim.dirty === true ? ', with uncommitted changes' : claim.dirty === 'unknown' ? '' : ', clean';
  return `source: commit ${claim.commit}${dirty}; ${claim.files} files of ${claim.paths.join(', ')}, SHA-256 ${claim.digest.sha256}`;
}

function isClaim(value: unknown): value is SourceClaim {
  const claim = value as Partial<SourceClaim> | undefined;
  return (
    typeof claim === 'object' &&
    claim !== null &&
    typeof claim.commit === 'string' &&
    (typeof claim.dirty === 'boolean' || claim.dirty === 'unknown') &&
    typeof claim.digest?.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(claim.digest.sha256) &&
    typeof claim.files === 'number' &&
    Array.isArray(claim.paths) &&
    claim.paths.every((p) => typeof p === 'string' && p !== '' && !isAbsolute(p) && !p.split(/[\\/]/).includes('..')) &&
    claim.list === SOURCE_LIST_FILE
  );
}

/** The source claim of a statement's predicate; undefined when it has none (a bundle made before the suite pinned its source). */
export function sourceClaimOf(predicate: Record<string, unknown>): SourceClaim | undefined {
  return isClaim(predicate['source']) ? predicate['source'] : undefined;
}

/**
 * Whether a bundle's source claim holds together: well-formed, its list file signed as a subject, and the list's
 * digest and count those the statement states. A statement without a claim is let through here (older bundles);
 * `--source` refuses it.
 */
export function sourceClaimProblems(
  predicate: Record<string, unknown>,
  dir: string,
  subjects: ReadonlyArray<{ name: string }>,
): string[] {
  if (predicate['source'] === undefined) return [];
  const claim = sourceClaimOf(predicate);
  if (!claim)
    return ["the statement's source is not well-formed (commit, dirty, digest.sha256, files, paths and list expected)"];
  if (!subjects.some((s) => s.name === claim.list))
    return [`${claim.list}: the statement's source names it, but it is not among the signed files`];
  const path = join(dir, claim.list);
  if (!existsSync(path)) return [];
  const text = readFileSync(path);
  const problems: string[] = [];
  if (sha256(text) !== claim.digest.sha256)
    problems.push(
      `${claim.list}: its SHA-256 is ${sha256(text)}, the statement's source digest ${claim.digest.sha256}`,
    );
  const count = parseList(text.toString('utf8')).size;
  if (count !== claim.files) problems.push(`${claim.list}: lists ${count} files, the statement says ${claim.files}`);
  return problems;
}

/** Each file that differs between the run's list and another (a checkout's, or the same checkout's after the run), named. */
export function listDifferences(
  ran: ReadonlyMap<string, string>,
  other: ReadonlyMap<string, string>,
  where: string,
): string[] {
  const problems: string[] = [];
  for (const [path, digest] of ran) {
    const local = other.get(path);
    if (local === undefined) problems.push(`${path}: loaded by the run, missing from ${where}`);
    else if (local !== digest) problems.push(`${path}: differs (SHA-256 ${local} in ${where}, ${digest} in the run)`);
  }
  for (const path of other.keys())
    if (!ran.has(path)) problems.push(`${path}: in ${where}, not among the files of the run`);
  return problems;
}

export interface SourceComparison {
  /** One line per file that differs, naming it; empty when the checkout holds exactly the files the run loaded. */
  problems: string[];
  /** What was compared (the commits), for the console. */
  notes: string[];
}

/**
 * Compares a checkout with the source a bundle pins: every file under the statement's paths, recomputed in the
 * checkout, against the bundle's list. Names each file that differs, is missing or was added.
 */
export function compareSource(
  predicate: Record<string, unknown>,
  bundleDir: string,
  checkout: string,
): SourceComparison {
  const claim = sourceClaimOf(predicate);
  if (!claim)
    return {
      problems: ['the statement pins no source (no source digest): it cannot be compared with a checkout'],
      notes: [],
    };
  const listPath = join(bundleDir, claim.list);
  if (!existsSync(listPath)) return { problems: [`${claim.list}: missing from the bundle`], notes: [] };
  const ran = parseList(readFileSync(listPath, 'utf8'));
  const problems = listDifferences(ran, sourceFiles(checkout, claim.paths), checkout);
  const local = gitState(checkout);
  const notes = [
    `The run's commit ${claim.commit}${claim.dirty === true ? ' (dirty)' : ''}; the checkout's (${checkout}) ${local.commit}${local.dirty === true ? ' (dirty)' : ''}`,
  ];
  if (problems.length === 0)
    notes.push(
      `${claim.files} source files of ${claim.paths.join(', ')} identical to the run's (SHA-256 ${claim.digest.sha256})`,
    );
  return { problems, notes };
}

/**
 * What verify-bundle adds about the source: the run's pinned source described, and with a checkout given, each
 * file of the checkout that differs from the run's as a problem.
 */
export function sourceCheck(
  predicate: Record<string, unknown>,
  bundleDir: string,
  checkout: string | undefined,
): SourceComparison {
  const claim = sourceClaimOf(predicate);
  const described = claim
    ? [`The run's ${describeSource(claim)}`]
    : ['The statement pins no source code (a bundle made before the suite recorded it).'];
  if (checkout === undefined) return { problems: [], notes: described };
  const compared = compareSource(predicate, bundleDir, checkout);
  return { problems: compared.problems, notes: [...described, ...compared.notes] };
}
