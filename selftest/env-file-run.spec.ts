import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { STATEMENT_FILE } from '../scripts/evidence/statement.ts';
import { childEnv, freePort, readText, runCli, TS_NODE } from './evidence-harness.ts';

// The variables whose effect lies outside the run's resolved configuration, set in .env alone (the per-variable proof
// that every variable resolves from .env is selftest/env-file.spec.ts): one certification run of one check, whose .env
// moves the reports (REPORTS_DIR), lists every test (CONFORMANCE_VERBOSE), skips the preflight (PREFLIGHT=0, with a
// route the preflight would refuse: selftest/doctor.spec.ts) and serves the gateway flavor (SANDBOX_FLAVOR), which
// the statement and every report must name.

test('a run whose .env sets SANDBOX_FLAVOR, REPORTS_DIR, CONFORMANCE_VERBOSE and PREFLIGHT does each, and its statement and reports name the flavor that ran', async () => {
  test.setTimeout(240_000);
  const work = mkdtempSync(join(tmpdir(), 'env-file-run-'));
  try {
    const reportsDir = join(work, 'my-reports');
    const certificationDir = join(work, 'my-certification');
    const envFile = join(work, 'run.env');
    writeFileSync(
      envFile,
      [
        'SANDBOX_FLAVOR=gateway',
        `REPORTS_DIR=${reportsDir}`,
        `TEST_RESULTS_DIR=${join(work, 'test-results')}`,
        `CERTIFICATION_DIR=${certificationDir}`,
        'CONFORMANCE_VERBOSE=1',
        'PREFLIGHT=0',
        'ROUTE_STEP_UP=POST /nowhere',
        `SANDBOX_PORT=${await freePort()}`,
        `WEBHOOK_LISTEN=127.0.0.1:${await freePort()}`,
        '',
      ].join('\n'),
    );
    const title = 'the identity token endpoint issues a token';
    // The child's environment leaves REPORTS_DIR to the .env: the environment would win over it.
    const { REPORTS_DIR: _reportsDir, ...env } = childEnv(work, { ENV_FILE: envFile });
    // npm run certify as its npm script starts it (node --import tsx scripts/certify.ts: cli.spec.ts).
    const run = await runCli(TS_NODE[0], [...TS_NODE.slice(1), 'scripts/certify.ts', '--grep', title], env);
    const output = `${run.stdout}\n${run.stderr}`;
    // A certification of one check is partial: not conformant, exit 1, with its bundle written.
    expect(run.code, output.slice(-3000)).toBe(1);
    expect(output, 'no preflight ran (it would have refused ROUTE_STEP_UP)').not.toContain('Preflight');
    expect(run.stdout, "Playwright's list: the test's own line").toMatch(new RegExp(`✓ .*${title}`));

    const flavor = 'embedded sandbox (gateway flavor)';
    for (const name of ['conformance.md', 'conformance.json', 'junit.xml', 'results.json'])
      expect(existsSync(join(reportsDir, name)), `${name} in REPORTS_DIR`).toBe(true);
    const matrix = JSON.parse(readText(join(reportsDir, 'conformance.json'))) as {
      environment: Record<string, string>;
    };
    expect(matrix.environment['target']).toBe(flavor);
    expect(matrix.environment['identity base URL']).toContain('/gw/identity-proofing');
    expect(readText(join(reportsDir, 'conformance.md'))).toContain(flavor);

    const [bundle] = readdirSync(certificationDir);
    expect(bundle, 'a bundle in CERTIFICATION_DIR').toBeDefined();
    const certificate = JSON.parse(readText(join(certificationDir, bundle ?? '', 'certificate.json'))) as {
      environment: Record<string, string>;
    };
    expect(certificate.environment['target']).toBe(flavor);
    const envelope = JSON.parse(readText(join(certificationDir, bundle ?? '', STATEMENT_FILE))) as { payload: string };
    const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as {
      predicate: { environment: Record<string, string>; configuration: Array<{ name: string; value?: string }> };
    };
    expect(statement.predicate.environment['target'], 'the signed statement').toBe(flavor);
    expect(statement.predicate.configuration.find((v) => v.name === 'SANDBOX_FLAVOR')?.value).toBe('gateway');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
