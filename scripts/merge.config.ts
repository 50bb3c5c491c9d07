import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { ConfigError } from '../runner/config/load-config.ts';
import { resolveRun } from '../runner/config/resolve.ts';
import type { RunConfig } from '../runner/config/run-config.ts';
import { mergedReporters } from '../runner/run-reporters.ts';

// The configuration of `npm run merge-reports -- <folder of the shards' blob reports>` (scripts/merge-reports.ts): the
// suite's own reporters over every shard, so that one matrix, one JUnit file and one set of Allure results judge the
// run. The environment must be the shards' (same PROFILE, target).
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
let run: RunConfig;
try {
  run = resolveRun();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(2);
}

export default defineConfig({ testDir: repoRoot, reporter: mergedReporters(run) });
