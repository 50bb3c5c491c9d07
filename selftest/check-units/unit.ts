import type { Findings } from '../../kit/findings.ts';
import type { Verdict } from '../../kit/verdict.ts';

/** The check called on one input, with the requirement it is to judge. */
export type UnitInput<F extends Findings> = (findings: F, id: string) => unknown;

/**
 * A check's units: the requirement of a row that cites it, and the check called on a good input (it passes) and on a
 * bad one (it fails), each taken from a recorded exchange; where one rule has several ways to hold or to break, each
 * is a named input. An INFO requirement is observed, never failed: its bad input is one whose observation the good
 * one does not show.
 */
export interface CheckUnit<F extends Findings> {
  id: string;
  good: UnitInput<F> | Readonly<Record<string, UnitInput<F>>>;
  bad: UnitInput<F> | Readonly<Record<string, UnitInput<F>>>;
}

export type ServerUnit = CheckUnit<Verdict>;
export type ClientUnit = CheckUnit<Findings>;
