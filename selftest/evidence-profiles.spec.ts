import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { fault } from '../sandbox/faults.ts';
import { childEnv, freePort, playwrightCli, runCli } from './evidence-harness.ts';

// PROFILE reaches the exit code CI reads, through the real CLI against the embedded sandbox: a SHOULD failure ends
// certify-strict with 1. Every profile × outcome is verdict-table.spec.ts's (the reporter as Playwright feeds it); a
// clean sandbox exits 0 under gate in run-reports.spec.ts, certify's exit follows its verdict in evidence-bundle.spec.ts.
const SHOULD_FAULT = 'token-no-cache-control';

test(`certify-strict profile against the ${fault(SHOULD_FAULT).requirement} fault ${SHOULD_FAULT}: exit 1`, async () => {
  test.setTimeout(240_000);
  const work = mkdtempSync(join(tmpdir(), 'evidence-profile-'));
  const reportsDir = join(work, 'reports');
  const env = childEnv(work, {
    PROFILE: 'certify-strict',
    SANDBOX_PORT: String(await freePort()),
    WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`,
    REPORTS_DIR: reportsDir,
    TEST_RESULTS_DIR: join(work, 'test-results'),
    SANDBOX_FAULTS: SHOULD_FAULT,
  });
  try {
    const grep = ['--project', 'auth', '--grep', `@${fault(SHOULD_FAULT).requirement}`];
    const run = await runCli(process.execPath, [playwrightCli, 'test', ...grep], env);
    const output = `${run.stdout}\n${run.stderr}`;
    const matrix = JSON.parse(readFileSync(join(reportsDir, 'conformance.json'), 'utf8')) as {
      profile: string;
      reasons: string[];
    };
    expect(matrix.profile).toBe('certify-strict');
    expect(run.code, `output:\n${output.slice(-3000)}`).toBe(1);
    expect(matrix.reasons).toContainEqual(
      expect.stringMatching(/^SHOULD requirements warned \(certify-strict profile\): TOK-NO-STORE/),
    );
    expect(output, 'the summary table is printed').toContain('Conformance by requirement');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
