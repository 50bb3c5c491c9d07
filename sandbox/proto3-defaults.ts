import { isObject } from '../schemas/json-value.ts';

/** A value proto3 JSON leaves out by default: "", 0, false, an empty list or object (an unset message), null. */
function isEmptyValue(value: unknown): boolean {
  return (
    value === '' ||
    value === 0 ||
    value === false ||
    value === null ||
    (Array.isArray(value) && value.length === 0) ||
    (isObject(value) && Object.keys(value).length === 0)
  );
}

/**
 * A message as a proto3 JSON writer with default settings writes it: without the members holding their default.
 * `defaults` names the members whose default is another value (an enum at its first value, an int64 written "0").
 */
export function withoutProto3Defaults(
  message: Record<string, unknown>,
  defaults: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(message).filter(
      ([name, value]) => !(name in defaults ? value === defaults[name] || isEmptyValue(value) : isEmptyValue(value)),
    ),
  );
}
