import { requirements, type Level } from '../../catalog/catalog.ts';
import { citedIds, marksOf } from '../../kit/verdict-marks.ts';
import { outcomeInTest, type TestRecord } from '../../reporters/verdicts.ts';
import type { KeyedRecord, ProofResults } from './proof-reporter.ts';
import type { ProofPlan } from './plan.ts';
import type { EventWaits, WindowArrival, WindowEnd } from '../../reporters/run-facts.ts';
import { profileVerdict, type ProfileVerdict } from './profile-verdict.ts';

/** The final result of every test of the proof run, by project (its target). */
export function recordsByProject(records: readonly KeyedRecord[]): Map<string, KeyedRecord[]> {
  const byProject = new Map<string, KeyedRecord[]>();
  for (const record of records) {
    const ofProject = byProject.get(record.project) ?? [];
    ofProject.push(record);
    byProject.set(record.project, ofProject);
  }
  return byProject;
}

/** A test ran when it was not skipped, or when it checked something before the proof run's record-only policy skipped it as blocked. */
const ran = (record: TestRecord) => record.status !== 'skipped' || marksOf(record.annotations).length > 0;

export interface Problem {
  requirement: string;
  outcome: string;
  test: string;
  detail?: string;
}

/** Every failed, warned or blocked requirement in a set of test results, with the test and why. */
export function problemsIn(records: readonly TestRecord[]): Problem[] {
  const problems: Problem[] = [];
  for (const record of records) {
    const cited = citedIds(record.annotations);
    for (const id of cited) {
      const req = requirements.find((r) => r.id === id);
      if (!req) continue;
      const { outcome, detail } = outcomeInTest(req, record);
      if (outcome === 'failed' || outcome === 'warning' || outcome === 'blocked')
        problems.push({
          requirement: id,
          outcome,
          test: `${record.project} › ${record.title}`,
          ...(detail ? { detail } : {}),
        });
    }
    if (record.status === 'failed' && cited.length === 0)
      problems.push({
        requirement: '(none cited)',
        outcome: 'failed',
        test: record.title,
        ...(record.error ? { detail: record.error } : {}),
      });
  }
  return problems;
}

export interface KillRow {
  fault: string;
  /** The fault's class (sandbox/faults.ts faultClasses). */
  class: string;
  requirement: string;
  level: Level;
  /** Checks that failed (MUST) or warned (SHOULD) for the faulted requirement itself. */
  caughtBy: string[];
  /** Other requirements that failed or warned in the same run: a fault should violate exactly one. */
  collateral: string[];
  testsRun: number;
  killed: boolean;
}

export interface ProofAnalysis {
  clean: { tests: number; skipped: string[]; problems: Problem[]; mustNotPassed: string[] };
  portability: { tests: number; testsByTarget: Record<string, number>; skipped: string[]; problems: Problem[] };
  kills: KillRow[];
  mustWithoutFault: string[];
  mutationScore: number;
  /** What each correct target's run observed of its INFO rows: requirement → the details of its observed marks. */
  observations: Record<string, Record<string, string[]>>;
  /** Each correct target's one run, judged under gate and under certify. */
  verdicts: Record<string, Record<JudgedProfile, ProfileVerdict>>;
  /**
   * Each correct target's waits that ended on their window (its receiver's waits file), and of those the ones that
   * ended while an event that could have answered them was held, given to no flow: "flow: #seq (why)".
   */
  waits: Record<string, { windowEnds: number; heldAnswers: string[] } | undefined>;
}

/**
 * Whether an arrival could have ended the wait, by the document's rules alone (not the attribution's code): a first
 * verification session event of a session no document event named, given to no flow, of the kind the step-up may take
 * (one with docVerification true only when the step-up carried images); a document event of the awaited inquiry or session.
 */
export function couldHaveAnswered(end: WindowEnd, arrival: WindowArrival): boolean {
  switch (end.kind) {
    case 'step-up':
    case 'count':
      return (
        arrival.kind === 'session' &&
        arrival.firstOfSession &&
        arrival.givenTo === undefined &&
        arrival.documentSession !== true &&
        (arrival.docVerification !== true || end.images === true)
      );
    case 'results':
      return arrival.kind === 'results' && arrival.inquiryId === end.awaits;
    case 'onboarding':
      return arrival.kind === 'onboarding' && arrival.sessionId === end.awaits;
    case 'run-end':
      return false;
  }
}

