import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { requirements } from '../catalog/catalog.ts';
import { WEBHOOK_FLOWS } from '../runner/config/projects.ts';
import { childEnv, playwrightCli, runCli } from './evidence-harness.ts';

// Requirement IDs are tags, not words of the title: `--grep @ID` selects exactly the tests that cite the ID.
interface Listed {
  title: string;
  tags: string[];
  project: string;
}

async function list(args: string[]): Promise<Listed[]> {
  const work = mkdtempSync(join(tmpdir(), 'tags-'));
  try {
    const output = join(work, 'list.json');
    const run = await runCli(
      process.execPath,
      [playwrightCli, 'test', '--list', '--reporter=json', ...args],
      childEnv(work, { PLAYWRIGHT_JSON_OUTPUT_NAME: output }),
    );
    expect(run.code, run.stderr).toBe(0);
    type Suite = {
      specs?: Array<{ title: string; tags?: string[]; tests: Array<{ projectName: string }> }>;
      suites?: Suite[];
    };
    const found: Listed[] = [];
    const visit = (suite: Suite) => {
      for (const spec of suite.specs ?? [])
        for (const { projectName } of spec.tests)
          found.push({ title: spec.title, tags: spec.tags ?? [], project: projectName });
      for (const inner of suite.suites ?? []) visit(inner);
    };
    for (const suite of (JSON.parse(readFileSync(output, 'utf8')) as { suites: Suite[] }).suites) visit(suite);
    return found;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

test('titles carry no requirement ID, every test has tags, --grep @CU-TAGS-APPEND selects exactly the tests tagged with it, and the webhooks project has WEBHOOK_FLOWS tests', async () => {
  const all = await list([]);
  expect(all.length).toBeGreaterThan(200);
  const ids = requirements.map((r) => r.id);
  expect(
    all.filter((t) => ids.some((id) => new RegExp(`\\b${id}\\b`).test(t.title))).map((t) => t.title),
    'titles naming an ID',
  ).toEqual([]);
  expect(
    all.filter((t) => t.tags.length === 0).map((t) => t.title),
    'tests without a requirement tag',
  ).toEqual([]);
  expect(
    ids.filter((id) => ids.some((other) => other !== id && other.startsWith(`${id}`) && other[id.length] === '-')),
    'IDs that are a prefix of another',
  ).toEqual([]);
  // The JSON listing gives tags without their @.
  const tagged = all.filter((t) => t.tags.map((tag) => tag.replace(/^@/, '')).includes('CU-TAGS-APPEND'));
  const selected = await list(['--grep', '@CU-TAGS-APPEND']);
  expect(selected.map((t) => t.title).sort()).toEqual(tagged.map((t) => t.title).sort());
  expect(selected.length).toBeGreaterThan(0);
  // runner/config/projects.ts gives the webhook flows a worker each, up to WEBHOOK_FLOWS: one per test of the project.
  expect(all.filter((t) => t.project === 'webhooks').length, 'the tests of the webhooks project').toBe(WEBHOOK_FLOWS);
});
