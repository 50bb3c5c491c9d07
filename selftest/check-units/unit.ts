import type { Findings } from '../../kit/findings.ts';
import type { Verdict } from '../../kit/verdict.ts';

/**
 * A check's two units: the requirement of a row that cites it, and the check called on a good input (it passes) and
 * on a bad one (it fails), each taken from a recorded exchange. An INFO requirement is observed, never failed: its bad
 * input is one whose observation the good one does not show.
 */
export interface CheckUnit<F extends Findings> {
  id: string;
  good: (findings: F, id: string) => unknown;
  bad: (findings: F, id: string) => unknown;
}

export type ServerUnit = CheckUnit<Verdict>;
export type ClientUnit = CheckUnit<Findings>;
