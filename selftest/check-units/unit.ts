import type { Findings } from '../../kit/findings.ts';
import type { Verdict } from '../../kit/verdict.ts';

/**
 * A check's units: the requirement of a row that cites it, and the check called on each good input (it passes) and
 * each bad one (it fails), by the way it holds or breaks the rule ('' for the only one). An INFO requirement is
 * observed, never failed: its bad input observes what no good one does.
 */
export interface CheckUnit {
  id: string;
  good: Inputs;
  bad: Inputs;
}
type Inputs = ReadonlyMap<string, (findings: never, id: string) => unknown>;

/** Several inputs of one kind, each named by the way it holds or breaks the rule. */
export const each = <const T>(inputs: Readonly<Record<string, T>>): Map<string, T> => new Map(Object.entries(inputs));

/** A unit from data: its good and bad inputs (one, or several by name) and the check's call on one (a target's on a Verdict). */
export function unitOf<F extends Findings = Verdict, T = unknown>(
  id: string,
  good: NoInfer<T | Map<string, T>>,
  bad: NoInfer<T | Map<string, T>>,
  call: (findings: F, id: string, input: T) => unknown,
): CheckUnit {
  const inputs = (given: T | Map<string, T>): Inputs => {
    const named = given instanceof Map ? (given as Map<string, T>) : new Map([['', given as T]]);
    return new Map([...named].map(([name, input]) => [name, (f: F, i: string) => call(f, i, input)]));
  };
  return { id, good: inputs(good), bad: inputs(bad) };
}
