import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { fault } from '../sandbox/faults.ts';
import { childEnv, freePort, playwrightCli, runCli } from './evidence-harness.ts';

// The exit code CI reads, from the real CLI against the embedded sandbox, on the token checks only (fast; one
// failure is enough to decide, and spares the worker restarts that follow each failed test).
// The clean sandbox under the certify profile is the certification run of evidence-bundle.spec.ts.
const MUST_FAULT = 'token-response-not-json';
const SHOULD_FAULT = 'token-no-cache-control';
const SUBSET = [
  '--project',
  'auth',
  '--grep',
  `${fault(MUST_FAULT).requirement}|${fault(SHOULD_FAULT).requirement}`,
  '--max-failures',
  '1',
];

interface Cell {
  profile: 'gate' | 'nightly' | 'certify-strict';
  faults?: string;
  exit: number;
  /** What the matrix must give as the reason, when the run fails. */
  reason?: RegExp;
}

// Each cell is a whole CLI run with its own sandbox; the self-tests share the machine with the proof run.
test.describe.configure({ timeout: 240_000 });

// Each profile through the real CLI on the cells where the profiles differ: a SHOULD failure ends gate and nightly with
// 0 and certify-strict with 1 (certify lists it: docs/verdicts.md); a MUST failure ends gate and nightly with 1. Every profile × outcome combination is judged by
// the reporter's units (evidence-units.spec.ts); a clean sandbox exits 0 under gate in honest-gate.spec.ts and under
// certify in evidence-bundle.spec.ts.
const cells: Cell[] = [
  { profile: 'gate', faults: SHOULD_FAULT, exit: 0 },
  { profile: 'gate', faults: MUST_FAULT, exit: 1, reason: /^MUST requirements failed: .*TOK-ISSUED/ },
  { profile: 'nightly', faults: SHOULD_FAULT, exit: 0 },
  { profile: 'nightly', faults: MUST_FAULT, exit: 1, reason: /^MUST requirements failed: .*TOK-ISSUED/ },
  {
    profile: 'certify-strict',
    faults: SHOULD_FAULT,
    exit: 1,
    reason: /^SHOULD requirements warned \(certify-strict profile\): TOK-NO-STORE/,
  },
];

for (const cell of cells) {
  const sandbox = cell.faults ? `the ${fault(cell.faults).requirement} fault ${cell.faults}` : 'the clean sandbox';
  test(`${cell.profile} profile against ${sandbox}: exit ${cell.exit}`, async () => {
    const work = mkdtempSync(join(tmpdir(), 'evidence-profile-'));
    const reportsDir = join(work, 'reports');
    const env = childEnv(work, {
      PROFILE: cell.profile,
      SANDBOX_PORT: String(await freePort()),
      WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`,
      REPORTS_DIR: reportsDir,
      TEST_RESULTS_DIR: join(work, 'test-results'),
      ...(cell.faults ? { SANDBOX_FAULTS: cell.faults } : {}),
    });
    try {
      const run = await runCli(process.execPath, [playwrightCli, 'test', ...SUBSET], env);
      const output = `${run.stdout}\n${run.stderr}`;
      const matrix = JSON.parse(readFileSync(join(reportsDir, 'conformance.json'), 'utf8')) as {
        profile: string;
        reasons: string[];
      };
      expect(matrix.profile).toBe(cell.profile);
      expect(run.code, `exit code of the ${cell.profile} run; output:\n${output.slice(-3000)}`).toBe(cell.exit);
      if (cell.reason) expect(matrix.reasons).toContainEqual(expect.stringMatching(cell.reason));
      if (cell.exit === 0) expect(matrix.reasons).toEqual([]);
      if (cell.profile !== 'certify-strict')
        expect(matrix.reasons.join('\n'), 'only certify-strict fails on a SHOULD').not.toContain('SHOULD');
      expect(output, 'the summary table is printed').toContain('Conformance by requirement');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
}
