import type { TestInfo } from '@playwright/test';
import { Redactor } from '../kit/redact.ts';
import { Verdict } from '../kit/verdict.ts';
import { citeAnnotation } from '../kit/verdict-marks.ts';

/** A verdict outside a conformance run, and what it wrote: the annotations it marks and the reasons it skipped for. */
export interface BareVerdict {
  verdict: Verdict;
  annotations: TestInfo['annotations'];
  /** Each reason the test was skipped for (blocked, not configured): the skip throws, as Playwright's does. */
  skipped: string[];
}

/** A verdict citing `ids` into a bare annotation list, under the gate profile, its secrets redacted by `redactor`. */
export function bareVerdict(ids: readonly string[], { redactor = new Redactor([]) } = {}): BareVerdict {
  const annotations: TestInfo['annotations'] = ids.map(citeAnnotation);
  const skipped: string[] = [];
  const info = {
    annotations,
    skip: (_: boolean, reason: string) => {
      skipped.push(reason);
      throw new Error('skipped');
    },
  } as unknown as TestInfo;
  return { verdict: new Verdict(info, 'gate', redactor), annotations, skipped };
}
