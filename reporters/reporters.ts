import type { ReporterDescription } from '@playwright/test';
import { interfaceInfo } from '../catalog/catalog.ts';
import type { SuiteConfig } from '../fixtures/config/load-config.ts';
import type { ConformanceReporterOptions } from './conformance-reporter.ts';

/** The reporters of a conformance run; REPORTS_DIR moves all of their files (the kill matrix gives each run its own). */
export function reportersFor(suite: SuiteConfig, reportsDir = process.env.REPORTS_DIR ?? 'reports'): ReporterDescription[] {
  const conformance: ConformanceReporterOptions = {
    outputDir: reportsDir,
    profile: suite.profile,
    environment: {
      'interface version': interfaceInfo.version,
      target: suite.embedded ? 'embedded sandbox' : suite.services.identity.baseUrl,
      seed: String(suite.seed),
    },
  };
  return [
    [process.env.CI ? 'dot' : 'list'],
    ['junit', { outputFile: `${reportsDir}/junit.xml` }],
    ['json', { outputFile: `${reportsDir}/results.json` }],
    ['./reporters/conformance-reporter.ts', conformance],
  ];
}
