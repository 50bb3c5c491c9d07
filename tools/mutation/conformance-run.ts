import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../../runner/http/free-port.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The test command of npm run mutate: one whole conformance run under the certify-strict profile (a SHOULD broken by a
// mutant counts too) against the embedded sandbox carrying the active mutant, on ports of its own, so that two
// mutants run side by side. Exit code 0: the mutant survived; any other: the suite caught it. The run stops at its
// first failed test (--max-failures=1): one is enough to kill a mutant, and a survivor runs every test anyway.
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const work = mkdtempSync(join(tmpdir(), 'mutant-run-'));
const envFile = join(work, 'empty.env');
writeFileSync(envFile, '');
const run = spawnSync(
  process.execPath,
  [join(repoRoot, 'node_modules/@playwright/test/cli.js'), 'test', '--max-failures=1'],
  {
    cwd: repoRoot,
    env: {
      // eslint-disable-next-line no-restricted-properties -- the environment given to a child process
      ...process.env,
      ENV_FILE: envFile,
      PROFILE: 'certify-strict',
      SANDBOX_PORT: String(await freePort()),
      WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`,
      WEBHOOK_WAIT_MS: '1500',
      REPORTS_DIR: join(work, 'reports'),
      TEST_RESULTS_DIR: join(work, 'test-results'),
      CONFORMANCE_QUIET: '1',
    },
    stdio: 'ignore',
  },
);
rmSync(work, { recursive: true, force: true });
process.exit(run.status ?? 1);
