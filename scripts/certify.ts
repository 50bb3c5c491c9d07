import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogSha256, interfaceInfo } from '../catalog/catalog.ts';
import { ConfigError } from '../harness/config/load-config.ts';
import { resolveConfig, type ResolvedConfig } from '../harness/config/resolve.ts';
import { runEnvironment, suiteVersion } from '../reporters/run-environment.ts';
import { buildSingleFileReport } from './evidence/allure-single-file.ts';
import { redactedConfiguration } from './evidence/configuration.ts';
import { writeManifest } from './evidence/manifest.ts';
import { evidencePaths } from './evidence/paths.ts';
import { parseCli } from './cli.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const playwrightCli = join(repoRoot, 'node_modules', '@playwright', 'test', 'cli.js');

/** Exit codes: the run's own (0 conformant, 1 not conformant, 2 configuration not valid), or 3 when no bundle could be written. */
const BUNDLE_FAILED = 3;

function utcStamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

function versionOf(packageJson: string): string {
  return (JSON.parse(readFileSync(join(repoRoot, 'node_modules', packageJson), 'utf8')) as { version: string }).version;
}

function bundleDir(started: Date): string {
  const base = resolve(process.env.CERTIFICATION_DIR ?? join(repoRoot, 'certification'));
  let dir = join(base, utcStamp(started));
  for (let n = 2; existsSync(dir); n += 1) dir = join(base, `${utcStamp(started)}-${n}`);
  return dir;
}

/**
 * `npm run certify [-- <playwright args>]`: runs the suite under the certify profile and writes one folder,
 * certification/<UTC timestamp>/, with the matrix, the JUnit XML, the single-file Allure report, the redacted
 * configuration, what was judged by what (versions, catalog SHA-256, seed, timestamps) and a manifest of the
 * SHA-256 of every file, which `npm run verify-bundle -- <dir>` checks offline. The bundle is written whatever
 * the verdict; the exit code is the verdict's.
 */
function main(): number {
  process.env.PROFILE = 'certify';
  let resolved: ResolvedConfig;
  try {
    // Fixes the seed, the run tag and the sandbox secret in process.env, so that the run below uses the same ones.
    resolved = resolveConfig(process.env, repoRoot);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 2;
  }
  const paths = evidencePaths();
  const { values } = parseCli({
    summary: 'Runs the suite under the certify profile and writes a certification bundle (certification/<UTC time>/) that npm run verify-bundle checks offline.',
    usage: 'npm run certify -- [options]',
    options: { project: { type: 'string', multiple: true }, grep: { type: 'string' } },
    describe: { project: 'run only this Playwright project (repeatable); the bundle then says the run was partial', grep: 'run only the tests matching this (e.g. @TOK-ISSUED)' },
    epilogue: 'Exit codes: 0 conformant, 1 not conformant, 2 bad configuration or options, 3 bundle incomplete.',
  });
  const args = [...(values.project ?? []).flatMap((name) => ['--project', name]), ...(values.grep ? ['--grep', values.grep] : [])];
  const started = new Date();
  const run = spawnSync(process.execPath, [playwrightCli, 'test', ...args], { cwd: repoRoot, env: process.env, stdio: 'inherit' });
  const finished = new Date();
  const exitCode = run.status ?? 1;

  const dir = bundleDir(started);
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
  const matrix = existsSync(join(dir, 'conformance.json')) ? (JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as { result?: string; reasons?: string[] }) : {};
  writeFileSync(join(dir, 'configuration.json'), `${JSON.stringify(redactedConfiguration(resolved), null, 2)}\n`);
  const certificate = {
    suite: { version: suiteVersion },
    interface: { title: interfaceInfo.title, version: interfaceInfo.version },
    catalogSha256,
    profile: resolved.config.profile,
    seed: resolved.config.seed,
    runTag: resolved.config.runTag,
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    command: ['npm run certify --', ...args].join(' '),
    exitCode,
    result: matrix.result ?? 'no verdict',
    reasons: matrix.reasons ?? [],
    environment: runEnvironment(resolved.config, resolved.sandbox ? { flavor: resolved.sandbox.env.SANDBOX_FLAVOR ?? 'reference', faults: resolved.sandbox.env.SANDBOX_FAULTS ?? '' } : undefined),
    tools: { playwright: versionOf('@playwright/test/package.json'), allure: versionOf('allure/package.json'), 'allure-playwright': versionOf('allure-playwright/package.json') },
    bundleProblems: problems,
  };
  writeFileSync(join(dir, 'certificate.json'), `${JSON.stringify(certificate, null, 2)}\n`);
  const { manifest, sha256 } = writeManifest(dir);

  console.log(`\nCertification bundle: ${dir}`);
  console.log(`  ${manifest.files.length} files, manifest SHA-256 ${sha256}; verify with: npm run verify-bundle -- ${dir}`);
  console.log(`  Verdict (certify profile): ${certificate.result} (exit ${exitCode})`);
  for (const problem of problems) console.error(`  Bundle incomplete: ${problem}`);
  return problems.length > 0 ? BUNDLE_FAILED : exitCode;
}

process.exitCode = main();