/** The waits of one receiver that ended on their window while an event that could have answered them was held. */
export function heldAnswers(waits: EventWaits): string[] {
  return waits.windowEnds.flatMap((end) =>
    end.arrived
      .filter((arrival) => couldHaveAnswered(end, arrival))
      .map((arrival) => `${end.flow}: ${end.what}; #${arrival.seq} was held (${arrival.why})`),
  );
}

/** The profiles every correct target is judged under. */
export const judgedProfiles = ['gate', 'certify'] as const;
export type JudgedProfile = (typeof judgedProfiles)[number];

export function analyse(
  plan: ProofPlan,
  results: ProofResults,
  waitsOf: (target: ProofPlan['targets'][number]) => EventWaits | undefined = () => undefined,
): ProofAnalysis {
  const byProject = recordsByProject(results.records);
  const recordsOf = (prefix: string) =>
    [...byProject.entries()]
      .filter(([name]) => name === prefix || name.startsWith(`${prefix}/`))
      .flatMap(([, records]) => records);
  const skippedIn = (records: TestRecord[]) =>
    records.filter((r) => r.status === 'skipped').map((r) => `${r.project} › ${r.title}`);

  const clean = recordsOf('clean');
  const cleanPassed = new Set(
    clean.flatMap((r) =>
      marksOf(r.annotations)
        .filter((m) => m.kind === 'pass')
        .map((m) => m.id),
    ),
  );
  const portability = recordsOf('portability');

  const kills = plan.targets.flatMap((target) =>
    target.faults.map((run) => {
      const { id, requirement, level } = run;
      const ranInTarget = byProject.get(target.name) ?? [];
      // In a round, a fault's tests are those it was given; the round ran exactly the tests its faults were given.
      const records = run.tests ? ranInTarget.filter((r) => run.tests?.includes(r.key)) : ranInTarget;
      const problems = problemsIn(records);
      const wanted = level === 'MUST' ? 'failed' : 'warning';
      // A fault that breaks a precondition is caught when the gate fails on its requirement, as failed or as blocked.
      const caughtBy = problems
        .filter(
          (p) =>
            p.requirement === requirement && (p.outcome === wanted || (level === 'MUST' && p.outcome === 'blocked')),
        )
        .map((p) => p.test);
      const collateral = [
        ...new Set(problems.filter((p) => p.requirement !== requirement).map((p) => `${p.requirement} (${p.outcome})`)),
      ];
      return {
        fault: id,
        class: run.class ?? 'request',
        requirement,
        level,
        caughtBy,
        collateral,
        testsRun: records.filter(ran).length,
        killed: caughtBy.length > 0,
      };
    }),
  );
  for (const target of plan.targets.filter((t) => t.kind === 'round')) {
    const given = new Set(target.faults.flatMap((run) => run.tests ?? []));
    const ranKeys = new Set((byProject.get(target.name) ?? []).map((r) => r.key));
    const differ =
      [...given].filter((key) => !ranKeys.has(key)).length + [...ranKeys].filter((key) => !given.has(key)).length;
    if (differ > 0)
      throw new Error(
        `${target.name} ran other tests than its faults were given (${differ} differ): the grep of proof.config.ts and checks() of plan.ts disagree`,
      );
  }
  const faulted = new Set(kills.map((k) => k.requirement));
  return {
    clean: {
      tests: clean.length,
      skipped: skippedIn(clean),
      problems: problemsIn(clean),
      mustNotPassed: requirements.filter((r) => r.level === 'MUST' && !cleanPassed.has(r.id)).map((r) => r.id),
    },
    portability: {
      tests: portability.length,
      testsByTarget: Object.fromEntries(
        plan.targets.filter((t) => t.kind === 'portability').map((t) => [t.name, recordsOf(t.name).length]),
      ),
      skipped: skippedIn(portability),
      problems: problemsIn(portability),
    },
    kills,
    mustWithoutFault: requirements.filter((r) => r.level === 'MUST' && !faulted.has(r.id)).map((r) => r.id),
    mutationScore: kills.length === 0 ? 0 : kills.filter((k) => k.killed).length / kills.length,
    observations: Object.fromEntries(
      plan.targets
        .filter((t) => t.kind === 'clean' || t.kind === 'portability')
        .map((t) => {
          const byId: Record<string, string[]> = {};
          for (const mark of recordsOf(t.name)
            .flatMap((r) => marksOf(r.annotations))
            .filter((m) => m.kind === 'observed'))
            (byId[mark.id] ??= []).push(mark.detail);
          return [t.name, byId];
        }),
    ),
    waits: Object.fromEntries(
      plan.targets
        .filter((t) => t.kind === 'clean' || t.kind === 'portability')
        .map((t) => {
          const waits = waitsOf(t);
          return [t.name, waits && { windowEnds: waits.windowEnds.length, heldAnswers: heldAnswers(waits) }];
        }),
    ),
    verdicts: Object.fromEntries(
      plan.targets
        .filter((t) => t.kind === 'clean' || t.kind === 'portability')
        .map((t) => [
          t.name,
          Object.fromEntries(
            judgedProfiles.map((profile) => [profile, profileVerdict(recordsOf(t.name), profile)]),
          ) as Record<JudgedProfile, ProfileVerdict>,
        ]),
    ),
  };
}

