import { existsSync, readFileSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseCli, usageOf } from './cli.ts';
import { publicKeyFromPem } from './evidence/dsse.ts';
import { verifyBundle } from './evidence/statement.ts';

/**
 * `npm run verify-bundle -- --public-key <pem> <dir>`: checks a certification bundle offline: its statement signed
 * by the key given, every file's SHA-256, no file added, a run of the whole suite; with --source <checkout>, the
 * checkout's source files against those the run loaded. Exit 0 verified, 1 not, 2 usage.
 */
function main(): number {
  const cli = {
    summary: 'Checks a certification bundle offline: the signature of its statement against the public key you give, every file against its digest, and that the run covered the whole suite.',
    usage: 'npm run verify-bundle -- --public-key <signer.pub.pem> <bundle folder>',
    options: { 'public-key': { type: 'string' as const }, 'allow-partial': { type: 'boolean' as const }, source: { type: 'string' as const } },
    describe: {
      'public-key': "the signer's published Ed25519 public key (PEM); required",
      'allow-partial': 'accept a bundle of a run of part of the suite (--project or --grep)',
      source: 'a checkout of the suite (e.g. .): its source files must be exactly those the run loaded; each one that differs is named',
    },
    positionals: { min: 1, max: 1, names: 'one bundle folder' },
    epilogue: 'Exit codes: 0 verified, 1 not verified, 2 bad arguments.',
  };
  const { values, positionals } = parseCli(cli);
  const dir = positionals[0] ?? '';
  const keyFile = values['public-key'];
  if (!keyFile) {
    console.error(`--public-key is required: the signer's public key, obtained from the signer, not from the bundle\n\n${usageOf(cli)}`);
    return 2;
  }
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    console.error(`${dir} is not a folder\n\n${usageOf(cli)}`);
    return 2;
  }
  let key;
  try {
    key = publicKeyFromPem(readFileSync(keyFile, 'utf8'));
  } catch (error) {
    console.error(`--public-key ${keyFile}: ${(error as Error).message}`);
    return 2;
  }
  if (values.source !== undefined && !(existsSync(values.source) && statSync(values.source).isDirectory())) {
    console.error(`--source ${values.source} is not a folder\n\n${usageOf(cli)}`);
    return 2;
  }
  const result = verifyBundle(dir, key, { allowPartial: values['allow-partial'] === true, ...(values.source === undefined ? {} : { source: values.source }) });
  if (!result.ok) {
    console.error(`NOT verified: ${dir}`);
    for (const problem of result.problems) console.error(`  ${problem}`);
    for (const note of result.notes) console.error(`  ${note}`);
    return 1;
  }
  const predicate = result.statement?.predicate as { result?: string; startedAt?: string } | undefined;
  console.log(`Verified: ${dir}: the statement is signed by the key given, and its ${result.verified} files match their digests.`);
  console.log(`  The run started ${predicate?.startedAt ?? '(time not stated)'}; its verdict: ${predicate?.result ?? '(none)'}`);
  for (const note of result.notes) console.log(`  ${note}`);
  if (!relative(resolve(dir), resolve(keyFile)).startsWith('..')) {
    console.log('  Note: the public key came from the bundle itself: this shows nothing changed since signing, not who signed.');
  }
  return 0;
}

process.exitCode = main();
