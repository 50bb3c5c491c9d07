import { settingsNamedIn } from '../schemas/variables.ts';
import type { RunCost } from './run-facts.ts';
import { citedIds, isCertifying } from '../kit/verdict-marks.ts';
import { failsRun, NOT_PRODUCED_WORDS, type RunVerdict } from './run-verdict.ts';
import {
  outcomeInTest,
  type JudgedRequirement,
  type Profile,
  type RequirementOutcome,
  type TestRecord,
} from './verdicts.ts';

// Control characters XML 1.0 does not allow, even escaped.
// eslint-disable-next-line no-control-regex
const XML_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

const escape = (text: string) =>
  text
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string)
    .replace(XML_FORBIDDEN, '');

/** Outcomes that say what a run left out rather than what the target did: they fail a test only when they fail the run. */
const COVERAGE = new Set<RequirementOutcome>(['not-configured', 'not-exercised']);

/** How an outcome reads in JUnit: a not-configured one names what to set. */
function outcomeWords(outcome: RequirementOutcome, detail: string | undefined): string {
  if (outcome === 'not-produced') return NOT_PRODUCED_WORDS;
  if (outcome !== 'not-configured') return outcome;
  const settings = settingsNamedIn(detail ?? '');
  return settings.length ? `not configured (set ${settings.join(', ')})` : 'not configured';
}

export interface JunitOptions {
  profile: Profile;
  catalog: readonly JudgedRequirement[];
  /** Requirements whose failures a ledger lists as known: reported, not failed (never under certify). */
  known?: ReadonlySet<string>;
  /** The name of the testsuites element ("conformance", "client certification"). */
  name: string;
  /** The run's verdict: a run-level test case named "verdict" fails exactly when its exit code is not 0, with the reasons. */
  run?: RunVerdict;
  /** Each requirement's outcome over the run: not configured or not exercised fails a test only when it fails the run. */
  outcomes?: ReadonlyMap<string, RequirementOutcome>;
  /** What the run cost the target: its request and retry counts are properties of the verdict case. */
  cost?: RunCost;
}

/** What the run-level "verdict" test case says: a judged run's verdict, or why a run has none (not run, not finished). */
export interface RunLevelVerdict {
  profile: string;
  words: string;
  /** The run's exit code; absent for a run that has not ended (a report written at its start). */
  exitCode?: number;
  conformant: boolean;
  reasons: readonly string[];
  /** What is listed with the verdict and fails nothing (notices, the preflight's warnings). */
  notices: readonly string[];
}

/** The run-level test case: passes exactly when the run exits 0; its message is the verdict, its body the reasons. */
function verdictSuite(run: RunLevelVerdict, cost?: RunCost): string {
  const name = `verdict (${run.profile} profile)`;
  const notes = [run.words, ...run.notices];
  const fails = run.exitCode !== 0;
  const failure = fails
    ? `\n    <failure type="verdict" message="${escape(run.words)}">${escape(run.reasons.join('\n'))}</failure>`
    : '';
  const properties = [
    ['profile', run.profile],
    ['exit-code', run.exitCode === undefined ? 'none' : String(run.exitCode)],
    ['conformant', String(run.conformant)],
    ...(cost
      ? [
          ['requests', String(cost.requests)],
          ['retries-after-503', String(cost.retried503 ?? 0)],
          ['retries-after-dropped-connection', String(cost.retriedDropped ?? 0)],
          ['backoff-ms', String(cost.backoffMs ?? 0)],
          ['rate-limit-waits', String(cost.rateLimitWaits)],
          ['rate-limit-wait-ms', String(cost.rateLimitWaitMs)],
        ]
      : []),
  ]
    .map(([k, v]) => `      <property name="${k}" value="${escape(v ?? '')}"/>`)
    .join('\n');
  const body = `  <testcase name="${escape(name)}" classname="verdict" time="0.000">\n    <properties>\n${properties}\n    </properties>${failure}\n    <system-out>${escape(notes.join('\n'))}</system-out>\n  </testcase>`;
  return `<testsuite name="verdict" tests="1" failures="${fails ? 1 : 0}">\n${body}\n</testsuite>`;
}

/** JUnit XML of a run without test results (it ended before any test, or has not ended): its verdict case alone. */
export function runLevelJunit(name: string, run: RunLevelVerdict): string {
  const failures = run.exitCode !== 0 ? 1 : 0;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${escape(name)}" tests="1" failures="${failures}" skipped="0" errors="0">\n${verdictSuite(run)}\n</testsuites>\n`;
}

