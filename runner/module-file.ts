import { fileURLToPath } from 'node:url';

/**
 * The path of a module beside `base`, given without its extension, as this build names it: .ts in the clone, .js in
 * the installed package (compiled when packed). For the modules Playwright loads by path (reporters, global setup).
 */
export function moduleFile(relative: string, base: string): string {
  return fileURLToPath(new URL(`${relative}${base.endsWith('.js') ? '.js' : '.ts'}`, base));
}
