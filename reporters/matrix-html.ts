import { eventWaitsHtml } from './event-waits.ts';
import { escapeHtml } from './html-text.ts';
import { splitReplays } from './replay.ts';
import type { EventWaits, RunCost } from './run-facts.ts';
import { costHtml, nightsHtml, type NightsView } from './nights.ts';
import { outcomeLabel, verdictNotes } from './run-summary.ts';
import type { RunVerdict } from './run-verdict.ts';
import { OUTCOMES, type RequirementVerdict } from './verdicts.ts';

interface HtmlReport {
  interface: { title: string; version: string };
  profile: string;
  finishedAt: string;
  result: string;
  reasons: string[];
  environment: Record<string, string>;
  requirements: RequirementVerdict[];
  /** The run's verdict (reporters/run-verdict.ts): what it lists without failing, after the reasons. */
  run?: RunVerdict;
  /** What the run's flows waited for, and every wait that ended on its window (reporters/event-waits.ts). */
  events?: EventWaits;
  /** What the run cost the target (reporters/run-facts.ts). */
  cost?: RunCost;
  /** A nightly run's history and what changed since the night before, drawn as a chart. */
  history?: NightsView;
}

/** The evidence, then each replay command in a block of its own that pastes into a shell as it is. */
function detailHtml(detail: string): string {
  const { evidence, replays } = splitReplays(detail);
  return `<pre>${escapeHtml(evidence.join('\n'))}</pre>${replays.map((replay) => `<p>Replay (API_KEY from your .env):</p><pre class="replay">${escapeHtml(replay)}</pre>`).join('')}`;
}

/** The count of outcomes per level, as the console and conformance.md print it (reporters/matrix-markdown.ts). */
function countsHtml(verdicts: readonly RequirementVerdict[]): string {
  const levels = ['MUST', 'SHOULD', 'INFO'] as const;
  const head = ['level', ...OUTCOMES, 'total'].map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const rows = levels
    .map((level) => {
      const of = verdicts.filter((v) => v.level === level);
      const cells = OUTCOMES.map((o) => `<td>${of.filter((v) => v.outcome === o).length}</td>`).join('');
      return `<tr data-counts="${level}"><th>${level}</th>${cells}<td>${of.length}</td></tr>`;
    })
    .join('');
  return `<h2>Conformance by requirement</h2><table id="counts"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

const NEEDS_DETAIL = new Set(['failed', 'blocked', 'warning', 'known']);

/**
 * The conformance matrix as one self-contained page: no request leaves it (styles and the filter script are inline),
 * so it opens from disk and travels in an evidence bundle. Filter by level and outcome; each failed, blocked or
 * warning requirement links to its details: the statement and, per test, what was sent, expected and seen.
 */
export function matrixHtml(report: HtmlReport): string {
  const levels = ['MUST', 'SHOULD', 'INFO'];
  const outcomes = [...new Set(report.requirements.map((v) => v.outcome))];
  const rows = report.requirements
    .map((v) => {
      const name = NEEDS_DETAIL.has(v.outcome)
        ? `<a href="#${escapeHtml(v.id)}">${escapeHtml(v.id)}</a>`
        : escapeHtml(v.id);
      return `<tr data-level="${v.level}" data-outcome="${escapeHtml(v.outcome)}"><td>${name}</td><td>${v.level}</td><td>${escapeHtml(v.part)}</td><td class="o-${escapeHtml(v.outcome)}">${escapeHtml(outcomeLabel(v))}</td><td>${v.tests.length}</td><td>${escapeHtml(v.breakdown)}</td><td class="statement">${escapeHtml(v.statement)}</td></tr>`;
    })
    .join('\n');
  const details = report.requirements
    .filter((v) => NEEDS_DETAIL.has(v.outcome))
    .map((v) => {
      const tests = v.tests
        .filter((t) => t.outcome !== 'passed' && t.outcome !== 'observed')
        .map(
          (t) =>
            `<li><b>${escapeHtml(t.outcome)}</b>: ${escapeHtml(t.project)} › ${escapeHtml(t.title)} <code>${escapeHtml(t.location)}</code>${t.detail ? detailHtml(t.detail) : ''}</li>`,
        )
        .join('\n');
      return `<section id="${escapeHtml(v.id)}" data-level="${v.level}" data-outcome="${escapeHtml(v.outcome)}"><h3>${escapeHtml(v.id)} (${v.level}, part ${escapeHtml(v.part)}): ${escapeHtml(v.outcome)}</h3><p>${escapeHtml(v.statement)}</p>${v.breakdown ? `<p>${escapeHtml(v.breakdown)}</p>` : ''}<ul>${tests}</ul></section>`;
    })
    .join('\n');
  const checkbox = (kind: string, value: string) =>
    `<label><input type="checkbox" data-filter="${kind}" value="${escapeHtml(value)}" checked> ${escapeHtml(value)}</label>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Conformance matrix: ${escapeHtml(report.interface.title)} ${escapeHtml(report.interface.version)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
.o-failed,.o-blocked{background:#fdd}.o-warning,.o-known{background:#ffe9b3}.o-passed{background:#dfd}pre{white-space:pre-wrap;background:#f6f6f6;padding:4px}
.filters label{margin-right:1em}td.statement{max-width:40em;font-size:12px}#counts{margin-bottom:1em}section{border-top:1px solid #ddd;margin-top:1em}
</style></head><body>
<h1>Conformance matrix: ${escapeHtml(report.interface.title)} ${escapeHtml(report.interface.version)}</h1>
<p id="result">Result: <b>${escapeHtml(report.result)}</b> (profile ${escapeHtml(report.profile)}), ${escapeHtml(report.finishedAt)}</p>
<ul id="reasons">${report.reasons.map((r) => `<li>Fails: ${escapeHtml(r)}</li>`).join('')}${(report.run ? verdictNotes(report.run) : []).map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>
<details><summary>Environment</summary><ul>${Object.entries(report.environment)
    .map(([k, v]) => `<li>${escapeHtml(k)}: ${escapeHtml(v)}</li>`)
    .join('')}</ul></details>
<p class="filters">Level: ${levels.map((l) => checkbox('level', l)).join('')} Outcome: ${outcomes.map((o) => checkbox('outcome', o)).join('')}</p>
${countsHtml(report.requirements)}
<table id="matrix"><thead><tr><th>Requirement</th><th>Level</th><th>Part</th><th>Outcome</th><th>Tests</th><th>Breakdown</th><th>Statement</th></tr></thead><tbody>
${rows}
</tbody></table>
${report.history ? nightsHtml(report.history) : ''}
${report.cost ? `<h2>What the run cost</h2>\n${costHtml(report.cost)}` : ''}
${report.events ? `<h2>Event waits</h2>\n${eventWaitsHtml(report.events)}` : ''}
<h2>Failures, blocks and warnings</h2>
${details || '<p>None.</p>'}
<script>
const boxes=[...document.querySelectorAll('input[data-filter]')];
function apply(){const on=k=>new Set(boxes.filter(b=>b.dataset.filter===k&&b.checked).map(b=>b.value));const lv=on('level'),oc=on('outcome');
document.querySelectorAll('[data-level]').forEach(el=>{if(el.tagName==='INPUT')return;el.hidden=!(lv.has(el.dataset.level)&&oc.has(el.dataset.outcome));});}
boxes.forEach(b=>b.addEventListener('change',apply));
</script>
</body></html>
`;
}
