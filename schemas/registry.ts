import { readdirSync, readFileSync } from 'node:fs';
import type { AnySchemaObject, ErrorObject } from 'ajv/dist/2020.js';
import { loadValidators, type Validate } from './validators.ts';

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
}

// Compiled ahead of time and cached (schemas/validators.ts), loaded on first use: a process that validates nothing
// never loads them.
let validators: Map<string, Validate> | undefined;
function validatorFor(id: string): Validate | undefined {
  validators ??= loadValidators(loadedSchemas);
  return validators.get(id);
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
  const own = (i: SchemaIssue) =>
    issues.some((o) => o !== i && o.instancePath === i.instancePath && o.keyword !== 'anyOf' && !isNullBranch(o));
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