/**
 * JUnit XML from the tests' requirement marks, so that CI reads the same verdict as the matrix: a test fails when a
 * requirement it cites ended in a way that fails the run under the profile (reporters/run-verdict.ts: a check the
 * target prevented is a failure of the gate, whatever Playwright's own status for the test; under certify a MUST not
 * configured fails too, naming what to set), is skipped with the reason (and the variable to set) when the
 * configuration left it out, and passes otherwise. Each cited requirement is a property; warnings and observations go
 * to system-out. The run's own verdict is one more test case, "verdict", failed exactly when the exit code is not 0.
 */
export function junitXml(tests: readonly TestRecord[], options: JunitOptions): string {
  const byId = new Map(options.catalog.map((r) => [r.id, r]));
  const projects = [...new Set(tests.map((t) => t.project))];
  let failures = 0;
  let skipped = 0;
  const suites = projects.map((project) => {
    const cases = tests
      .filter((t) => t.project === project)
      .map((test) => {
        const rows = citedIds(test.annotations).flatMap((id) => {
          const req = byId.get(id);
          return req ? [{ req, ...outcomeInTest(req, test) }] : [];
        });
        const overall = (r: (typeof rows)[number]) => options.outcomes?.get(r.req.id) ?? r.outcome;
        const failing = rows.filter(
          (r) =>
            failsRun(r.req.level, r.outcome, options.profile) &&
            !(COVERAGE.has(r.outcome) && !failsRun(r.req.level, overall(r), options.profile)) &&
            !(!isCertifying(options.profile) && options.known?.has(r.req.id)),
        );
        const lines = (list: typeof rows) =>
          list.map(
            (r) =>
              `${r.req.id} (${r.req.level}, part ${r.req.part}) ${outcomeWords(r.outcome, r.detail)}${r.detail ? `: ${r.detail}` : ''}`,
          );
        const properties = rows
          .map((r) => `      <property name="requirement" value="${escape(r.req.id)}"/>`)
          .join('\n');
        const others = lines(rows.filter((r) => !failing.includes(r) && r.outcome !== 'passed'));
        let verdict = '';
        if (failing.length > 0) {
          failures += 1;
          const type =
            (['failed', 'blocked', 'warning', 'not-configured', 'not-exercised'] as const).find((o) =>
              failing.some((r) => r.outcome === o),
            ) ?? 'failed';
          const message = failing.map((r) => `${r.req.id} ${outcomeWords(r.outcome, r.detail)}`).join('; ');
          const body = [
            ...failing.map(
              (r) => `${r.req.id} (${r.req.level}, part ${r.req.part}): ${r.req.statement}\n${r.detail ?? ''}`,
            ),
            test.error ?? '',
          ]
            .filter(Boolean)
            .join('\n\n');
          verdict = `\n    <failure type="${type}" message="${escape(message)}">${escape(body)}</failure>`;
        } else if (
          test.status === 'skipped' ||
          rows.every((r) => COVERAGE.has(r.outcome) || r.outcome === 'not-produced')
        ) {
          skipped += 1;
          const row = rows.find((r) => r.outcome !== 'passed' && r.detail);
          const reason = row
            ? `${outcomeWords(row.outcome, row.detail)}: ${row.detail}`
            : (test.annotations.find((a) => a.type === 'skip')?.description ?? 'skipped');
          verdict = `\n    <skipped message="${escape(reason)}"/>`;
        }
        const out = others.length ? `\n    <system-out>${escape(others.join('\n'))}</system-out>` : '';
        const classname = test.location.replace(/:\d+$/, '');
        const time = ((test.durationMs ?? 0) / 1000).toFixed(3);
        return `  <testcase name="${escape(test.title)}" classname="${escape(classname)}" time="${time}">\n    <properties>\n${properties}\n    </properties>${verdict}${out}\n  </testcase>`;
      });
    const inProject = tests.filter((t) => t.project === project);
    return `<testsuite name="${escape(project)}" tests="${inProject.length}">\n${cases.join('\n')}\n</testsuite>`;
  });
  if (options.run) {
    suites.push(verdictSuite(options.run, options.cost));
    if (options.run.exitCode !== 0) failures += 1;
  }
  const count = tests.length + (options.run ? 1 : 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${escape(options.name)}" tests="${count}" failures="${failures}" skipped="${skipped}" errors="0">\n${suites.join('\n')}\n</testsuites>\n`;
}
