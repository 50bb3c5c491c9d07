import { existsSync, statSync } from 'node:fs';
import { parseCli, usageOf } from './cli.ts';
import { verifyBundle } from './evidence/manifest.ts';

/** `npm run verify-bundle -- <dir>`: checks a certification bundle against its manifest, offline. Exit 0 verified, 1 not, 2 usage. */
function main(): number {
  const cli = {
    summary: 'Checks a certification bundle against its manifest, offline.',
    usage: 'npm run verify-bundle -- <bundle folder>',
    options: {},
    describe: {},
    positionals: { min: 1, max: 1, names: 'one bundle folder' },
    epilogue: 'Exit codes: 0 verified, 1 not verified, 2 bad arguments.',
  };
  const dir = parseCli(cli).positionals[0] ?? '';
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    console.error(`${dir} is not a folder\n\n${usageOf(cli)}`);
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
