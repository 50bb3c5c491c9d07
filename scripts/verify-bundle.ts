import { existsSync, readFileSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { isStartedScript, parseCli, usageOf } from './cli.ts';
import { publicKeyFromPem } from './evidence/dsse.ts';
import { pinnedFileLines, type PinnedFile } from './evidence/read-files.ts';
import { verifyBundle } from './evidence/statement.ts';
import { statedVerdictLine, verdictProblems } from './evidence/stated-verdict.ts';

/**
 * `npm run verify-bundle -- --public-key <pem> <dir>`: checks a certification bundle offline: its statement signed
 * by the key given, every file's SHA-256, no file added, a run of the whole suite, and prints the run's verdict as
 * signed; with --source <checkout>, the checkout's source files against those the run loaded. With --require-conformant
 * it also requires a certify-profile run that ended conformant (warnings allowed); --require-no-warnings, that and no
 * SHOULD warning. Exit 0 verified (and, when required, conformant), 1 not, 2 usage. The command's whole work, its
 * exit code returned: the self-tests call it in their own process.
 */
export function verifyBundleCommand(argv: string[] = process.argv.slice(2)): number {
  const cli = {
    summary:
      'Checks a certification bundle offline: the signature of its statement against the public key you give, every file against its digest, and that the run covered the whole suite.',
    usage:
      'npm run verify-bundle -- --public-key <signer.pub.pem> [--source <checkout>] [--require-conformant] <bundle folder>',
    options: {
      'public-key': { type: 'string' as const },
      'allow-partial': { type: 'boolean' as const },
      source: { type: 'string' as const },
      'require-conformant': { type: 'boolean' as const },
      'require-no-warnings': { type: 'boolean' as const },
    },
    describe: {
      'public-key': "the signer's published Ed25519 public key (PEM); required",
      'allow-partial': 'accept a bundle of a run of part of the suite (--project or --grep)',
      source:
        'a checkout of the suite (e.g. .): its source files must be exactly those the run loaded; each one that differs is named',
      'require-conformant': 'also require a certify-profile run that ended conformant (SHOULD warnings allowed)',
      'require-no-warnings':
        'also require a conformant certify-profile run without a SHOULD warning (the strict reading)',
    },
    positionals: { min: 1, max: 1, names: 'one bundle folder' },
    epilogue:
      'Exit codes: 0 signature and files verified (and the verdict required, if asked), 1 not, 2 bad arguments. Without --require-*, a bundle whose run was not conformant verifies: the verdict printed is what it states.',
  };
  const { values, positionals } = parseCli(cli, argv);
  const dir = positionals[0] ?? '';
  const keyFile = values['public-key'];
  if (!keyFile) {
    console.error(
      `--public-key is required: the signer's public key, obtained from the signer, not from the bundle\n\n${usageOf(cli)}`,
    );
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
  const result = verifyBundle(dir, key, {
    allowPartial: values['allow-partial'] === true,
    ...(values.source === undefined ? {} : { source: values.source }),
  });
  if (!result.ok) {
    console.error(`NOT verified: ${dir}`);
    for (const problem of result.problems) console.error(`  ${problem}`);
    for (const note of result.notes) console.error(`  ${note}`);
    return 1;
  }
  const predicate = (result.statement?.predicate ?? {}) as Parameters<typeof statedVerdictLine>[0] & {
    startedAt?: string;
    files?: PinnedFile[];
  };
  console.log(`Signature and files verified; verdict: ${statedVerdictLine(predicate)}`);
  console.log(
    `  ${dir}: the statement is signed by the key given, and its ${result.verified} files match their digests; the run started ${predicate.startedAt ?? '(time not stated)'}.`,
  );
  for (const note of result.notes) console.log(`  ${note}`);
  if (predicate.files?.length) {
    console.log('  Files the settings pointed at, as the run read them:');
    for (const line of pinnedFileLines(predicate.files)) console.log(`    ${line}`);
  }
  if (!relative(resolve(dir), resolve(keyFile)).startsWith('..')) {
    console.log(
      '  Note: the public key came from the bundle itself: this shows nothing changed since signing, not who signed.',
    );
  }
  const unmet = verdictProblems(predicate, {
    conformant: values['require-conformant'] === true,
    noWarnings: values['require-no-warnings'] === true,
  });
  if (unmet.length > 0) {
    console.error(`NOT certified: ${dir}`);
    for (const problem of unmet) console.error(`  ${problem}`);
    return 1;
  }
  return 0;
}

if (isStartedScript(import.meta.url)) process.exitCode = verifyBundleCommand();
