import { TEST_VERDICT, VERDICT_LABEL } from './allure-enrichment.ts';

const exactly = (value: string) => `^${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;

/**
 * Allure 3 categories, matched on the verdict label the reporter gives every test: failed MUST requirements,
 * MUST requirements the target blocked, SHOULD warnings (the test itself passes outside the certify profile), and
 * requirements not exercised or not configured.
 */
export const conformanceCategories = [
  {
    id: 'must-failed',
    name: 'MUST requirements failed',
    matchers: { labels: { [VERDICT_LABEL]: exactly(TEST_VERDICT.mustFailed) } },
    expand: true,
  },
  {
    id: 'must-blocked',
    name: 'MUST requirements blocked',
    matchers: { labels: { [VERDICT_LABEL]: exactly(TEST_VERDICT.blocked) } },
    expand: true,
  },
  {
    id: 'should-warning',
    name: 'SHOULD warnings',
    matchers: { labels: { [VERDICT_LABEL]: exactly(TEST_VERDICT.shouldWarning) } },
  },
  {
    id: 'not-exercised',
    name: 'Not exercised',
    matchers: { labels: { [VERDICT_LABEL]: exactly(TEST_VERDICT.notExercised) } },
  },
  {
    id: 'not-produced',
    name: 'Not exercised: the target never produced it',
    matchers: { labels: { [VERDICT_LABEL]: exactly(TEST_VERDICT.notProduced) } },
  },
  {
    id: 'not-configured',
    name: 'Not configured',
    matchers: [{ labels: { [VERDICT_LABEL]: exactly(TEST_VERDICT.notConfigured) } }, { statuses: ['skipped'] }],
  },
];

export interface AllureReportSettings {
  name: string;
  output: string;
  /** Allure 3 keeps history in one JSON-lines file that each generation appends to; unset: no history. */
  historyPath?: string;
}

/** The allurerc of the conformance report: one self-contained HTML file, grouped by spec part, then requirement. */
export function allureReportConfig(settings: AllureReportSettings): Record<string, unknown> {
  return {
    name: settings.name,
    output: settings.output,
    ...(settings.historyPath ? { historyPath: settings.historyPath } : {}),
    categories: conformanceCategories,
    plugins: {
      awesome: {
        options: {
          singleFile: true,
          reportName: settings.name,
          reportLanguage: 'en',
          groupBy: ['epic', 'feature'],
        },
      },
    },
  };
}
