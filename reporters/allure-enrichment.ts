import { requirement, type Level, type Requirement } from '../catalog/catalog.ts';
import { citedIds as citedIn } from '../kit/verdict-marks.ts';
import type { SpecParts } from './spec-parts.ts';
import { outcomeInTest, type RequirementOutcome, type TestRecord } from './verdicts.ts';

/** The label that sorts a test into one of the report's categories (allure-config.ts matches on it). */
export const VERDICT_LABEL = 'verdict';
export const TEST_VERDICT = {
  mustFailed: 'MUST failed',
  shouldWarning: 'SHOULD warning',
  blocked: 'MUST blocked',
  notExercised: 'not exercised',
  notProduced: 'not exercised: the target never produced it',
  notConfigured: 'not configured',
  passed: 'passed',
  observed: 'observed',
} as const;
export type TestVerdict = (typeof TEST_VERDICT)[keyof typeof TEST_VERDICT];

const SEVERITY: Record<Level, string> = { MUST: 'critical', SHOULD: 'normal', INFO: 'minor' };
const LEVEL_ORDER: Level[] = ['MUST', 'SHOULD', 'INFO'];

export interface AllureLabel {
  name: string;
  value: string;
}

export interface AllureLink {
  name: string;
  url: string;
  type: string;
}

export interface RequirementRow {
  requirement: Requirement;
  outcome: RequirementOutcome;
  detail?: string;
}

export interface AllureEnrichment {
  labels: AllureLabel[];
  links: AllureLink[];
  /** Markdown: each cited requirement with its level, part, statement and outcome in this test. */
  description: string;
  rows: RequirementRow[];
  verdict: TestVerdict;
}

export function citedIds(record: Pick<TestRecord, 'annotations'>): string[] {
  return citedIn(record.annotations);
}

/** One test's verdict for the categories: a failed MUST first, a blocked one, a SHOULD warning, then anything not exercised or not configured. */
export function testVerdict(rows: readonly RequirementRow[]): TestVerdict {
  if (rows.some((r) => r.outcome === 'failed' && r.requirement.level === 'MUST')) return TEST_VERDICT.mustFailed;
  if (rows.some((r) => r.outcome === 'blocked' && r.requirement.level === 'MUST')) return TEST_VERDICT.blocked;
  if (rows.some((r) => r.outcome === 'warning' || r.outcome === 'failed' || r.outcome === 'blocked'))
    return TEST_VERDICT.shouldWarning;
  if (rows.some((r) => r.outcome === 'not-exercised')) return TEST_VERDICT.notExercised;
  if (rows.some((r) => r.outcome === 'not-configured')) return TEST_VERDICT.notConfigured;
  if (rows.some((r) => r.outcome === 'not-produced')) return TEST_VERDICT.notProduced;
  if (rows.length > 0 && rows.every((r) => r.outcome === 'observed')) return TEST_VERDICT.observed;
  return TEST_VERDICT.passed;
}

/**
 * Allure metadata of one test, from the catalog, so that the behaviours tree reads part -> requirement -> test:
 * epic = each spec part cited, feature = each requirement ID with its level, parentSuite = the Playwright project
 * (the service), severity from the highest level cited, tags = the levels, a link to each part's clause, and the
 * verdict label the categories sort on.
 */
export function allureEnrichment(record: TestRecord, parts: SpecParts): AllureEnrichment {
  const rows: RequirementRow[] = citedIds(record).map((id) => {
    const req = requirement(id);
    return { requirement: req, ...outcomeInTest(req, record) };
  });
  const levels = LEVEL_ORDER.filter((level) => rows.some((r) => r.requirement.level === level));
  const specParts = [...new Set(rows.map((r) => r.requirement.part))].map((part) => parts.of(part));
  const verdict = testVerdict(rows);
  const labels: AllureLabel[] = [
    ...specParts.map((p) => ({ name: 'epic', value: p.title ? `${p.part} ${p.title}` : `part ${p.part}` })),
    ...rows.map((r) => ({ name: 'feature', value: `${r.requirement.id} (${r.requirement.level})` })),
    ...(record.project ? [{ name: 'parentSuite', value: record.project }] : []),
    ...(levels[0] ? [{ name: 'severity', value: SEVERITY[levels[0]] }] : []),
    ...levels.map((level) => ({ name: 'tag', value: level })),
    { name: VERDICT_LABEL, value: verdict },
  ];
  const links = specParts.flatMap((p) =>
    p.url ? [{ name: `interface.md part ${p.part}${p.title ? ` (${p.title})` : ''}`, url: p.url, type: 'link' }] : [],
  );
  const description = rows
    .map((r) => {
      const basis = r.requirement.rfc
        ? `part ${r.requirement.part}; ${r.requirement.rfc}`
        : `part ${r.requirement.part}`;
      const detail = r.detail && r.outcome !== 'passed' ? ` — ${r.detail.split('\n')[0]}` : '';
      return `- **${r.requirement.id}** (${r.requirement.level}, ${basis}): ${r.requirement.statement} → **${r.outcome}**${detail}`;
    })
    .join('\n');
  return { labels, links, description, rows, verdict };
}
