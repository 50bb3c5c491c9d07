import { enumValues } from '../schemas/registry.ts';
import type { EnumName } from '../schemas/registry.ts';

export type { EnumName };
export { enumDefault } from '../schemas/registry.ts';

/** The allowed values of an enumeration of schemas/enums.schema.json; the sandbox never keeps its own copy. */
export function allowedValues(name: EnumName): readonly string[] {
  return enumValues(name);
}

/** Fails at start-up when a value the sandbox sends is not (or no longer) in its enumeration. */
export function member(name: EnumName, value: string): string {
  if (!enumValues(name).includes(value))
    throw new Error(`sandbox: "${value}" is not a value of ${name} in schemas/enums.schema.json`);
  return value;
}
