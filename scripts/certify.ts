import type { RunCost } from '../reporters/run-facts.ts';
import { costLines } from '../reporters/nights.ts';
import { costLine } from '../reporters/run-summary.ts';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { catalogSha256, interfaceInfo } from '../catalog/catalog.ts';
import { ConfigError } from '../runner/config/load-config.ts';
import { resolveRun } from '../runner/config/resolve.ts';
import type { Certification, RunConfig } from '../runner/config/run-config.ts';
import { environmentOf } from '../runner/run-reporters.ts';
import { suiteVersion } from '../reporters/run-environment.ts';
import { buildSingleFileReport } from './evidence/allure-single-file.ts';
import { redactedConfiguration } from './evidence/configuration.ts';
import { newKeyPair } from './evidence/dsse.ts';
import { signingKeyFrom, type SigningKey } from './evidence/signing-key.ts';
import { sealBundle } from './evidence/statement.ts';
import { describeSource, listDifferences, parseList, pinSource, sourceFiles } from './evidence/source-digest.ts';
import { statedVerdict, type StatedVerdict } from './evidence/stated-verdict.ts';
import { evidencePaths } from './evidence/paths.ts';
import { changedFiles, pinFiles } from './evidence/read-files.ts';
import { transportOf } from './evidence/transport.ts';
import { parseCli } from './cli.ts';
import { packageDir, playwrightCli, playwrightConfig, productRoot } from './product.ts';

// The code that judges (pinned in the bundle) is the product's; the settings, the files they name and the bundle are
// the folder's it is started from.
const repoRoot = productRoot;
const userRoot = process.cwd();

/** Exit codes: the run's own (0 conformant, 1 not conformant, 2 configuration not valid), or 3 when no bundle could be written. */
const BUNDLE_FAILED = 3;

function utcStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
}

