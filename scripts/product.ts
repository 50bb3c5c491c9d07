import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the product's code is: the clone's root, or dist/ of the installed package (compiled when packed:
 * tools/build.ts). Only code is read from here; a run's settings, reports and bundles belong to the folder it is
 * started from (process.cwd(), runner/config/resolve.ts), never to the package.
 */
export const productRoot = fileURLToPath(new URL('..', import.meta.url));
/** Whether this is the compiled package (JavaScript under dist/), not the clone's TypeScript. */
export const compiled = import.meta.url.endsWith('.js');
/** The conformance run's Playwright configuration, as this build names it. */
export const playwrightConfig = join(productRoot, compiled ? 'playwright.config.js' : 'playwright.config.ts');

const require = createRequire(import.meta.url);

/** The folder of an installed dependency, found as Node finds it (hoisted into the user's node_modules, or ours). */
export function packageDir(name: string): string {
  for (const base of require.resolve.paths(name) ?? []) {
    const dir = join(base, name);
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  return dirname(require.resolve(`${name}/package.json`));
}

/** Playwright's command line, run as `node <cli> test -c <playwrightConfig>`. */
export const playwrightCli = (): string => join(packageDir('@playwright/test'), 'cli.js');
