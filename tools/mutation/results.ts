import { existsSync, readFileSync } from 'node:fs';

/** One module's last mutation run, as docs/mutation-results.json keeps it. */
export interface ModuleResult {
  ranAt: string;
  /** The lines mutated, when the run named a range of the module (sandbox/x.ts:198-271). */
  lines?: string;
  mutants: number;
  killed: number;
  timedOut: number;
  survived: number;
  /** Mutants StrykerJS did not run: the excluded mutators (string literals). */
  ignored: number;
  /** Every survivor: its id in the run, line, mutator and replacement, to be killed or classified in docs/mutation.md. */
  survivors: Array<{ id: number; line: number; mutator: string; replacement: string }>;
}

export type MutationResults = Record<string, ModuleResult>;

interface StrykerMutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number } };
}

/**
 * The per-module results of a StrykerJS JSON report (mutation-testing-report-schema), keyed by the module, or by the
 * module and the lines mutated when the run named a range (sandbox/x.ts:198-271): mutant ids are a run's own, so each
 * range keeps its results and its section of docs/mutation.md.
 */
export function resultsOfReport(
  report: { files: Record<string, { mutants: StrykerMutant[] }>; config?: { mutate?: string[] } },
  ranAt: string,
): MutationResults {
  const results: MutationResults = {};
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const count = (status: string) => mutants.filter((m) => m.status === status).length;
    const lines = (report.config?.mutate ?? [])
      .map((glob) => new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+-\\d+)$`).exec(glob)?.[1])
      .find(Boolean);
    results[lines ? `${file}:${lines}` : file] = {
      ranAt,
      ...(lines ? { lines } : {}),
      mutants: mutants.length,
      killed: count('Killed'),
      timedOut: count('Timeout'),
      survived: count('Survived') + count('NoCoverage'),
      ignored: count('Ignored'),
      survivors: mutants
        .filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')
        .map((m) => ({
          id: Number(m.id),
          line: m.location.start.line,
          mutator: m.mutatorName,
          replacement: (m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 120),
        })),
    };
  }
  return results;
}

export function readResults(path: string): MutationResults {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as MutationResults) : {};
}

/** The score of the mutants that ran: killed (timeouts included) over killed and survived. */
export function score(r: ModuleResult): number {
  const ran = r.killed + r.timedOut + r.survived;
  return ran === 0 ? 1 : (r.killed + r.timedOut) / ran;
}

/** The table docs/mutation.md shows between its mutation-results markers. */
export function resultsTable(results: MutationResults): string {
  const rows = Object.entries(results)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([file, r]) =>
        `| \`${file}\` | ${r.ranAt.slice(0, 10)} | ${r.mutants - r.ignored} | ${r.killed + r.timedOut} | ${r.survived} | ${(score(r) * 100).toFixed(0)} % | ${
          r.survivors
            .map((s) => s.id)
            .sort((a, b) => a - b)
            .join(', ') || 'none'
        } |`,
    );
  return [
    '| Module | Run | Mutants run | Killed | Survived | Score | Survivors (ids, each classified below) |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The mutant ids a classification table names: single ids and ranges (12–15 or 12-15), in its first column. */
export function classifiedIds(section: string): Set<number> {
  const ids = new Set<number>();
  for (const line of section.split('\n')) {
    const first = /^\|([^|]+)\|/.exec(line)?.[1] ?? '';
    for (const [, from, to] of first.matchAll(/(\d+)(?:\s*[–-]\s*(\d+))?/g)) {
      const start = Number(from);
      for (let id = start; id <= Number(to ?? from); id += 1) ids.add(id);
    }
  }
  return ids;
}

/** The section of docs/mutation.md about one module (or range): from its "## <file>" heading to the next "## ". */
export function sectionOf(markdown: string, file: string): string | undefined {
  const start = markdown.indexOf(`## ${file} `);
  if (start < 0) return undefined;
  const next = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, next < 0 ? undefined : next);
}
