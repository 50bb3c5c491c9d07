import { operation, type OperationId } from '../catalog/catalog.ts';
import { fieldsOf, hasStatedType, type FieldShape, type JsonType } from '../schemas/fields.ts';
import { isObject } from '../schemas/json-value.ts';

/**
 * Request validation read from the operation's request schema in schemas/ (the one home of field types). Checks look
 * one level deep, and into array items, so no input can make them recurse.
 */

const article = (type: JsonType) => (['array', 'object', 'integer'].includes(type) ? `an ${type}` : `a ${type}`);

function expectedOf(field: FieldShape): string {
  const types = field.types.map(article).join(' or ');
  return field.items ? `${types} of ${field.items.map((t) => `${t}s`).join(' or ')}` : types;
}

function requestFields(id: OperationId): readonly FieldShape[] {
  const schemaId = operation(id).requestSchema;
  if (!schemaId) throw new Error(`catalog/operations.json gives ${id} no request schema`);
  return fieldsOf(schemaId);
}

/** The first member present with a JSON type other than the schema states (null included), described; undefined when all are right. */
export function fieldTypeIssue(body: Record<string, unknown>, id: OperationId): string | undefined {
  for (const field of requestFields(id)) {
    if (!(field.name in body)) continue;
    const value = body[field.name];
    const itemsWrong =
      field.items && Array.isArray(value) && !value.every((item) => hasStatedType(item, field.items ?? []));
    if (!hasStatedType(value, field.types) || itemsWrong) return `${field.name} must be ${expectedOf(field)}`;
  }
  return undefined;
}

/** A number or boolean as the text a coercing parser makes of it, where a string is stated; any other value as it is. */
function asString(value: unknown): unknown {
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
}

/** "true" or "false" as the boolean a coercing parser makes of it, where a boolean is stated; any other value as it is. */
function asBoolean(value: unknown): unknown {
  return value === 'true' ? true : value === 'false' ? false : value;
}

/**
 * The body as a coercing parser reads it (Jackson's default, Java's protobuf JsonFormat): a number or boolean where
 * the schema states a string (a member, or an item of a list of strings) becomes its text, "true"/"false" where it
 * states a boolean becomes the boolean. Every other mismatch is left for fieldTypeIssue to refuse.
 */
export function coercedScalars(body: Record<string, unknown>, id: OperationId): Record<string, unknown> {
  const out = { ...body };
  for (const field of requestFields(id)) {
    if (!(field.name in out)) continue;
    const value = out[field.name];
    if (field.types.includes('string')) out[field.name] = asString(value);
    else if (field.types.includes('boolean')) out[field.name] = asBoolean(value);
    else if (field.items?.includes('string') && Array.isArray(value)) out[field.name] = value.map(asString);
  }
  return out;
}

/** The members the operation's request schema requires. */
export function requiredFields(id: OperationId): string[] {
  return requestFields(id)
    .filter((f) => f.required)
    .map((f) => f.name);
}

/** The first required member that is missing or not a non-empty string. */
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
  return isObject(value) ? value : undefined;
}
