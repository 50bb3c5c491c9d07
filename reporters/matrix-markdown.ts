import { brokenPreconditions, outcomeLabel, verdictNotes } from './run-summary.ts';
import { code, fenced, htmlText, inline, shownValue, wrap } from './markdown-text.ts';
import { splitReplays } from './replay.ts';
import type { RunVerdict } from './run-verdict.ts';
import type { EventWaits, RunCost } from './run-facts.ts';
import { costMarkdown, nightsMarkdown, type NightsView } from './nights.ts';
import { eventWaitsMarkdown } from './event-waits.ts';
import { readWaitsSummary, type ReadWaits } from './read-waits.ts';
import { OUTCOMES, type RequirementVerdict } from './verdicts.ts';

const LEVELS = ['MUST', 'SHOULD', 'INFO'] as const;
/** Outcomes whose requirements get a section of their own, with each failing test's evidence. */
const DETAILED = new Set(['failed', 'blocked', 'warning', 'known']);
/** Prose is wrapped between words to this width; a code span, a digest or a link is never cut. */
const MAX_LINE = 300;
/** A GitHub PR comment or step summary holds 65,536 characters; the matrix stays below, whatever fails. */
export const MARKDOWN_MAX_CHARS = 60_000;
/** Evidence longer than this is shown whole in a details block, folded. */
const DETAIL_MAX_CHARS = 3_000;

