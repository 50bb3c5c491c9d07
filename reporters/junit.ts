import type { Requirement } from '../catalog/catalog.ts';
import { citedIds } from '../harness/verdict-marks.ts';
import { outcomeInTest, type JudgedRequirement, type Profile, type RequirementOutcome, type TestRecord } from './verdicts.ts';

// Control characters XML 1.0 does not allow, even escaped.
// eslint-disable-next-line no-control-regex
const XML_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

const escape = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string).replace(XML_FORBIDDEN, '');

/** Whether one requirement's outcome in a test fails the run under the profile: the same rule as the matrix's verdict. */
function failsRun(level: Requirement['level'], outcome: RequirementOutcome, profile: Profile): boolean {
  if (outcome === 'failed') return level !== 'INFO';
  if (outcome === 'blocked') return level === 'MUST' || (profile === 'certify' && level === 'SHOULD');
  if (outcome === 'warning') return profile === 'certify';
  return false;
}

export interface JunitOptions {
  profile: Profile;
  catalog: readonly JudgedRequirement[];
  /** Requirements whose failures a ledger lists as known: reported, not failed (never under certify). */
  known?: ReadonlySet<string>;
  /** The name of the testsuites element ("conformance", "client certification"). */
  name: string;
}

/**
 * JUnit XML from the tests' requirement marks, so that CI reads the same verdict as the matrix: a test fails when a
 * requirement it cites failed or was blocked in a way that fails the run under the profile (a check the target
 * prevented is a failure of the gate, whatever Playwright's own status for the test), is skipped with the reason when
 * the configuration left it out, and passes otherwise. Each cited requirement is a property; warnings and observations
 * go to system-out.
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
        const failing = rows.filter((r) => failsRun(r.req.level, r.outcome, options.profile) && !(options.profile !== 'certify' && options.known?.has(r.req.id)));
        const lines = (list: typeof rows) => list.map((r) => `${r.req.id} (${r.req.level}, part ${r.req.part}) ${r.outcome}${r.detail ? `: ${r.detail}` : ''}`);
        const properties = rows.map((r) => `      <property name="requirement" value="${escape(r.req.id)}"/>`).join('\n');
        const others = lines(rows.filter((r) => !failing.includes(r) && r.outcome !== 'passed'));
        let verdict = '';
        if (failing.length > 0) {
          failures += 1;
          const type = failing.some((r) => r.outcome === 'failed') ? 'failed' : failing.some((r) => r.outcome === 'blocked') ? 'blocked' : 'warning';
          const message = failing.map((r) => `${r.req.id} ${r.outcome}`).join('; ');
          const body = [...failing.map((r) => `${r.req.id} (${r.req.level}, part ${r.req.part}): ${r.req.statement}\n${r.detail ?? ''}`), test.error ?? ''].filter(Boolean).join('\n\n');
          verdict = `\n    <failure type="${type}" message="${escape(message)}">${escape(body)}</failure>`;
        } else if (test.status === 'skipped' || rows.every((r) => r.outcome === 'not-configured' || r.outcome === 'not-exercised')) {
          skipped += 1;
          const reason = rows.find((r) => r.detail)?.detail ?? test.annotations.find((a) => a.type === 'skip')?.description ?? 'skipped';
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
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${escape(options.name)}" tests="${tests.length}" failures="${failures}" skipped="${skipped}" errors="0">\n${suites.join('\n')}\n</testsuites>\n`;
}
