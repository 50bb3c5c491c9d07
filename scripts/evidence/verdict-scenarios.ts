import type { Level } from '../../catalog/catalog.ts';
import type { LedgerEntry } from '../../schemas/ledger.ts';
import {
  citeAnnotation,
  markAnnotation,
  NO_DELIVERY_CAUSE,
  type MarkKind,
  type Profile,
} from '../../kit/verdict-marks.ts';
import { judgeRun, type RunVerdict } from '../../reporters/run-verdict.ts';
import { verdictNotes } from '../../reporters/run-summary.ts';
import type { JudgedRequirement, RequirementVerdict, TestRecord } from '../../reporters/verdicts.ts';
import { statedVerdict, verdictProblems } from './stated-verdict.ts';

/** What a scenario does to one requirement; every other MUST and SHOULD passes and every INFO is observed. */
type Twist =
  | 'failed'
  | 'blocked'
  | 'blocked-no-delivery'
  | 'warning'
  | 'not-exercised'
  | 'not-configured'
  | 'not-produced'
  | 'known'
  | 'ledger-level-changed';

/** One row of docs/verdicts.md: a profile and what became of the requirements. */
export interface VerdictScenario {
  row: string;
  profile: Profile;
  /** Twists given in order to the first requirements of each level. */
  twists?: Array<{ level: Level; twist: Twist }>;
  /** How many MUST requirements, from the last, have no test (a --grep or --project run). */
  uncovered?: number;
  /** No test ran at all. */
  noTests?: boolean;
}

export const VERDICT_SCENARIOS: readonly VerdictScenario[] = [
  { row: 'gate, every MUST held', profile: 'gate' },
  { row: 'gate with warnings', profile: 'gate', twists: [{ level: 'SHOULD', twist: 'warning' }] },
  {
    row: 'gate with a MUST not exercised (a test ended without checking)',
    profile: 'gate',
    twists: [{ level: 'MUST', twist: 'not-exercised' }],
  },
  {
    row: 'gate with a MUST the target never produced',
    profile: 'gate',
    twists: [{ level: 'MUST', twist: 'not-produced' }],
  },
  { row: 'gate with a MUST not configured', profile: 'gate', twists: [{ level: 'MUST', twist: 'not-configured' }] },
  {
    row: 'gate with warnings, a MUST not configured and one never produced',
    profile: 'gate',
    twists: [
      { level: 'SHOULD', twist: 'warning' },
      { level: 'MUST', twist: 'not-configured' },
      { level: 'MUST', twist: 'not-produced' },
    ],
  },
  { row: 'gate with a MUST failed', profile: 'gate', twists: [{ level: 'MUST', twist: 'failed' }] },
  { row: 'gate with a MUST blocked by the target', profile: 'gate', twists: [{ level: 'MUST', twist: 'blocked' }] },
  {
    row: 'gate with a MUST blocked, no webhook delivery at all and the way to the receiver not proven',
    profile: 'gate',
    twists: [{ level: 'MUST', twist: 'blocked-no-delivery' }],
  },
  { row: 'gate with a failure the ledger lists (known)', profile: 'gate', twists: [{ level: 'MUST', twist: 'known' }] },
  {
    row: 'gate with a ledger entry whose row is now INFO',
    profile: 'gate',
    twists: [{ level: 'INFO', twist: 'ledger-level-changed' }],
  },
  { row: 'gate, partial run (--grep, --project)', profile: 'gate', uncovered: 2 },
  { row: 'gate, no test ran', profile: 'gate', noTests: true },
  { row: 'nightly with warnings', profile: 'nightly', twists: [{ level: 'SHOULD', twist: 'warning' }] },
  { row: 'nightly with a MUST failed', profile: 'nightly', twists: [{ level: 'MUST', twist: 'failed' }] },
  { row: 'certify, every MUST held', profile: 'certify' },
  {
    row: 'certify with warnings',
    profile: 'certify',
    twists: [
      { level: 'SHOULD', twist: 'warning' },
      { level: 'SHOULD', twist: 'warning' },
    ],
  },
  {
    row: 'certify with a MUST the target never produced',
    profile: 'certify',
    twists: [{ level: 'MUST', twist: 'not-produced' }],
  },
  {
    row: 'certify with a MUST not configured',
    profile: 'certify',
    twists: [{ level: 'MUST', twist: 'not-configured' }],
  },
  {
    row: 'certify with a MUST not exercised (a test ended without checking)',
    profile: 'certify',
    twists: [{ level: 'MUST', twist: 'not-exercised' }],
  },
  {
    row: 'certify with a failure the ledger lists (ignored)',
    profile: 'certify',
    twists: [{ level: 'MUST', twist: 'known' }],
  },
  { row: 'certify, partial run (--grep, --project)', profile: 'certify', uncovered: 2 },
  { row: 'certify-strict, every MUST and SHOULD held', profile: 'certify-strict' },
  { row: 'certify-strict with warnings', profile: 'certify-strict', twists: [{ level: 'SHOULD', twist: 'warning' }] },
];

const NOT_CONFIGURED_REASON = 'no trigger is configured for the 404 row (ORDER_TRIGGER_404)';

