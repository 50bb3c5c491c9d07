import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { escapeHtml } from './html-text.ts';
import type { OperationCost, RunCost } from './run-facts.ts';
import { diffRuns, type OutcomeChange } from './run-diff.ts';
import { OUTCOMES } from './verdicts.ts';

// What a night cost and what changed since the one before: the cost lines of every report, the nightly history
// (one JSON line per night, kept per target and catalog digest), the "since last night" section and the chart of the
// nights in conformance.html. Figures come from the exchanges the run recorded; nothing is sent for them.

/** A latency change counts only past both: this many ms and this fraction of the previous night's p95. */
export const P95_FLOOR_MS = 50;
export const P95_RATIO = 0.5;
/** ... and only when both nights made at least this many calls of the operation. */
export const MIN_SAMPLES = 20;
/** A change of retries counts past both: this many retries and RETRIES_RATIO of the previous night's (both nights' calls at least MIN_SAMPLES). */
export const RETRIES_FLOOR = 5;
export const RETRIES_RATIO = 0.5;
/** Nights the chart draws, the latest last. */
const CHART_NIGHTS = 30;

/** One night as the history keeps it. */
export interface Night {
  finishedAt: string;
  result: string;
  /** Ended before its verdict (interrupted, timed out, a crash): its figures are partial. */
  stoppedEarly: boolean;
  counts: Record<string, number>;
  requirements: Array<{ id: string; level: string; outcome: string }>;
  requests: number;
  retries: number;
  operations: OperationCost[];
}

/** What a run's report gives a night. */
export interface NightSource {
  finishedAt: string;
  result: string;
  requirements: ReadonlyArray<{ id: string; level: string; outcome: string }>;
  cost?: RunCost;
}

export function nightOf(report: NightSource, stoppedEarly: boolean): Night {
  const counts: Record<string, number> = {};
  for (const r of report.requirements) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
  return {
    finishedAt: report.finishedAt,
    result: report.result,
    stoppedEarly,
    counts,
    requirements: report.requirements.map(({ id, level, outcome }) => ({ id, level, outcome })),
    requests: report.cost?.requests ?? 0,
    retries: (report.cost?.retried503 ?? 0) + (report.cost?.retriedDropped ?? 0),
    operations: report.cost?.operations ?? [],
  };
}

/** The folder of a target's history for this catalog: beside ALLURE_HISTORY_PATH, named by both. */
export function historyDir(allureHistoryPath: string, target: string, catalogSha256: string): string {
  const slug = target
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);
  const key = createHash('sha256').update(target).digest('hex').slice(0, 8);
  return join(dirname(allureHistoryPath), `${slug}-${key}-catalog-${catalogSha256.slice(0, 12)}`);
}

export const nightsFile = (dir: string) => join(dir, 'nights.jsonl');
export const allureHistoryFile = (dir: string) => join(dir, 'history.jsonl');

export function readNights(file: string): Night[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Night);
}

export function appendNight(file: string, night: Night): void {
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${JSON.stringify(night)}\n`);
}

/** An operation whose p95 or retries moved beyond noise since the night before. */
export interface OperationChange {
  operation: string;
  what: 'p95' | 'retries';
  before: number;
  after: number;
  worse: boolean;
}

export interface SinceLastNight {
  previous: { finishedAt: string; result: string; stoppedEarly: boolean };
  requirements: OutcomeChange[];
  operations: OperationChange[];
}

/** The changes from the previous night (the last one that did not stop early, else the last). */
export function sinceLastNight(history: readonly Night[], tonight: Night): SinceLastNight | undefined {
  const previous = [...history].reverse().find((n) => !n.stoppedEarly) ?? history.at(-1);
  if (!previous) return undefined;
  const requirements = diffRuns(previous, tonight);
  const before = new Map(previous.operations.map((o) => [o.operation, o]));
  const operations: OperationChange[] = [];
  for (const now of tonight.operations) {
    const was = before.get(now.operation);
    if (!was || was.calls < MIN_SAMPLES || now.calls < MIN_SAMPLES) continue;
    const moved = Math.abs(now.p95Ms - was.p95Ms);
    if (moved >= P95_FLOOR_MS && moved >= P95_RATIO * Math.max(1, was.p95Ms))
      operations.push({
        operation: now.operation,
        what: 'p95',
        before: was.p95Ms,
        after: now.p95Ms,
        worse: now.p95Ms > was.p95Ms,
      });
    const retried = Math.abs(now.retries - was.retries);
    if (retried >= RETRIES_FLOOR && retried >= RETRIES_RATIO * was.retries)
      operations.push({
        operation: now.operation,
        what: 'retries',
        before: was.retries,
        after: now.retries,
        worse: now.retries > was.retries,
      });
  }
  return {
    previous: { finishedAt: previous.finishedAt, result: previous.result, stoppedEarly: previous.stoppedEarly },
    requirements,
    operations,
  };
}

/** Whether tonight is worse than last night: a requirement got worse (now failed, blocked or warning). */
export const regressed = (since: SinceLastNight | undefined): boolean =>
  since?.requirements.some((c) => c.direction === 'worse') ?? false;

const opChange = (c: OperationChange) =>
  `${c.operation} ${c.what === 'p95' ? `p95 ${c.before} -> ${c.after} ms` : `retries ${c.before} -> ${c.after}`}${c.worse ? ' (worse)' : ''}`;
const reqChange = (c: OutcomeChange) =>
  `${c.id} (${c.level}) ${c.before} -> ${c.after}${c.direction === 'worse' ? ' (worse)' : ''}`;

/** The lines of the "since last night" section: each change, or that nothing changed beyond noise. */
export function sinceLines(since: SinceLastNight): string[] {
  const head = `Since last night (${since.previous.finishedAt}, ${since.previous.result}${since.previous.stoppedEarly ? ', stopped early' : ''}):`;
  if (since.requirements.length === 0 && since.operations.length === 0)
    return [`${head} no requirement changed outcome; no operation's p95 or retries moved beyond noise`];
  // A night that stopped early leaves the rest without a test: one line for them, not one each.
  const unreached = since.requirements.filter((c) => c.after === 'uncovered' && c.before !== 'uncovered');
  const named = since.requirements.filter((c) => !unreached.includes(c));
  return [
    head,
    ...named.map((c) => `requirement ${reqChange(c)}`),
    ...(unreached.length
      ? [
          `${unreached.length} requirement${unreached.length === 1 ? '' : 's'} without a test tonight (were ${[...new Set(unreached.map((c) => c.before))].join(', ')})`,
        ]
      : []),
    ...since.operations.map((c) => `operation ${opChange(c)}`),
  ];
}

