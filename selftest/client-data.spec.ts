import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { JSONReport, JSONReportSuite, JSONReportTestResult } from '@playwright/test/reporter';
import { EXAMPLE_EMAIL_DOMAINS, FICTIONAL_PHONE, RUN_VARYING_MEMBERS } from '../kit/builders/client-values.ts';
import {
  fullAssessment,
  fullCaseUpdate,
  fullDocumentVerification,
  fullStepUp,
  stepUp,
  type BodyContext,
} from '../kit/builders/identity-bodies.ts';
import { seededFaker } from '../kit/builders/seeded-faker.ts';
import { childEnv, freePort, playwrightCli, readJson, runCli } from './evidence-harness.ts';

// Data a real client sends (docs/traffic.md): faker-drawn values, recipients that are never real, and runs of one SEED
// and RUN_TAG that send the same bodies (the value classes themselves: value-population.spec.ts).

const ref = { inquiryId: 'inq-run1-abc', authenticationId: 'CASE-1' };
const context = (seed: number): BodyContext => ({
  faker: seededFaker(seed, 'client data'),
  runTag: 'run1',
  templates: {},
});

test('the builders fill every shown member the way an integration would: example-domain emails, fictional phone numbers, dotted IPv4, several run-tagged tags', () => {
  for (let seed = 1; seed <= 5; seed += 1) {
    const ctx = context(seed);
    const assessment = fullAssessment(ctx, 'default');
    expect(assessment.userIp, 'userIp in dotted decimal').toMatch(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/);
    expect(assessment.userIp.split('.').every((octet) => Number(octet) <= 255)).toBe(true);
    expect(Number.isNaN(Date.parse(assessment.creationDateTime)), 'creationDateTime a date-time').toBe(false);
    expect(assessment.inquiryId).toContain('run1');
    expect(fullDocumentVerification(ctx, 'docv').phoneNumber).toMatch(FICTIONAL_PHONE);
    const update = fullCaseUpdate(ctx, ref, 'default') as unknown as { tags: string[] };
    expect(update.tags.length, 'several tags per update').toBeGreaterThanOrEqual(2);
    for (const tag of update.tags) expect(tag, 'a tag keeps the run tag').toContain('-run1-');
    const email = fullStepUp(ctx, ref, 'email').email ?? '';
    expect(EXAMPLE_EMAIL_DOMAINS, `${email} is on a reserved example domain`).toContain(email.split('@')[1]);
    expect(stepUp(ctx, ref, 'phone').phoneNumber).toMatch(FICTIONAL_PHONE);
  }
});

/** Every request body a run recorded (the exchanges attached to each test), per test, the varying members masked. */
function sentBodies(resultsFile: string): Array<[test: string, bodies: string[]]> {
  const mask = (text: string): string => {
    try {
      return JSON.stringify(JSON.parse(text), (key, value: unknown) =>
        RUN_VARYING_MEMBERS.includes(key) ? '(varies)' : value,
      );
    } catch {
      return text;
    }
  };
  const exchanges = (attachments: JSONReportTestResult['attachments'] = []) =>
    attachments
      .filter((a) => a.name.startsWith('exchanges'))
      .flatMap(
        (a) =>
          JSON.parse(Buffer.from(a.body ?? '', 'base64').toString('utf8')) as Array<{ request: { body?: string } }>,
      );
  // Requests sent at once are recorded as they are answered: compared as a sorted list.
  const visit = (suite: JSONReportSuite, path: string[]): Array<[string, string[]]> => [
    ...suite.specs.flatMap((spec) =>
      spec.tests.map((t): [string, string[]] => [
        [...path, spec.title, t.projectName].join(' › '),
        exchanges(t.results.at(-1)?.attachments)
          .map((e) => mask(e.request.body ?? ''))
          .sort(),
      ]),
    ),
    ...(suite.suites ?? []).flatMap((inner) => visit(inner, [...path, inner.title])),
  ];
  const report = readJson<JSONReport>(resultsFile);
  return report.suites.flatMap((suite) => visit(suite, [])).sort((a, b) => a[0].localeCompare(b[0]));
}

test('two runs of one SEED and RUN_TAG against the embedded sandbox send the same request bodies, but for the members docs/traffic.md lists; each, filtered and passing, its REPORTS_DIR and SANDBOX_FLAVOR from .env, says it is partial, exits 0 and prints a short console', async () => {
  test.setTimeout(240_000);
  const work = mkdtempSync(join(tmpdir(), 'client-data-'));
  try {
    // The two runs are independent: started together, they overlap where each waits.
    const runs = await Promise.all(
      ['first', 'second'].map(async (name) => {
        const [port, webhook] = [await freePort(), await freePort()];
        const reports = join(work, name);
        const env = childEnv(work, {
          SEED: '4242',
          RUN_TAG: 'samerun1',
          SANDBOX_PORT: String(port),
          WEBHOOK_LISTEN: `127.0.0.1:${webhook}`,
          TEST_RESULTS_DIR: join(reports, 'test-results'),
          CONFORMANCE_WORKERS: '2',
        });
        // Settings of a .env take effect as the environment's do: those it sets are left out of the environment.
        delete env['REPORTS_DIR'];
        writeFileSync(
          (env['ENV_FILE'] = join(work, `${name}.env`)),
          `REPORTS_DIR=${reports}\nSANDBOX_FLAVOR=alternative\n`,
        );
        const run = await runCli(
          process.execPath,
          [playwrightCli, 'test', '--grep', '@GEN-OPTIONAL-MEMBERS|@CU-TAGS-APPEND|@SU-CHANNELS|@CU-INQUIRY-MAPS'],
          env,
          200_000,
        );
        expect(run.code, `${name} run:\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`).toBe(0);
        const conformance = join(reports, 'conformance.json');
        const { result, environment } = readJson<{ result: string; environment: Record<string, string> }>(conformance);
        expect(environment['target']).toBe('embedded sandbox (alternative flavor)');
        const [, exercised, total] = /^partial run: (\d+) of (\d+) MUST exercised, no failures$/.exec(result) ?? [];
        expect(Number(exercised), result).toBeGreaterThan(0);
        expect(Number(exercised), result).toBeLessThan(Number(total));
        // A green run's console: the start, a line per project, the summary; no line per test (CONFORMANCE_VERBOSE=1 has those).
        expect(run.stdout.trimEnd().split('\n').length, run.stdout).toBeLessThanOrEqual(40);
        expect(run.stdout).toMatch(/^ {2}identity +\d+ tests?: \d+ passed$/m);
        expect(run.stdout).not.toMatch(/✓|not conformant|Verdict \(gate profile\): conformant/);
        return sentBodies(join(reports, 'results.json'));
      }),
    );
    const [first = [], second = []] = runs;
    expect(first.filter(([, bodies]) => bodies.length > 0).length, 'tests that sent bodies').toBeGreaterThan(5);
    expect(second).toEqual(first);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
