import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { fault } from '../sandbox/faults.ts';
import { childEnv, freePort, playwrightCli, runCli } from './evidence-harness.ts';

// The exit code CI reads, from the real CLI against the embedded sandbox, on the checks of one SHOULD requirement.
const SHOULD_FAULT = 'token-no-cache-control';
const SUBSET = ['--project', 'auth', '--grep', `@${fault(SHOULD_FAULT).requirement}`];

interface Cell {
  profile: 'gate' | 'certify-strict';
  faults?: string;
  exit: number;
  /** What the matrix must give as the reason, when the run fails. */
  reason?: RegExp;
}

// Each cell is a whole CLI run with its own sandbox; the self-tests share the machine with the proof run.
test.describe.configure({ timeout: 240_000 });

// The exit code follows the profile through the real CLI, on one pair of runs where only PROFILE differs: a SHOULD
// failure ends gate with 0 and certify-strict with 1 (certify lists it: docs/verdicts.md). Every profile × outcome
// combination is judged by the reporter's units (evidence-units.spec.ts, harness.spec.ts, verdict-table.spec.ts);
// a MUST failure ends gate with 1 in the kill matrix (each fault's run), a clean sandbox exits 0 under gate in
// run-reports.spec.ts and under certify in evidence-bundle.spec.ts.
const cells: Cell[] = [
  { profile: 'gate', faults: SHOULD_FAULT, exit: 0 },
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
