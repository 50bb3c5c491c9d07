import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { operations } from '../../catalog/catalog.ts';
import { configSchema } from '../../schemas/variables.ts';

/**
 * The variables whose value is the path of a file the run reads: the request templates (catalog/operations.json), the
 * order template, the ledger and the private CA. What the run sent and trusted rests on their bytes.
 */
export const FILE_SETTINGS: readonly string[] = [
  ...operations.flatMap((op) => (op.templateEnv ? [op.templateEnv] : [])),
  'ORDER_TEMPLATE',
  'CONFORMANCE_LEDGER',
  'TLS_CA_FILE',
];

/** A file a setting points at, as the statement pins it. */
export interface PinnedFile {
  variable: string;
  /** The path as the setting gives it (or its default), relative to the checkout when it is not absolute. */
  path: string;
  /** The SHA-256 of its bytes; absent when no file is there (an absent ledger is an empty one). */
  sha256?: string;
}

/** Every file a setting of the run points at, with its digest, in FILE_SETTINGS' order; unset settings are left out. */
export function pinFiles(variables: Readonly<Record<string, string>>, repoRoot: string): PinnedFile[] {
  return FILE_SETTINGS.flatMap((variable) => {
    const path = variables[variable] ?? configSchema.properties[variable]?.default;
    if (path === undefined) return [];
    const file = isAbsolute(path) ? path : resolve(repoRoot, path);
    const there = existsSync(file) && statSync(file).isFile();
    return [
      { variable, path, ...(there ? { sha256: createHash('sha256').update(readFileSync(file)).digest('hex') } : {}) },
    ];
  });
}

/** The files whose bytes are not what they were when pinned, one line each. */
export function changedFiles(pinned: readonly PinnedFile[], now: readonly PinnedFile[]): string[] {
  return pinned.flatMap((file) => {
    const later = now.find((f) => f.variable === file.variable);
    return later?.sha256 === file.sha256
      ? []
      : [
          `${file.variable}=${file.path} changed while the run ran (SHA-256 ${later?.sha256 ?? 'none'}, pinned ${file.sha256 ?? 'none'})`,
        ];
  });
}

/** How verify-bundle shows them: one line each, the path beside its digest. */
export function pinnedFileLines(files: readonly PinnedFile[]): string[] {
  return files.map(
    (file) =>
      `${file.variable}: ${file.path} ${file.sha256 ? `SHA-256 ${file.sha256}` : '(no file there; none was read)'}`,
  );
}
