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

const named = Symbol('named inputs');
/** Several inputs of one kind, each named by the way it holds or breaks the rule. */
export type Each<T> = { readonly [named]: Readonly<Record<string, T>> };
export const each = <const T>(inputs: Readonly<Record<string, T>>): Each<T> => ({ [named]: inputs });

/** A unit from data: the check's call on one input (a value of the table), its good and its bad inputs. */
export function unitOf<F extends Findings, T>(
  id: string,
  call: (findings: F, id: string, input: T) => unknown,
  good: T | Each<T>,
  bad: T | Each<T>,
): CheckUnit<F> {
  const inputs = (given: T | Each<T>): CheckUnit<F>['good'] =>
    typeof given === 'object' && given !== null && named in given
      ? Object.fromEntries(
          Object.entries(given[named]).map(([name, input]) => [name, (f: F, i: string) => call(f, i, input)]),
        )
      : (f: F, i: string) => call(f, i, given);
  return { id, good: inputs(good), bad: inputs(bad) };
}
