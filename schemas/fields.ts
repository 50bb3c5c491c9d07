import { schemaDocument, type EnumName } from './registry.ts';
import { isObject } from './json-value.ts';

/** The JSON types a member can be stated to have (JSON Schema's names). */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

export const jsonTypes: readonly JsonType[] = ['string', 'number', 'boolean', 'object', 'array', 'null'];

/** One top-level member of a body, as its schema in schemas/ states it: the one home of field types. */
export interface FieldShape {
  name: string;
  /** The JSON types stated for the member, null apart. */
  types: JsonType[];
  /** Whether null is allowed (an optional member of a response or event: unset, in the proto3 JSON mapping). */
  nullable: boolean;
  required: boolean;
  /** For an array, the types stated for its items. */
  items?: JsonType[];
  /** For a member whose values are an enumeration of schemas/enums.schema.json. */
  enumName?: EnumName;
  /** The definition of schemas/ the member refers to ('Int64String', 'OpenObject', an enum...), if any. */
  definition?: string;
}

type Node = { type?: JsonType | JsonType[]; $ref?: string; anyOf?: Node[]; items?: Node; enum?: unknown[] };

/** The schema a $ref points to (`<schema id>#/$defs/<name>`), from the loaded documents. */
function resolved(node: Node): { node: Node; enumName?: EnumName; definition?: string } {
  if (!node.$ref) return { node };
  const [base = '', pointer = ''] = node.$ref.split('#');
  const name = pointer.replace(/^\/\$defs\//, '');
  const defs = schemaDocument(base)['$defs'];
  const target = isObject(defs) ? (defs[name] as Node | undefined) : undefined;
  if (!target) throw new Error(`schemas/fields.ts cannot resolve ${node.$ref}`);
  return {
    node: target,
    definition: name,
    ...(base.endsWith('/enums.schema.json') ? { enumName: name as EnumName } : {}),
  };
}

function typesOf(node: Node): { types: JsonType[]; enumName?: EnumName; items?: JsonType[]; definition?: string } {
  const branches = node.anyOf ?? [node];
  const types: JsonType[] = [];
  let enumName: EnumName | undefined;
  let definition: string | undefined;
  let items: JsonType[] | undefined;
  for (const branch of branches) {
    const { node: target, enumName: named, definition: defined } = resolved(branch);
    enumName ??= named;
    definition ??= defined;
    const stated = target.type === undefined ? [] : Array.isArray(target.type) ? target.type : [target.type];
    types.push(...stated);
    if (target.items) items = typesOf(target.items).types;
  }
  return {
    types: [...new Set(types)],
    ...(enumName ? { enumName } : {}),
    ...(items ? { items } : {}),
    ...(definition ? { definition } : {}),
  };
}

const cache = new Map<string, readonly FieldShape[]>();

/** The top-level members of a body schema, in the order the schema lists them. */
export function fieldsOf(schemaId: string): readonly FieldShape[] {
  const cached = cache.get(schemaId);
  if (cached) return cached;
  const schema = schemaDocument(schemaId);
  const required = new Set((schema['required'] as string[] | undefined) ?? []);
  const properties = (schema['properties'] ?? {}) as Record<string, Node>;
  const fields = Object.entries(properties).map(([name, node]): FieldShape => {
    const { types, enumName, items, definition } = typesOf(node);
    return {
      name,
      types: types.filter((t) => t !== 'null'),
      nullable: types.includes('null'),
      required: required.has(name),
      ...(items ? { items } : {}),
      ...(enumName ? { enumName } : {}),
      ...(definition ? { definition } : {}),
    };
  });
  cache.set(schemaId, Object.freeze(fields));
  return fields;
}

/** The JSON type of a value, as JSON Schema names it ('integer' counts as 'number'). */
export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'object')
    return typeof value as JsonType;
  throw new Error(`not a JSON value: ${typeof value}`);
}

/** Whether a value has one of the stated types (an integer is a number). */
export function hasStatedType(value: unknown, types: readonly JsonType[]): boolean {
  const type = jsonTypeOf(value);
  return types.includes(type) || (type === 'number' && types.includes('integer') && Number.isInteger(value));
}
