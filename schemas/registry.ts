import { readdirSync, readFileSync } from 'node:fs';
import ajvModule from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import type { AnySchemaObject, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

export interface SchemaIssue {
  /** JSON Pointer into the validated value; '' is the root. */
  instancePath: string;
  message: string;
  keyword: string;
  /** Location of the failing keyword, '#/...' inside the schema that was asked for, or an absolute URI when it sits in a referenced schema. */
  schemaPath: string;
  params: Record<string, unknown>;
}

export type EnumName =
  | 'VerificationStatus'
  | 'ResendStatus'
  | 'CaseDecision'
  | 'MfaType'
  | 'ChannelType'
  | 'FulfillmentType'
  | 'DocumentRecordsData';

const schemaIdBase = 'https://conformance.example/schemas/';
const schemaFileSuffix = '.schema.json';
const schemaFolder = new URL('./', import.meta.url);

// Both packages are CommonJS modules that also set exports.default; under NodeNext TypeScript types the
// default import as the module object, and `.default` is the callable at run time as well.
const Ajv2020 = ajvModule.default;
const addFormats = formatsModule.default;

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

function isInt64Decimal(text: string): boolean {
  if (!/^-?[0-9]{1,19}$/.test(text)) return false;
  const value = BigInt(text);
  return value >= int64Min && value <= int64Max;
}

// The schemas are not checked against the 2020-12 meta-schema at every start (compiling it cost the runner and each
// worker ~35 ms): selftest/schemas.spec.ts checks each one against it.
const ajv = new Ajv2020({ strict: true, allErrors: true, validateSchema: false });
addFormats(ajv);
// ajv-formats defines int64 for numbers; the spec's int64 values travel as strings (proto3 JSON), so the
// format is redefined for strings: decimal digits within the signed 64-bit range.
ajv.addFormat('int64', { type: 'string', validate: isInt64Decimal });

const schemaFiles = readdirSync(schemaFolder)
  .filter((name) => name.endsWith(schemaFileSuffix))
  .sort();

const loadedSchemas = new Map<string, AnySchemaObject>();
for (const fileName of schemaFiles) {
  const schema = JSON.parse(readFileSync(new URL(fileName, schemaFolder), 'utf8')) as AnySchemaObject;
  const expectedId = schemaIdBase + fileName;
  if (schema.$id !== expectedId) {
    throw new Error(`schemas/${fileName} has $id ${JSON.stringify(schema.$id)}; expected "${expectedId}"`);
  }
  loadedSchemas.set(expectedId, schema);
  ajv.addSchema(schema);
}

// Compiled on first use: a worker validates a few schemas, and compiling all of them cost every worker ~100 ms.
// selftest/schemas.spec.ts compiles each one, so a broken schema still fails the self-tests.
const validators = new Map<string, ValidateFunction>();
function validatorFor(id: string): ValidateFunction | undefined {
  if (!loadedSchemas.has(id)) return undefined;
  let validate = validators.get(id);
  if (!validate) {
    validate = ajv.getSchema(id);
    if (!validate) throw new Error(`Schema ${id} was added but did not compile`);
    validators.set(id, validate);
  }
  return validate;
}

/** Every schema $id in schemas/, sorted by file name. */
export const schemaIds: readonly string[] = Object.freeze([...loadedSchemas.keys()]);

/** The $id of a schema file, given 'token-response.schema.json' or 'token-response'. */
export function schemaIdFor(fileName: string): string {
  const file = fileName.endsWith(schemaFileSuffix) ? fileName : fileName + schemaFileSuffix;
  const id = schemaIdBase + file;
  if (!loadedSchemas.has(id)) {
    throw new Error(`No schema file schemas/${file}; known files: ${schemaFiles.join(', ')}`);
  }
  return id;
}

/** The raw schema document of an id, for reporting; do not mutate. */
export function schemaDocument(schemaId: string): AnySchemaObject {
  const schema = loadedSchemas.get(schemaId);
  if (!schema) throw unknownSchema(schemaId);
  return schema;
}

function unknownSchema(schemaId: string): Error {
  return new Error(`Unknown schema id "${schemaId}"; known ids:\n  ${schemaIds.join('\n  ')}`);
}

function toIssue(error: ErrorObject): SchemaIssue {
  return {
    instancePath: error.instancePath,
    message: error.message ?? `failed the ${error.keyword} keyword`,
    keyword: error.keyword,
    schemaPath: error.schemaPath,
    params: { ...error.params } as Record<string, unknown>,
  };
}

/**
 * An optional member written as `{ anyOf: [<its schema>, { type: 'null' }] }` (null means unset in the proto3 JSON
 * mapping) fails both branches when it is wrong; what matters is why it fails its own schema, so the null branch's
 * type error and the anyOf summary are left out when the member's own errors are there.
 */
function withoutNullBranch(issues: SchemaIssue[]): SchemaIssue[] {
  const isNullBranch = (i: SchemaIssue) => i.keyword === 'type' && i.params.type === 'null';
  const own = (i: SchemaIssue) => issues.some((o) => o !== i && o.instancePath === i.instancePath && o.keyword !== 'anyOf' && !isNullBranch(o));
  return issues.filter((i) => !((isNullBranch(i) || i.keyword === 'anyOf') && own(i)));
}

/** Validates value against the schema with this $id; an empty array means it conforms. */
export function schemaIssues(schemaId: string, value: unknown): SchemaIssue[] {
  const validate = validatorFor(schemaId);
  if (!validate) throw unknownSchema(schemaId);
  if (validate(value)) return [];
  return withoutNullBranch((validate.errors ?? []).map(toIssue));
}

const enumCache = new Map<EnumName, readonly string[]>();

/** The allowed values of one enumeration, as enums.schema.json lists them. */
export function enumValues(name: EnumName): readonly string[] {
  const cached = enumCache.get(name);
  if (cached) return cached;
  const defs = schemaDocument(schemaIdFor('enums'))['$defs'] as Record<string, AnySchemaObject> | undefined;
  const values: unknown = defs?.[name]?.['enum'];
  if (!Array.isArray(values) || !values.every((v): v is string => typeof v === 'string')) {
    throw new Error(`enums.schema.json has no string enum at $defs/${name}`);
  }
  const frozen = Object.freeze([...values]);
  enumCache.set(name, frozen);
  return frozen;
}

/** The proto3 default an enumeration declares (its `default` keyword), or undefined. */
export function enumDefault(name: EnumName): string | undefined {
  const defs = schemaDocument(schemaIdFor('enums'))['$defs'] as Record<string, { default?: unknown }> | undefined;
  const value = defs?.[name]?.default;
  return typeof value === 'string' ? value : undefined;
}

function detail(issue: SchemaIssue): string {
  const { params } = issue;
  if (issue.keyword === 'enum' && Array.isArray(params['allowedValues'])) {
    return ` ${params['allowedValues'].map((v) => JSON.stringify(v)).join(', ')}`;
  }
  if (issue.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
    return ` (found "${params['additionalProperty']}")`;
  }
  return '';
}

function schemaLocation(schemaId: string, schemaPath: string): string {
  return schemaPath.startsWith('#') ? schemaId + schemaPath : schemaPath;
}

/** One readable line per issue, for failure messages. Values are not echoed, so secrets cannot leak through it. */
export function describeIssues(schemaId: string, issues: SchemaIssue[]): string {
  if (issues.length === 0) return `  (no issues against ${schemaId})`;
  return issues
    .map(
      (issue) =>
        `  at ${issue.instancePath || '(root)'}: ${issue.message}${detail(issue)} ` +
        `(${issue.keyword}, schema ${schemaLocation(schemaId, issue.schemaPath)})`,
    )
    .join('\n');
}