export function killMatrixMarkdown(analysis: ProofAnalysis, durationMs: number): string {
  const killed = analysis.kills.filter((k) => k.killed).length;
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    '# Kill matrix',
    '',
    `Mutation score: **${(analysis.mutationScore * 100).toFixed(1)}%** (${killed} of ${analysis.kills.length} faults caught), proof run ${(durationMs / 1000).toFixed(1)} s.`,
    `Clean reference sandbox: ${analysis.clean.tests} tests, ${analysis.clean.problems.length} problems, ${analysis.clean.skipped.length} skipped; MUST requirements not passed: ${analysis.clean.mustNotPassed.join(', ') || 'none'}.`,
    `Portability (${Object.keys(analysis.portability.testsByTarget)
      .map((name) => name.replace('portability/', ''))
      .join(
        ', ',
      )}): ${analysis.portability.tests} tests, ${analysis.portability.problems.filter((p) => p.outcome === 'failed').length} failures, ${analysis.portability.skipped.length} skipped; SHOULD warnings: ${
      analysis.portability.problems
        .filter((p) => p.outcome === 'warning')
        .map((p) => p.requirement)
        .join(', ') || 'none'
    }.`,
    `MUST requirements without a fault: ${analysis.mustWithoutFault.join(', ') || 'none'}.`,
    `Verdicts of the correct targets (gate; certify): ${Object.entries(analysis.verdicts)
      .map(([name, v]) => `${name}: ${v.gate.result}; ${v.certify.result}`)
      .join(' | ')}.`,
    `Waits that ended on their window against the correct targets (of them, while their event was held): ${Object.entries(
      analysis.waits,
    )
      .map(([name, w]) => `${name}: ${w ? `${w.windowEnds} (${w.heldAnswers.length})` : 'no receiver'}`)
      .join(', ')}.`,
    '',
    `Faults by class: ${[...new Set(analysis.kills.map((k) => k.class))].map((c) => `${c} ${analysis.kills.filter((k) => k.class === c && k.killed).length} of ${analysis.kills.filter((k) => k.class === c).length} caught`).join(', ')}.`,
    '',
    '| Fault | Class | Requirement | Level | Caught | Checks that caught it | Collateral |',
    '|---|---|---|---|---|---|---|',
    ...analysis.kills.map(
      (k) =>
        `| ${k.fault} | ${k.class} | ${k.requirement} | ${k.level} | ${k.killed ? 'yes' : '**SURVIVED**'} | ${cell(k.caughtBy.join('<br>') || `(none of ${k.testsRun} tests)`)} | ${cell(k.collateral.join(', ') || '—')} |`,
    ),
    '',
  ].join('\n');
}