function versionOf(packageJson: string): string {
  const [scope, name] = packageJson.split('/');
  const dir = packageDir(scope?.startsWith('@') ? `${scope}/${name}` : (scope ?? ''));
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

function bundleDir(certification: Certification, started: Date): string {
  const base = certification.dir;
  let dir = join(base, utcStamp(started));
  for (let n = 2; existsSync(dir); n += 1) dir = join(base, `${utcStamp(started)}-${n}`);
  return dir;
}

/** `--new-key`: writes an Ed25519 pair, the private half readable by its owner only. */
function writeNewKey(dir: string): number {
  mkdirSync(dir, { recursive: true });
  const privateFile = join(dir, 'certify-signing-key.pem');
  const publicFile = join(dir, 'certify-signing-key.pub.pem');
  if (existsSync(privateFile)) {
    console.error(`${privateFile} exists already: move it away or give another --key-dir`);
    return 2;
  }
  const { privatePem, publicPem } = newKeyPair();
  writeFileSync(privateFile, privatePem, { mode: 0o600 });
  chmodSync(privateFile, 0o600);
  writeFileSync(publicFile, publicPem);
  console.log(`Private key: ${privateFile} (keep it secret; sign with CERTIFY_SIGNING_KEY_FILE=${privateFile})`);
  console.log(
    `Public key:  ${publicFile} (publish it; certifiers verify with npm run verify-bundle -- --public-key ${publicFile} <bundle>)`,
  );
  return 0;
}

/**
 * `npm run certify [-- options]`: runs the suite itself under the certify profile (it never packs reports it did
 * not produce) and writes one folder, certification/<UTC timestamp>/, with the matrix, the JUnit XML, the
 * single-file Allure report, the redacted configuration, what was judged by what (versions, catalog SHA-256, the
 * git commit and the SHA-256 of every source file that can change a verdict, seed, timestamps, target, verdict) and
 * statement.dsse.json: an in-toto Statement naming every file's SHA-256, in a DSSE envelope signed with Ed25519,
 * which `npm run verify-bundle -- --public-key <pem> <dir>` checks offline (and, with --source, against a checkout).
 * The bundle is written whatever the verdict; the exit code is the verdict's.
 */
async function main(): Promise<number> {
  const { values } = parseCli({
    summary:
      'Runs the suite under the certify profile and writes a signed certification bundle (certification/<UTC time>/) that npm run verify-bundle checks offline.',
    usage: 'npm run certify -- [options]',
    options: {
      project: { type: 'string', multiple: true },
      grep: { type: 'string' },
      strict: { type: 'boolean' },
      verbose: { type: 'boolean' },
      'new-key': { type: 'boolean' },
      'key-dir': { type: 'string' },
    },
    describe: {
      project:
        'run only this Playwright project (repeatable); the bundle then says the run was partial and verify-bundle refuses it',
      grep: 'run only the tests matching this (e.g. @TOK-ISSUED); the run is partial too',
      strict:
        'the certify-strict profile: a SHOULD warning fails the certification too (PROFILE=certify-strict does the same)',
      verbose: 'list every test on the console as it ends (CONFORMANCE_VERBOSE=1)',
      'new-key': 'write a new Ed25519 key pair (to --key-dir) and run nothing',
      'key-dir': 'where --new-key writes the pair (default certification/keys)',
    },
    variables: ['CERTIFY_SIGNING_KEY', 'CERTIFY_SIGNING_KEY_FILE', 'CERTIFICATION_DIR'],
    epilogue:
      'Exit codes: 0 conformant (SHOULD warnings listed), 1 not conformant, 2 bad configuration or options, 3 bundle incomplete (docs/verdicts.md).',
  });
  if (values['new-key']) return writeNewKey(resolve(values['key-dir'] ?? join(userRoot, 'certification', 'keys')));
  // The run below is a child process: the profile, the console, and the seed, run tag and sandbox secret resolved
  // here go to it in its environment, so that it runs what this bundle records.
  // eslint-disable-next-line no-restricted-properties -- the environment passed to the run, a child process
  const env: Record<string, string | undefined> = { ...process.env };
  let resolved: RunConfig;
  let signer: SigningKey;
  try {
    resolved = resolveRun(env, userRoot);
    resolved.suite.profile =
      values.strict || resolved.suite.profile === 'certify-strict' ? 'certify-strict' : 'certify';
    env.PROFILE = resolved.suite.profile;
    if (values.verbose) env.CONFORMANCE_VERBOSE = '1';
    env.SEED = String(resolved.suite.seed);
    env.RUN_TAG = resolved.suite.runTag;
    if (resolved.sandbox) env.SANDBOX_TOKEN_SECRET = resolved.sandbox.options.tokenSecret;
    signer = signingKeyFrom(resolved.certification);
  } catch (error) {
    if (!(error instanceof ConfigError) && !(error instanceof Error && /^CERTIFY_SIGNING_KEY/.test(error.message)))
      throw error;
    console.error((error as Error).message);
    return 2;
  }
  const paths = evidencePaths(resolved.reports);
  const args = [
    ...(values.project ?? []).flatMap((name) => ['--project', name]),
    ...(values.grep ? ['--grep', values.grep] : []),
  ];
  // The source as the run loads it: pinned before the run starts, and compared again when it ends (an edit made
  // while it ran leaves the bundle incomplete, since the pin would not say what every worker loaded).
  const source = pinSource(repoRoot);
  // The files the settings point at (templates, ledger, CA), pinned the same way: what was sent rests on their bytes.
  const files = pinFiles(resolved.variables, userRoot);
  const transport = await transportOf(resolved.suite);
  const started = new Date();
  const run = spawnSync(process.execPath, [playwrightCli(), 'test', '-c', playwrightConfig, ...args], {
    cwd: userRoot,
    env,
    stdio: 'inherit',
  });
  const finished = new Date();
  const exitCode = run.status ?? 1;

  const dir = bundleDir(resolved.certification, started);
  mkdirSync(dir, { recursive: true });
  const problems: string[] = [];
  for (const file of ['conformance.json', 'conformance.md', 'junit.xml']) {
    const from = join(paths.reportsDir, file);
    if (existsSync(from)) copyFileSync(from, join(dir, file));
    else problems.push(`${from} was not written by the run`);
  }
  try {
    buildSingleFileReport({
      resultsDir: paths.allureResults,
      outputFile: join(dir, 'allure-report.html'),
      name: `${interfaceInfo.title} ${interfaceInfo.version} certification ${utcStamp(started)}`,
    });
  } catch (error) {
    problems.push(`the Allure report could not be built: ${(error as Error).message}`);
  }
  const matrix = existsSync(join(dir, 'conformance.json'))
    ? (JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as {
        result?: string;
        reasons?: string[];
        verdict?: StatedVerdict;
        cost?: RunCost;
      })
    : {};
  writeFileSync(join(dir, source.claim.list), source.list);
  for (const changed of listDifferences(
    parseList(source.list),
    sourceFiles(repoRoot),
    'the checkout when the run ended',
  ))
    problems.push(`source changed while the run ran: ${changed}`);
  problems.push(...changedFiles(files, pinFiles(resolved.variables, userRoot)));
  const configuration = redactedConfiguration(resolved);
  writeFileSync(join(dir, 'configuration.json'), `${JSON.stringify(configuration, null, 2)}\n`);
  const certificate = {
    suite: { version: suiteVersion },
    interface: { title: interfaceInfo.title, version: interfaceInfo.version },
    catalogSha256,
    source: source.claim,
    // Every file a setting points at, its path beside its SHA-256 (scripts/evidence/read-files.ts).
    files,
    profile: resolved.suite.profile,
    seed: resolved.suite.seed,
    runTag: resolved.suite.runTag,
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    command: ['npm run certify --', ...args].join(' '),
    exitCode,
    result: matrix.result ?? 'no verdict',
    reasons: matrix.reasons ?? [],
    // What verify-bundle --require-conformant reads: the run's verdict as reporters/run-verdict.ts decided it.
    verdict: statedVerdict(matrix.verdict, exitCode),
    // Whether a proxy carried the run (its host only) and who issued the target's certificate.
    transport,
    // The concurrency checks' rounds (tried, discarded for a 429 or a call without an answer): they can prove a defect,
    // never its absence, so a certifier reads how many were tried (CONCURRENCY_ROUNDS; absent when none ran).
    concurrency: matrix.cost?.rounds ?? { tried: 0 },
    // What the run cost the target, from the exchanges it recorded: requests, retries after a 503 or a dropped
    // connection and the backoff before them, the waits on 429 answers, each operation's latency and retries.
    ...(matrix.cost
      ? {
          cost: {
            requests: matrix.cost.requests,
            retried503: matrix.cost.retried503 ?? 0,
            retriedDropped: matrix.cost.retriedDropped ?? 0,
            backoffMs: matrix.cost.backoffMs ?? 0,
            rateLimitWaits: matrix.cost.rateLimitWaits,
            rateLimitWaitMs: matrix.cost.rateLimitWaitMs,
            operations: matrix.cost.operations ?? [],
          },
        }
      : {}),
    // The run's recorded environment, from the configuration it ran with: the sandbox's flavor and faults included.
    environment: environmentOf(resolved),
    tools: {
      playwright: versionOf('@playwright/test/package.json'),
      allure: versionOf('allure/package.json'),
      'allure-playwright': versionOf('allure-playwright/package.json'),
    },
    bundleProblems: problems,
  };
  writeFileSync(join(dir, 'certificate.json'), `${JSON.stringify(certificate, null, 2)}\n`);
  const scope = { partial: args.length > 0, filters: args };
  const sealed = sealBundle(dir, { ...certificate, configuration, run: scope, signer: signer.origin }, signer.key);

  console.log(`\nCertification bundle: ${dir}`);
  console.log(`  ${sealed.subjects} files in a statement signed by key ${sealed.keyid} (${signer.origin})`);
  console.log(`  ${describeSource(source.claim)}`);
  if (signer.origin === 'made for this run')
    console.log(
      '  The key was made for this run: its signature shows nothing changed since, not who signed. Sign with a published key: npm run certify -- --new-key',
    );
  if (scope.partial)
    console.log(`  Partial run (${args.join(' ')}): verify-bundle refuses it unless given --allow-partial`);
  console.log(`  Verify with: npm run verify-bundle -- --public-key <the signer's public key> ${dir}`);
  if (matrix.cost) for (const line of [costLine(matrix.cost), ...costLines(matrix.cost)]) console.log(line);
  console.log(`  Verdict (${certificate.profile} profile): ${certificate.result} (exit ${exitCode})`);
  for (const problem of problems) console.error(`  Bundle incomplete: ${problem}`);
  return problems.length > 0 ? BUNDLE_FAILED : exitCode;
}

process.exitCode = await main();