/** Changes the console names; the matrices name every one. */
export const SINCE_SHOWN = 12;

const waited = (ms: number) => (ms < 10_000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

/** What the run cost, for the console: one line each, none for what did not happen. */
export function costLines(cost: RunCost): string[] {
  const lines: string[] = [];
  const retries = (cost.retried503 ?? 0) + (cost.retriedDropped ?? 0);
  if (retries > 0)
    lines.push(
      `  Retries: ${retries} (${cost.retried503 ?? 0} after a 503, ${cost.retriedDropped ?? 0} after a dropped connection); ${waited(cost.backoffMs ?? 0)} in backoff`,
    );
  const ops = cost.operations ?? [];
  if (ops.length > 0) {
    const shown = [...ops]
      .sort((a, b) => b.retries - a.retries || b.p95Ms - a.p95Ms)
      .slice(0, 6)
      .map((o) => `${o.operation} ${o.medianMs}/${o.p95Ms}/${o.maxMs}${o.retries ? ` (${o.retries} retried)` : ''}`);
    lines.push(
      `  Latency ms (median/p95/max): ${shown.join('; ')}${ops.length > shown.length ? `; ${ops.length - shown.length} more operations in the matrix` : ''}`,
    );
  }
  return lines;
}

/** The cost of the run as Markdown: the totals, then a table per operation. */
export function costMarkdown(cost: RunCost): string[] {
  const retries = (cost.retried503 ?? 0) + (cost.retriedDropped ?? 0);
  const lines = [
    `- Requests: ${cost.requests}; retries ${retries} (${cost.retried503 ?? 0} after a 503, ${cost.retriedDropped ?? 0} after a dropped connection); ${waited(cost.backoffMs ?? 0)} in backoff; ${cost.rateLimitWaits} waits on 429 answers (${waited(cost.rateLimitWaitMs)})`,
  ];
  const ops = cost.operations ?? [];
  if (ops.length)
    lines.push(
      '',
      '| Operation | Calls | Median ms | p95 ms | Max ms | Retries |',
      '|---|---|---|---|---|---|',
      ...ops.map((o) => `| ${o.operation} | ${o.calls} | ${o.medianMs} | ${o.p95Ms} | ${o.maxMs} | ${o.retries} |`),
    );
  return lines;
}

export function costHtml(cost: RunCost): string {
  const [total = ''] = costMarkdown(cost);
  const rows = (cost.operations ?? [])
    .map(
      (o) =>
        `<tr><td>${escapeHtml(o.operation)}</td><td>${o.calls}</td><td>${o.medianMs}</td><td>${o.p95Ms}</td><td>${o.maxMs}</td><td>${o.retries}</td></tr>`,
    )
    .join('');
  return `<p id="cost">${escapeHtml(total.slice(2))}</p>${rows ? `<table id="latency"><thead><tr><th>Operation</th><th>Calls</th><th>Median ms</th><th>p95 ms</th><th>Max ms</th><th>Retries</th></tr></thead><tbody>${rows}</tbody></table>` : ''}`;
}

/** The nights as the reports show them. */
export interface NightsView {
  /** Every night of the history, tonight's last. */
  nights: Night[];
  since?: SinceLastNight;
}

export function nightsMarkdown(view: NightsView): string[] {
  return [
    `History: ${view.nights.length} night${view.nights.length === 1 ? '' : 's'} (this one included; ${view.nights.filter((n) => n.stoppedEarly).length} stopped early).`,
    '',
    ...(view.since ? sinceLines(view.since).map((line, i) => (i === 0 ? line : `- ${line}`)) : []),
  ];
}

const COLORS: Record<string, string> = {
  failed: '#c62828',
  blocked: '#ef6c00',
  warning: '#f9a825',
  known: '#8d6e63',
  passed: '#2e7d32',
  observed: '#66bb6a',
  'not-exercised': '#90a4ae',
  'not-configured': '#b0bec5',
  'not-produced': '#cfd8dc',
  uncovered: '#eceff1',
};

/**
 * The nights as inline SVG: a stacked bar of outcomes per night, and a line of p95 per operation (its slowest eight),
 * drawn here, so that the page stays one file that opens offline.
 */
export function nightsChartSvg(nights: readonly Night[]): string {
  const shown = nights.slice(-CHART_NIGHTS);
  const width = 640;
  const barsH = 160;
  const w = Math.max(8, Math.floor((width - 60) / Math.max(1, shown.length)));
  const total = Math.max(1, ...shown.map((n) => Object.values(n.counts).reduce((a, b) => a + b, 0)));
  const bars = shown
    .map((night, i) => {
      let y = barsH;
      const x = 50 + i * w;
      const parts = OUTCOMES.filter((o) => night.counts[o]).map((o) => {
        const h = ((night.counts[o] ?? 0) / total) * (barsH - 20);
        y -= h;
        return `<rect x="${x}" y="${y.toFixed(1)}" width="${w - 2}" height="${h.toFixed(1)}" fill="${COLORS[o] ?? '#999'}"><title>${escapeHtml(night.finishedAt)}: ${night.counts[o]} ${o}</title></rect>`;
      });
      return `<g class="night" data-night="${i + 1}"${night.stoppedEarly ? ' data-stopped-early="1"' : ''}>${parts.join('')}${night.stoppedEarly ? `<text x="${x}" y="${barsH + 12}" font-size="10">stopped</text>` : ''}</g>`;
    })
    .join('');
  const slowest = [
    ...new Set(
      shown
        .flatMap((n) => n.operations)
        .sort((a, b) => b.p95Ms - a.p95Ms)
        .map((o) => o.operation),
    ),
  ].slice(0, 8);
  const lineTop = barsH + 30;
  const lineH = 140;
  const maxP95 = Math.max(1, ...shown.flatMap((n) => n.operations.map((o) => o.p95Ms)));
  const palette = ['#1565c0', '#6a1b9a', '#00838f', '#ad1457', '#4e342e', '#283593', '#558b2f', '#d84315'];
  const lines = slowest
    .map((operation, k) => {
      const points = shown.flatMap((night, i) => {
        const op = night.operations.find((o) => o.operation === operation);
        return op ? [`${50 + i * w + (w - 2) / 2},${(lineTop + lineH - (op.p95Ms / maxP95) * lineH).toFixed(1)}`] : [];
      });
      const color = palette[k % palette.length] ?? '#000';
      return `<polyline class="p95" data-operation="${escapeHtml(operation)}" fill="none" stroke="${color}" stroke-width="2" points="${points.join(' ')}"><title>${escapeHtml(operation)} p95</title></polyline><text x="${width - 150}" y="${lineTop + 12 + k * 12}" font-size="10" fill="${color}">${escapeHtml(operation)}</text>`;
    })
    .join('');
  const height = lineTop + lineH + 20;
  return `<svg id="nights-chart" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="Outcomes per night and p95 latency per operation over ${shown.length} nights"><text x="0" y="12" font-size="11">Outcomes per night (${shown.length})</text>${bars}<text x="0" y="${lineTop - 4}" font-size="11">p95 ms per operation (max ${maxP95})</text><line x1="50" y1="${lineTop + lineH}" x2="${width - 160}" y2="${lineTop + lineH}" stroke="#999"/>${lines}</svg>`;
}

export function nightsHtml(view: NightsView): string {
  const [head = '', ...changes] = view.since ? sinceLines(view.since) : [];
  return `<h2>Nights</h2><p id="history">History: ${view.nights.length} night${view.nights.length === 1 ? '' : 's'} (this one included; ${view.nights.filter((n) => n.stoppedEarly).length} stopped early).</p>${head ? `<div id="since-last-night"><p>${escapeHtml(head)}</p>${changes.length ? `<ul>${changes.map((c) => `<li>${escapeHtml(c)}</li>`).join('')}</ul>` : ''}</div>` : ''}${nightsChartSvg(view.nights)}`;
}