function testOf(req: JudgedRequirement, twist: Twist | undefined): TestRecord {
  const base = {
    title: `${req.id} check`,
    project: 'scenario',
    location: 'tests/scenario.spec.ts:1',
    annotations: [citeAnnotation(req.id)],
  };
  const marked = (
    kind: MarkKind,
    detail: string,
    status: TestRecord['status'] = 'passed',
    extra: Partial<TestRecord> = {},
  ): TestRecord => ({
    ...base,
    status,
    annotations: [...base.annotations, markAnnotation({ kind, id: req.id, detail })],
    ...extra,
  });
  switch (twist ?? (req.level === 'INFO' ? 'observed' : 'passed')) {
    case 'failed':
    case 'known':
      return marked('fail', 'Expected: 409 client\nActual: 400 validation', 'failed', {
        error: `RequirementFailure: ${req.id}`,
        errorName: 'RequirementFailure',
      });
    case 'blocked':
      return marked('blocked', 'no access token for the identity service; got 201', 'skipped');
    case 'blocked-no-delivery':
      return marked(
        'blocked',
        `${NO_DELIVERY_CAUSE}: either the target sends none, or WEBHOOK_PUBLIC_URL does not reach the receiver on WEBHOOK_LISTEN`,
        'skipped',
      );
    case 'warning':
      return marked('warn', 'Expected: Cache-Control: no-store\nActual: absent');
    case 'not-configured':
      return marked('not-configured', NOT_CONFIGURED_REASON, 'skipped');
    case 'not-produced':
      return marked('not-produced', 'no verification session event carried mfaType');
    case 'not-exercised':
      return { ...base, status: 'passed' };
    case 'observed':
    case 'ledger-level-changed':
      return marked('observed', 'seen');
    default:
      return marked('pass', '');
  }
}

/** The tests and ledger of a scenario over a catalog: the same inputs the conformance reporter gets. */
export function scenarioRun(
  scenario: VerdictScenario,
  catalog: readonly JudgedRequirement[],
): { tests: TestRecord[]; ledger: LedgerEntry[] } {
  const twists = new Map<string, Twist>();
  for (const level of ['MUST', 'SHOULD', 'INFO'] as const) {
    const ofLevel = catalog.filter((r) => r.level === level);
    (scenario.twists ?? [])
      .filter((t) => t.level === level)
      .forEach((t, index) => {
        const req = ofLevel[index];
        if (req) twists.set(req.id, t.twist);
      });
  }
  const must = catalog.filter((r) => r.level === 'MUST');
  const uncovered = new Set(must.slice(must.length - (scenario.uncovered ?? 0)).map((r) => r.id));
  const tests = scenario.noTests
    ? []
    : catalog.filter((r) => !uncovered.has(r.id)).map((r) => testOf(r, twists.get(r.id)));
  const ledger = [...twists]
    .filter(([, twist]) => twist === 'known' || twist === 'ledger-level-changed')
    .map(([id, twist]): LedgerEntry => ({
      requirement: id,
      reason: 'answers 400; fix planned',
      owner: 'risk team',
      expires: '2999-12-31',
      ...(twist === 'ledger-level-changed' ? { level: 'MUST' as const } : {}),
    }));
  return { tests, ledger };
}

/** What the suite makes of one scenario: the verdict, and what verify-bundle says of a bundle signed with it. */
export interface ScenarioOutcome {
  scenario: VerdictScenario;
  verdicts: RequirementVerdict[];
  run: RunVerdict;
  requireConformant: string[];
  requireNoWarnings: string[];
}

export function scenarioOutcome(scenario: VerdictScenario, catalog: readonly JudgedRequirement[]): ScenarioOutcome {
  const { tests, ledger } = scenarioRun(scenario, catalog);
  const { verdicts, run } = judgeRun(catalog, tests, scenario.profile, { ledger, today: '2026-01-01' });
  const predicate = { profile: scenario.profile, result: run.words, verdict: statedVerdict(run, run.exitCode) };
  return {
    scenario,
    verdicts,
    run,
    requireConformant: verdictProblems(predicate, { conformant: true }),
    requireNoWarnings: verdictProblems(predicate, { noWarnings: true }),
  };
}

/** The catalog the table of docs/verdicts.md is written for: four MUST, two SHOULD, one INFO, named by level. */
export const TABLE_CATALOG: readonly JudgedRequirement[] = [
  ...['MUST-A', 'MUST-B', 'MUST-C', 'MUST-D'].map((id) => ({
    id,
    level: 'MUST' as const,
    part: '7',
    statement: `${id} holds.`,
  })),
  ...['SHOULD-A', 'SHOULD-B'].map((id) => ({ id, level: 'SHOULD' as const, part: '5', statement: `${id} holds.` })),
  { id: 'INFO-A', level: 'INFO' as const, part: '8', statement: 'INFO-A is observed.' },
];

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The table of docs/verdicts.md, generated: one row per scenario, every column from runVerdict and verify-bundle's rule. */
export function verdictTable(catalog: readonly JudgedRequirement[] = TABLE_CATALOG): string {
  const rows = VERDICT_SCENARIOS.map((scenario) => {
    const { run, requireConformant, requireNoWarnings } = scenarioOutcome(scenario, catalog);
    const junit = run.exitCode === 0 ? 'passes' : 'fails, with the reasons';
    const statement = `\`conformant: ${run.conformant}\`, \`warnings: [${run.warnings.join(', ')}]\``;
    const verify = (problems: readonly string[]) => (problems.length === 0 ? 'exit 0' : 'exit 1');
    const listed = verdictNotes(run).join('; ') || '—';
    return `| ${cell(scenario.row)} | ${cell(run.words)} | ${run.exitCode} | ${cell(listed)} | ${junit} | ${statement} | ${verify(requireConformant)} | ${verify(requireNoWarnings)} |`;
  });
  return [
    '| Row | Verdict words (console, conformance.md, .html, .json `result`, statement `verdict.words`) | Exit | Listed after the verdict | JUnit `verdict` test case | Statement | `verify-bundle --require-conformant` | `--require-no-warnings` |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
