import { isPlainObject } from './body.ts';

/** JSON types the request tables of part 2 use. Checks look one level deep only, so no input can make them recurse. */
export type FieldType = 'string' | 'boolean' | 'object' | 'array' | 'string-array' | 'object-array';

export type FieldRules = Readonly<Record<string, FieldType>>;

function hasType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isPlainObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string-array':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'object-array':
      return Array.isArray(value) && value.every((item) => isPlainObject(item));
  }
}

const typeNames: Record<FieldType, string> = {
  string: 'a string',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  'string-array': 'an array of strings',
  'object-array': 'an array of objects',
};

/** The first field present with the wrong JSON type, described; undefined when all are right. */
export function fieldTypeIssue(body: Record<string, unknown>, rules: FieldRules): string | undefined {
  for (const [name, type] of Object.entries(rules)) {
    if (!(name in body)) continue;
    if (!hasType(body[name], type)) return `${name} must be ${typeNames[type]}`;
  }
  return undefined;
}

/** The first required field that is missing or not a non-empty string. */
export function requiredStringIssue(body: Record<string, unknown>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = body[name];
    if (typeof value !== 'string' || value === '') return `${name} is required and must be a non-empty string`;
  }
  return undefined;
}

export function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}

export function optionalObject(body: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  const value = body[name];
  return isPlainObject(value) ? value : undefined;
}
