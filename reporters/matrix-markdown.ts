import { OUTCOMES, type RequirementVerdict } from './verdicts.ts';

const LEVELS = ['MUST', 'SHOULD', 'INFO'] as const;
/** Outcomes whose requirements get a section of their own, with each failing test's evidence. */
const DETAILED = new Set(['failed', 'blocked', 'warning', 'known']);
const MAX_LINE = 300;

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
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const clip = (line: string) => (line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line);

/** One section per failed, blocked, warning or known requirement: its statement, then each failing test's evidence. */
function failureSection(v: RequirementVerdict, seed: string | undefined): string[] {
  const lines = [`### ${v.id} (${v.level}, part ${v.part}): ${v.outcome}`, '', v.statement, ''];
  if (v.breakdown) lines.push(v.breakdown, '');
  for (const t of v.tests.filter((row) => DETAILED.has(row.outcome) || row.outcome === 'failed')) {
    lines.push(`- **${t.outcome}**: ${t.project} › ${t.title} (\`${t.location}\`)`);
    // Unindented, so that the replay command (a heredoc for the body) can be copied and run as it is.
    if (t.detail) lines.push('', '```', ...t.detail.split(/\n| \| /).map((l) => l.trim()), '```', '');
  }
  lines.push(`Rerun: \`${seed ? `SEED=${seed} ` : ''}npx playwright test --grep @${v.id}\``, '');
  return lines;
}

/**
 * The readable conformance matrix: the verdict, a one-line row per requirement, then a section per requirement that
 * failed, was blocked, warned or is known, with each failing test's Sent/Expected/Actual and a replay command. A
 * clean run fits on a screen plus the table; no line is longer than 300 characters.
 */
export function matrixMarkdown(report: MatrixReport): string {
  const detailed = report.requirements.filter((v) => DETAILED.has(v.outcome));
  const lines = [
    `# Conformance matrix: ${report.interface.title} ${report.interface.version}`,
    '',
    `Result: **${report.result}** (profile ${report.profile}), ${report.finishedAt}. Catalog SHA-256 \`${report.catalogSha256}\`.`,
    '',
    ...report.reasons.map((r) => `- ${r}`),
    ...(report.reasons.length ? [''] : []),
    ...Object.entries(report.environment).map(([k, v]) => `- ${k}: ${v}`),
    '',
    '```',
    summaryTable(report.requirements),
    '```',
    '',
    '| Requirement | Level | Part | Outcome | Tests |',
    '|---|---|---|---|---|',
    ...report.requirements.map((v) => {
      const outcome = DETAILED.has(v.outcome) ? `[${v.outcome}](#${v.id.toLowerCase()}-${v.level.toLowerCase()}-part-${v.part.replace(/\./g, '')}-${v.outcome})` : v.outcome;
      return `| ${v.id} | ${v.level} | ${v.part} | ${outcome}${v.breakdown ? ` (${cell(v.breakdown)})` : ''} | ${v.tests.length} |`;
    }),
    '',
    ...(detailed.length ? ['## Failures, blocks and warnings', '', ...detailed.flatMap((v) => failureSection(v, report.environment['seed']))] : []),
  ];
  return `${lines.join('\n').split('\n').map(clip).join('\n')}\n`;
}
