import { existsSync, statSync } from 'node:fs';
import { verifyBundle } from './evidence/manifest.ts';

/** `npm run verify-bundle -- <dir>`: checks a certification bundle against its manifest, offline. Exit 0 verified, 1 not, 2 usage. */
function main(): number {
  const dir = process.argv[2];
  if (!dir || !existsSync(dir) || !statSync(dir).isDirectory()) {
    console.error('Usage: npm run verify-bundle -- <certification bundle folder>');
    return 2;
  }
  const result = verifyBundle(dir);
  if (result.ok) {
    console.log(`Verified: ${result.verified} files match the manifest of ${dir} (manifest SHA-256 ${result.manifestSha256}).`);
    return 0;
  }
  console.error(`NOT verified: ${dir}`);
  for (const problem of result.problems) console.error(`  ${problem}`);
  return 1;
}

process.exitCode = main();
