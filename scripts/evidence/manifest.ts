import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const MANIFEST_FILE = 'manifest.json';
const FORMAT = 'conformance-certification-bundle/1';

export interface ManifestEntry {
  path: string;
  sha256: string;
  bytes: number;
}

export interface Manifest {
  format: string;
  algorithm: 'sha256';
  files: ManifestEntry[];
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Every file under dir, as POSIX paths relative to it, sorted. */
function filesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else found.push(relative(dir, path).split(sep).join('/'));
    }
  };
  walk(dir);
  return found.sort();
}

/** Writes manifest.json with the SHA-256 of every other file of the bundle; returns the manifest's own SHA-256. */
export function writeManifest(dir: string): { manifest: Manifest; sha256: string } {
  const files = filesUnder(dir)
    .filter((path) => path !== MANIFEST_FILE)
    .map((path) => {
      const data = readFileSync(join(dir, path));
      return { path, sha256: sha256(data), bytes: data.length };
    });
  const manifest: Manifest = { format: FORMAT, algorithm: 'sha256', files };
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  writeFileSync(join(dir, MANIFEST_FILE), text);
  return { manifest, sha256: sha256(text) };
}

export interface Verification {
  ok: boolean;
  verified: number;
  /** One line per problem, each naming the file. */
  problems: string[];
  manifestSha256?: string;
}

/** Checks a bundle against its manifest, offline: every listed file present and unchanged, and no file added. */
export function verifyBundle(dir: string): Verification {
  const manifestPath = join(dir, MANIFEST_FILE);
  if (!existsSync(manifestPath)) return { ok: false, verified: 0, problems: [`${MANIFEST_FILE}: missing (is ${dir} a certification bundle?)`] };
  const text = readFileSync(manifestPath);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text.toString('utf8')) as Manifest;
  } catch (error) {
    return { ok: false, verified: 0, problems: [`${MANIFEST_FILE}: not valid JSON (${(error as Error).message})`] };
  }
  if (manifest.format !== FORMAT || manifest.algorithm !== 'sha256' || !Array.isArray(manifest.files)) {
    return { ok: false, verified: 0, problems: [`${MANIFEST_FILE}: not a ${FORMAT} manifest`] };
  }
  const problems: string[] = [];
  let verified = 0;
  const listed = new Set<string>();
  for (const entry of manifest.files) {
    listed.add(entry.path);
    const path = join(dir, entry.path);
    if (entry.path.split('/').includes('..') || !existsSync(path)) {
      problems.push(`${entry.path}: missing`);
      continue;
    }
    const actual = sha256(readFileSync(path));
    if (actual !== entry.sha256) problems.push(`${entry.path}: changed (SHA-256 ${actual}, manifest says ${entry.sha256})`);
    else verified += 1;
  }
  for (const path of filesUnder(dir)) if (path !== MANIFEST_FILE && !listed.has(path)) problems.push(`${path}: not in the manifest`);
  return { ok: problems.length === 0, verified, problems, manifestSha256: sha256(text) };
}