/** Counts of outcomes per level, as a fixed-width table for the console. */
export function summaryTable(verdicts: readonly RequirementVerdict[]): string {
  const header = ['level', ...OUTCOMES, 'total'];
  const rows = LEVELS.map((level) => {
    const of = verdicts.filter((v) => v.level === level);
    return [level, ...OUTCOMES.map((o) => String(of.filter((v) => v.outcome === o).length)), String(of.length)];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `  ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}`;
  return ['Conformance by requirement', line(header), ...rows.map(line)].join('\n');
}

/** MUST requirements no test cites: the suite does not check them at all. */
export function uncoveredMust(verdicts: readonly RequirementVerdict[]): string[] {
  return verdicts.filter((v) => v.level === 'MUST' && v.outcome === 'uncovered').map((v) => v.id);
}

interface MatrixReport {
  interface: { title: string; version: string };
  catalogSha256: string;
  profile: string;
  environment: Record<string, string>;
  finishedAt: string;
  result: string;
  reasons: string[];
  requirements: RequirementVerdict[];
  /** The command that reruns the judgement (the client certification's); by default the suite's, per requirement. */
  rerun?: string;
  /** The run's verdict (reporters/run-verdict.ts): what it lists without failing, after the reasons. */
  run?: RunVerdict;
  /** What the run's flows waited for, and every wait that ended on its window (reporters/event-waits.ts). */
  events?: EventWaits;
  /** What the run's reads waited for their writes (reporters/read-waits.ts). */
  reads?: ReadWaits;
  /** What the run cost the target (reporters/run-facts.ts). */
  cost?: RunCost;
  /** A nightly run's history and what changed since the night before. */
  history?: NightsView;
}

const cell = (text: string) => inline(text);
/** A paragraph's line, and a list item's, wrapped between words. */
const prose = (line: string) => wrap(line, MAX_LINE);
const item = (text: string) => wrap(`- ${text}`, MAX_LINE, '  ');
/** A failing test's evidence, whole: in a fence, folded in a details block when it is long. */
function evidenceBlock(text: string): string[] {
  if (text.length <= DETAIL_MAX_CHARS) return fenced(text);
  return [
    '<details>',
    `<summary>${htmlText(`The evidence (${text.length.toLocaleString('en')} characters)`)}</summary>`,
    '',
    ...fenced(text),
    '',
    '</details>',
  ];
}

/**
 * One section per failed, blocked, warning or known requirement: its statement, then each failing test's evidence and
 * its replay commands, each whole in a block of its own that pastes into a shell as it is.
 */
function failureSection(v: RequirementVerdict, seed: string | undefined, rerun: string | undefined): string[] {
  const lines = [`### ${v.id} (${v.level}, part ${v.part}): ${v.outcome}`, '', ...prose(inline(v.statement)), ''];
  if (v.breakdown) lines.push(...prose(inline(v.breakdown)), '');
  for (const t of v.tests.filter((row) => DETAILED.has(row.outcome))) {
    lines.push(...item(`**${t.outcome}**: ${inline(t.project)} › ${inline(t.title)} (${code(t.location)})`));
    if (t.detail) {
      const { evidence, replays } = splitReplays(t.detail);
      const shown = evidence.join('\n').replace(/^\s*\n|\n\s*$/g, '');
      lines.push('', ...(shown ? [...evidenceBlock(shown), ''] : []));
      for (const replay of replays) lines.push('Replay (API_KEY from your .env):', '', ...fenced(replay, 'sh'), '');
    }
  }
  lines.push(
    ...prose(`Rerun: ${code(rerun ?? `${seed ? `SEED=${seed} ` : ''}npx playwright test --grep @${v.id}`)}`),
    '',
  );
  return lines;
}

/**
 * The readable conformance matrix: the verdict, a one-line row per requirement, then a section per requirement that
 * failed, was blocked, warned or is known, with each failing test's Sent/Expected/Actual and a replay command. A
 * clean run fits on a screen plus the table. What the run reports stays what it is: prose escaped, code in spans and
 * fences that close, lines wrapped between words (about 300 characters), never cut.
 */
export function matrixMarkdown(report: MatrixReport): string {
  const detailed = report.requirements.filter((v) => DETAILED.has(v.outcome));
  // A filtered run lists only the requirements its tests cite.
  const uncovered = report.requirements.filter((v) => v.outcome === 'uncovered');
  const partial = uncovered.length > 0 && uncovered.length < report.requirements.length;
  const listed = partial ? report.requirements.filter((v) => v.outcome !== 'uncovered') : report.requirements;
  const broken = brokenPreconditions(report.requirements);
  const notes = report.run ? verdictNotes(report.run) : [];
  const lines = [
    `# Conformance matrix: ${inline(report.interface.title)} ${inline(report.interface.version)}`,
    '',
    ...prose(
      `Result: **${inline(report.result)}** (profile ${inline(report.profile)}), ${report.finishedAt}. Catalog SHA-256 ${code(report.catalogSha256)}.`,
    ),
    '',
    ...report.reasons.flatMap((r) => item(`Fails: ${inline(r)}`)),
    ...notes.flatMap((n) => item(inline(n))),
    ...(report.reasons.length || notes.length ? [''] : []),
    ...(broken.length
      ? [
          'Broken preconditions (what kept checks from running; fix these first):',
          '',
          ...broken.flatMap((b) => item(inline(b))),
          '',
        ]
      : []),
    ...Object.entries(report.environment).flatMap(([k, v]) => item(`${inline(k)}: ${shownValue(v)}`)),
    '',
    ...fenced(summaryTable(report.requirements)),
    '',
    '| Requirement | Level | Part | Outcome | Tests |',
    '|---|---|---|---|---|',
    ...listed.map((v) => {
      const outcome = DETAILED.has(v.outcome)
        ? `[${v.outcome}](#${v.id.toLowerCase()}-${v.level.toLowerCase()}-part-${v.part.replace(/\./g, '')}-${v.outcome})`
        : cell(outcomeLabel(v));
      return `| ${v.id} | ${v.level} | ${cell(v.part)} | ${outcome}${v.breakdown ? ` (${cell(v.breakdown)})` : ''} | ${v.tests.length} |`;
    }),
    ...(partial
      ? ['', `${uncovered.length} requirements have no test in this run (a filtered run) and are not listed.`]
      : []),
    '',
    ...(report.history ? ['## Nights', '', ...nightsMarkdown(report.history), ''] : []),
    ...(report.cost ? ['## What the run cost', '', ...costMarkdown(report.cost), ''] : []),
    ...(report.events ? ['## Event waits', '', ...eventWaitsMarkdown(report.events), ''] : []),
    ...(report.reads ? ['## Read waits', '', `- ${readWaitsSummary(report.reads)}`, ''] : []),
  ];
  const head = `${lines.join('\n')}\n`;
  if (detailed.length === 0) return head;
  return (
    head +
    sectionsWithin(
      detailed.map((v) => failureSection(v, report.environment['seed'], report.rerun).join('\n')),
      MARKDOWN_MAX_CHARS - head.length,
    )
  );
}

/** The sections that fit in `room` characters, in order, then one line saying where the rest are. */
function sectionsWithin(sections: readonly string[], room: number): string {
  const heading = '## Failures, blocks and warnings\n\n';
  let text = heading;
  let shown = 0;
  const overflowLine = (left: number) =>
    `… ${left} more requirement section${left === 1 ? '' : 's'} did not fit the ${MARKDOWN_MAX_CHARS.toLocaleString('en')} characters this file keeps to: they are in conformance.html and conformance.json.\n`;
  for (const section of sections) {
    if (text.length + section.length + 1 + overflowLine(sections.length).length > room) break;
    text += `${section}\n`;
    shown += 1;
  }
  return shown === sections.length ? text : text + overflowLine(sections.length - shown);
}
