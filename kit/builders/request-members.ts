import { operation, requirements, type OperationId, type Requirement } from '../../catalog/catalog.ts';
import { fieldsOf, type FieldShape, type JsonType } from '../../schemas/fields.ts';

/**
 * The rows of the member checks, generated from the request schemas of schemas/ (the one home of field types) and the
 * requirements that claim them (catalog: wrongTypes, requiredOf): every JSON type but the stated one on every member,
 * items of arrays included; every required member missing and null; every optional member left out. No wrong-type
 * table is written by hand.
 */

/** The operations with a request body (parts 2.1, 2.3, 2.5, 2.6). */
export const bodyOperations = [
  'assessment',
  'documentVerification',
  'caseUpdate',
  'stepUp',
] as const satisfies readonly OperationId[];
export type BodyOperation = (typeof bodyOperations)[number];

type WrongType = Exclude<JsonType, 'integer' | 'null'>;

/** A value of each JSON type, to send where another type is stated. */
const samples: Readonly<Record<WrongType, { name: string; value: unknown }>> = {
  string: { name: 'a string', value: 'a string where another type is stated' },
  number: { name: 'a number', value: 42 },
  boolean: { name: 'a boolean', value: true },
  object: { name: 'an object', value: { member: 'value' } },
  array: { name: 'an array', value: ['item'] },
};
const wrongTypeNames = Object.keys(samples) as WrongType[];

export interface Variant {
  /** What is sent, for the title ("a number", "an array of booleans"). */
  name: string;
  /** The JSON type key a claim names ("number", "items:boolean"). */
  key: string;
  value: unknown;
}

export interface WrongTypeRow {
  operation: BodyOperation;
  field: string;
  requirement: string;
  variants: Variant[];
}

function statedTypes(field: FieldShape): WrongType[] {
  // An integer is a number to JSON; a member stated as a number takes any number.
  return field.types.map((t) => (t === 'integer' ? 'number' : t)).filter((t): t is WrongType => t !== 'null');
}

function variantsOf(field: FieldShape): Variant[] {
  const stated = statedTypes(field);
  const whole = wrongTypeNames
    .filter((t) => !stated.includes(t))
    .map((t) => ({ name: samples[t].name, key: t, value: samples[t].value }));
  const items = field.items?.map((t) => (t === 'integer' ? 'number' : t)) ?? [];
  // A right item first, then the wrong one: an implementation that checks no item, only the first, or only that some
  // item is right accepts it (found by mutating sandbox/field-rules.ts: docs/mutation.md).
  const right = items.find((t): t is WrongType => t in samples);
  const wrongItems = field.items
    ? wrongTypeNames
        .filter((t) => !items.includes(t))
        .map((t) => ({
          name: `an array of ${right ? `${right}s and ` : ''}${t}s`,
          key: `items:${t}`,
          value: [...(right ? [samples[right].value] : []), samples[t].value],
        }))
    : [];
  return [...whole, ...wrongItems];
}

/** Whether a requirement's claim covers this member with this wrong type. */
function claims(req: Requirement, op: OperationId, field: string, key: string): boolean {
  const claim = req.wrongTypes;
  if (!claim || claim.operation !== op) return false;
  if (claim.only) return claim.only[field]?.includes(key) ?? false;
  const excepted = claim.except?.[field];
  return !(excepted === '*' || (Array.isArray(excepted) && excepted.includes(key)));
}

/** One row per member and requirement: the wrong JSON types of the member that requirement judges. */
export function wrongTypeRows(op: BodyOperation): WrongTypeRow[] {
  const rows: WrongTypeRow[] = [];
  for (const field of requestFields(op)) {
    for (const req of requirements) {
      const variants = variantsOf(field).filter((v) => claims(req, op, field.name, v.key));
      if (variants.length > 0) rows.push({ operation: op, field: field.name, requirement: req.id, variants });
    }
  }
  return rows;
}

/** The members of a request no requirement judges for a wrong type, with the types left out: what the coverage lists as left open. */
export function unjudgedTypes(op: BodyOperation): Array<{ field: string; keys: string[] }> {
  return requestFields(op)
    .map((field) => ({
      field: field.name,
      keys: variantsOf(field)
        .filter((v) => !requirements.some((req) => claims(req, op, field.name, v.key)))
        .map((v) => v.key),
    }))
    .filter((row) => row.keys.length > 0);
}

export interface RequiredRow {
  operation: BodyOperation;
  field: string;
  requirement: string;
}

/** Each required member of the operation, judged missing and null by the requirement whose requiredOf names it. */
export function requiredRows(op: BodyOperation): RequiredRow[] {
  const req = requirements.find((r) => r.requiredOf === op);
  const required = requestFields(op).filter((f) => f.required);
  if (required.length > 0 && !req)
    throw new Error(`No requirement of catalog/requirements.json has requiredOf "${op}"`);
  return required.map((f) => ({ operation: op, field: f.name, requirement: (req as Requirement).id }));
}

/**
 * The requirement that refuses a request without the operation's required members, when it has any: a body that is
 * JSON but no object carries none of them.
 */
export function notAnObjectRequirement(op: BodyOperation): string | undefined {
  return requiredRows(op)[0]?.requirement;
}

export function notAnObjectTitle(op: BodyOperation): string {
  return `${operation(op).noun} whose body is JSON but no object (null, an array holding a valid request, that request as a string) is refused`;
}

/**
 * The optional members of the operation's request that a client sends on its own behalf. sharedContext is a
 * reseller's (part 1): a server may refuse it from another client, so the reseller checks judge it.
 */
export function optionalMembers(op: BodyOperation): string[] {
  return requestFields(op)
    .filter((f) => !f.required && f.name !== 'sharedContext')
    .map((f) => f.name);
}

function requestFields(op: OperationId): readonly FieldShape[] {
  const schemaId = operation(op).requestSchema;
  if (!schemaId) throw new Error(`catalog/operations.json gives ${op} no request schema`);
  return fieldsOf(schemaId);
}

const listed = (names: readonly string[]) =>
  names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;

/** The title of a wrong-type check; its start ("… with <field> as ") also names the row in catalog statements. */
export function wrongTypeTitle(row: WrongTypeRow): string {
  return `${operation(row.operation).noun} with ${row.field} as ${listed(row.variants.map((v) => v.name))} is refused, or answered in the types the document states`;
}

export function wrongTypeTitleStart(op: OperationId, field: string): string {
  return `${operation(op).noun} with ${field} as `;
}

export function requiredTitle(row: RequiredRow): string {
  return `${operation(row.operation).noun} without ${row.field}, or with ${row.field} null, is refused`;
}

export function requiredTitleStart(op: OperationId, field: string): string {
  return `${operation(op).noun} without ${field},`;
}
