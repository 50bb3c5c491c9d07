import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogSha256, interfaceInfo } from '../catalog/catalog.ts';
import { escapeHtml } from './html-text.ts';
import { runLevelJunit } from './junit.ts';
import { code, inline, shownValue, wrap } from './markdown-text.ts';

/** Every file a conformance run writes its verdict to; the Allure results are a folder of them. */
export interface ReportFiles {
  /** REPORTS_DIR. */
  dir: string;
  markdown: string;
  json: string;
  html: string;
  junit: string;
  /** Playwright's JSON report. */
  results: string;
  allureResults: string;
}

export function reportFiles(reportsDir: string, allureResultsDir: string): ReportFiles {
  return {
    dir: reportsDir,
    markdown: join(reportsDir, 'conformance.md'),
    json: join(reportsDir, 'conformance.json'),
    html: join(reportsDir, 'conformance.html'),
    junit: join(reportsDir, 'junit.xml'),
    results: join(reportsDir, 'results.json'),
    allureResults: allureResultsDir,
  };
}

/** What every report says of a run that has no verdict of its requirements: one not finished, or one that ended before any test. */
interface UnjudgedRun {
  /** "not finished", "not run: configuration". */
  words: string;
  profile: string;
  /** Why no test ran, one line each; what a run not finished may be doing. */
  reasons: string[];
  /** The exit code of a run that ended; absent for one not finished. */
  exitCode?: number;
  environment: Record<string, string>;
  /** When the run started (not finished) or ended (not run). */
  at: string;
}

export const NOT_FINISHED = 'not finished';
export const NOT_RUN = 'not run: configuration';

/**
 * At a run's start, each report it will write says so: "not finished", in place of an earlier run's verdict, so that
 * a run that crashes or is killed leaves no verdict that is not its own. Its reporters replace them when it ends.
 */
export function markUnfinished(
  files: ReportFiles,
  run: { profile: string; environment: Record<string, string>; startedAt: string },
): void {
  writeUnjudged(files, {
    words: NOT_FINISHED,
    profile: run.profile,
    reasons: [
      `the run started ${run.startedAt} and has not written its verdict: it is still running, or it stopped before its end (killed, or crashed)`,
    ],
    environment: run.environment,
    at: run.startedAt,
  });
}

/**
 * A run that ended before any test (bad configuration, a preflight problem, an embedded sandbox that cannot start):
 * its own verdict, "not run: configuration", with each problem and the exit code, in every report it writes.
 */
export function writeNotRun(
  files: ReportFiles,
  run: { profile: string; environment: Record<string, string>; problems: string[]; exitCode: number },
): void {
  writeUnjudged(files, {
    words: NOT_RUN,
    profile: run.profile,
    reasons: run.problems,
    exitCode: run.exitCode,
    environment: run.environment,
    at: new Date().toISOString(),
  });
}

function writeUnjudged(files: ReportFiles, run: UnjudgedRun): void {
  mkdirSync(files.dir, { recursive: true });
  const ended = run.exitCode !== undefined;
  const json = {
    interface: interfaceInfo,
    catalogSha256,
    profile: run.profile,
    environment: run.environment,
    ...(ended ? { finishedAt: run.at } : { startedAt: run.at }),
    result: run.words,
    reasons: run.reasons,
    // A run that ended before its tests states its verdict; one not finished states none (scripts/evidence/stated-verdict.ts).
    ...(ended
      ? {
          verdict: {
            profile: run.profile,
            word: 'not run',
            words: run.words,
            exitCode: run.exitCode,
            conformant: false,
            warnings: [],
            notProduced: [],
            notConfigured: { requirements: [], set: [] },
            notExercised: [],
            uncovered: [],
            known: [],
            notices: [],
          },
        }
      : {}),
    requirements: [],
  };
  writeFileSync(files.json, `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(files.markdown, unjudgedMarkdown(run));
  writeFileSync(files.html, unjudgedHtml(run));
  writeFileSync(
    files.junit,
    runLevelJunit(`${interfaceInfo.title} ${interfaceInfo.version} conformance`, {
      profile: run.profile,
      words: run.words,
      ...(ended ? { exitCode: run.exitCode } : {}),
      conformant: false,
      reasons: run.reasons,
      notices: [],
    }),
  );
  // Playwright's JSON report, as its reporter shapes a run without tests, with the verdict beside it.
  const results = {
    config: {},
    suites: [],
    errors: run.reasons.map((message) => ({ message: `${run.words}: ${message}` })),
    stats: { startTime: run.at, duration: 0, expected: 0, skipped: 0, unexpected: 0, flaky: 0 },
    conformance: { result: run.words, ...(ended ? { exitCode: run.exitCode } : {}), reasons: run.reasons },
  };
  writeFileSync(files.results, `${JSON.stringify(results, null, 2)}\n`);
  writeAllureVerdict(files.allureResults, run);
}

function unjudgedMarkdown(run: UnjudgedRun): string {
  const exit = run.exitCode === undefined ? '' : ` Exit code ${run.exitCode}: no test was run.`;
  return [
    `# Conformance matrix: ${inline(interfaceInfo.title)} ${inline(interfaceInfo.version)}`,
    '',
    ...wrap(
      `Result: **${inline(run.words)}** (profile ${inline(run.profile)}), ${run.at}.${exit} Catalog SHA-256 ${code(catalogSha256)}.`,
      300,
    ),
    '',
    ...run.reasons.flatMap((reason) =>
      wrap(`- ${run.exitCode === undefined ? '' : 'Problem: '}${inline(reason)}`, 300, '  '),
    ),
    '',
    ...Object.entries(run.environment).flatMap(([k, v]) => wrap(`- ${inline(k)}: ${shownValue(v)}`, 300, '  ')),
    '',
  ].join('\n');
}

function unjudgedHtml(run: UnjudgedRun): string {
  const title = `Conformance matrix: ${interfaceInfo.title} ${interfaceInfo.version}`;
  const exit = run.exitCode === undefined ? '' : ` Exit code ${run.exitCode}: no test was run.`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>
<h1>${escapeHtml(title)}</h1>
<p id="result">Result: <b>${escapeHtml(run.words)}</b> (profile ${escapeHtml(run.profile)}), ${escapeHtml(run.at)}.${exit}</p>
<ul id="reasons">${run.reasons.map((r) => `<li>${run.exitCode === undefined ? '' : 'Problem: '}${escapeHtml(r)}</li>`).join('')}</ul>
<details><summary>Environment</summary><ul>${Object.entries(run.environment)
    .map(([k, v]) => `<li>${escapeHtml(k)}: ${escapeHtml(v)}</li>`)
    .join('')}</ul></details>
</body></html>
`;
}

/** The Allure results of the run so far: one result, the run's own verdict, in place of an earlier run's results. */
function writeAllureVerdict(dir: string, run: UnjudgedRun): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const uuid = randomUUID();
  const at = Date.parse(run.at) || Date.now();
  const result = {
    uuid,
    historyId: 'conformance-verdict',
    name: `verdict (${run.profile} profile): ${run.words}`,
    fullName: 'verdict',
    status: run.exitCode === undefined ? 'unknown' : 'broken',
    statusDetails: { message: [run.words, ...run.reasons].join('\n') },
    stage: 'finished',
    start: at,
    stop: at,
    labels: [{ name: 'suite', value: 'verdict' }],
    links: [],
    parameters: [],
    steps: [],
    attachments: [],
  };
  writeFileSync(join(dir, `${uuid}-result.json`), JSON.stringify(result));
}
