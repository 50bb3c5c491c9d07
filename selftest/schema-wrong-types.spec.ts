import { expect, test } from '@playwright/test';
import { requirements } from '../catalog/catalog.ts';
import { fieldsOf, jsonTypes, type FieldShape, type JsonType } from '../schemas/fields.ts';
import { enumValues, schemaIdFor, schemaIssues } from '../schemas/registry.ts';

// Generated from schemas/ (the one home of field types): every member of every answer and event schema the checks
// judge (catalog: checksSchema) refuses every JSON type but its stated one, and null unless it is optional.

const samples: Record<Exclude<JsonType, 'integer'>, unknown> = {
  string: 'text',
  number: 42,
  boolean: true,
  object: { member: 1 },
  array: ['item'],
  null: null,
};

/** A value of the member's stated type, valid for its schema (an enum's first value, an int64 string...). */
function validValue(field: FieldShape): unknown {
  if (field.enumName) return enumValues(field.enumName)[0];
  if (field.definition === 'Int64String') return '7';
  const [type = 'string'] = field.types;
  return type === 'integer' ? 1 : samples[type];
}

const checkedSchemas = requirements
  .filter((r) => r.checksSchema)
  .map((r) => ({ requirement: r.id, schemaId: schemaIdFor(r.checksSchema as string) }));

/** The JSON types a member of `types` must refuse: every other but null (an integer member takes no number). */
const otherTypes = (types: readonly JsonType[]) =>
  jsonTypes.filter((t) => t !== 'null' && !types.includes(t) && !(t === 'number' && types.includes('integer')));

for (const { requirement, schemaId } of checkedSchemas) {
  test(`every member of ${schemaId.split('/').at(-1)} (${requirement}) refuses every JSON type but its own`, () => {
    const fields = fieldsOf(schemaId);
    const valid = Object.fromEntries(fields.filter((f) => f.required).map((f) => [f.name, validValue(f)]));
    expect(schemaIssues(schemaId, valid), 'the required members alone form a valid instance').toEqual([]);
    const issuesWith = (name: string, value: unknown) => schemaIssues(schemaId, { ...valid, [name]: value });
    const sample = (type: JsonType) => samples[type as keyof typeof samples];
    for (const field of fields) {
      expect.soft(issuesWith(field.name, validValue(field)), `${field.name} in its stated type`).toEqual([]);
      for (const type of otherTypes(field.types))
        expect
          .soft(issuesWith(field.name, sample(type)).length, `${field.name} as ${type} is refused`)
          .toBeGreaterThan(0);
      for (const type of field.items ? otherTypes(field.items) : [])
        expect
          .soft(issuesWith(field.name, [sample(type)]).length, `${field.name} as an array of ${type}s is refused`)
          .toBeGreaterThan(0);
      const withNull = issuesWith(field.name, null);
      if (field.required) {
        expect.soft(withNull.length, `${field.name}, required, as null is refused`).toBeGreaterThan(0);
        const without = Object.fromEntries(Object.entries(valid).filter(([name]) => name !== field.name));
        expect
          .soft(schemaIssues(schemaId, without).length, `without ${field.name}, which is required`)
          .toBeGreaterThan(0);
      } else expect.soft(withNull, `${field.name}, optional, as null is unset (proto3 JSON)`).toEqual([]);
    }
  });
}
