import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { requirements } from '../catalog/catalog.ts';
import { WEBHOOK_FLOWS } from '../runner/config/projects.ts';
import { childEnv, playwrightCli, runCli } from './evidence-harness.ts';

// Requirement IDs are tags, not words of the title: `--grep @ID` selects exactly the tests that cite the ID. Playwright
// greps a test's title and its tags, so that holds when no title names an ID and no ID is a prefix of another: one
// listing of the suite (about 2 s of a child process) shows both, without a second listing under --grep.
interface Suite {
  specs?: Array<{ title: string; tags?: string[]; tests: Array<{ projectName: string }> }>;
  suites?: Suite[];
}

test('titles carry no requirement ID, every test has tags, no ID is a prefix of another (so --grep @ID selects exactly its tests), and the webhooks project has WEBHOOK_FLOWS tests', async () => {
  const all: Array<{ title: string; tags: string[]; project: string }> = [];
  const output = test.info().outputPath('list.json');
  const env = childEnv(test.info().outputPath(), { PLAYWRIGHT_JSON_OUTPUT_NAME: output });
  const run = await runCli(process.execPath, [playwrightCli, 'test', '--list', '--reporter=json'], env);
  expect(run.code, run.stderr).toBe(0);
  const visit = (suite: Suite) => {
    for (const spec of suite.specs ?? [])
      for (const { projectName } of spec.tests)
        all.push({ title: spec.title, tags: spec.tags ?? [], project: projectName });
    (suite.suites ?? []).forEach(visit);
  };
  (JSON.parse(readFileSync(output, 'utf8')) as { suites: Suite[] }).suites.forEach(visit);
  expect(all.length).toBeGreaterThan(200);
  const ids = requirements.map((r) => r.id);
  const offenders = {
    'titles naming an ID': all.filter((t) => ids.some((id) => t.title.includes(id))).map((t) => t.title),
    'tests without a requirement tag': all.filter((t) => t.tags.length === 0).map((t) => t.title),
    'IDs that are a prefix of another': ids.filter((id) => ids.some((other) => other !== id && other.startsWith(id))),
  };
  for (const [what, found] of Object.entries(offenders)) expect(found, what).toEqual([]);
  // The JSON listing gives tags without their @.
  expect(all.some((t) => t.tags.map((tag) => tag.replace(/^@/, '')).includes('CU-TAGS-APPEND'))).toBe(true);
  // runner/config/projects.ts gives the webhook flows a worker each, up to WEBHOOK_FLOWS: one per test of the project.
  expect(all.filter((t) => t.project === 'webhooks').length, 'the tests of the webhooks project').toBe(WEBHOOK_FLOWS);
});
