import { Redactor } from '../kit/redact.ts';

/**
 * Makes JSON.stringify of `value` produce a copy with the secrets masked, leaving the value itself untouched. The
 * JSON reporter writes the whole configuration into results.json, including every project's `use` (the suite
 * configuration, with its API keys).
 */
export function serializeRedacted<T extends object>(value: T, secrets: Iterable<string | undefined>): T {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  Object.defineProperty(value, 'toJSON', {
    enumerable: false,
    configurable: true,
    value: () => redactor.json(JSON.parse(JSON.stringify({ ...value }))),
  });
  return value;
}
