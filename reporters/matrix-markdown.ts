import { OUTCOMES, type RequirementVerdict } from './verdicts.ts';
const LEVELS = ['MUST', 'SHOULD', 'INFO'] as const;

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

/** The readable conformance matrix: the verdict of every requirement and the tests behind it. */
export function matrixMarkdown(report: MatrixReport): string {
  const lines = [
    `# Conformance matrix: ${report.interface.title} ${report.interface.version}`,
    '',
    `Result: **${report.result}** (profile ${report.profile}), ${report.finishedAt}. Catalog SHA-256 \`${report.catalogSha256}\`.`,
    '',
    ...report.reasons.map((r) => `- ${r}`),
    '',
    ...Object.entries(report.environment).map(([k, v]) => `- ${k}: ${v}`),
    '',
    '```',
    summaryTable(report.requirements),
    '```',
    '',
    ...(uncoveredMust(report.requirements).length ? [`MUST requirements with no test behind them (uncovered): ${uncoveredMust(report.requirements).join(', ')}`, ''] : []),
    '| Requirement | Level | Part | Verdict | Tests |',
    '|---|---|---|---|---|',
    ...report.requirements.map((v) => {
      const tests = v.tests.map((t) => `${t.outcome}: ${t.project} › ${t.title}${t.detail && t.outcome !== 'passed' ? ` — ${t.detail}` : ''}`).join('<br>');
      const observed = v.observations.length ? `<br>observed: ${v.observations.join('; ')}` : '';
      return `| ${v.id} | ${v.level} | ${v.part} | ${v.outcome}${v.breakdown ? ` (${v.breakdown})` : ''} | ${cell(tests || '(no test)')}${cell(observed)} |`;
    }),
    '',
  ];
  return lines.join('\n');
}
