import { readdirSync, readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import ajvModule from 'ajv/dist/2020.js';
import { operations, requirement } from '../catalog/catalog.ts';
import {
  describeIssues,
  enumValues,
  schemaDocument,
  schemaIdFor,
  schemaIds,
  schemaIssues,
  type EnumName,
  type SchemaIssue,
} from '../schemas/registry.ts';
import { compileValidators, loadValidators, type Validate } from '../schemas/validators.ts';

const Ajv2020 = ajvModule.default;

interface ValidCase {
  schema: BodySchema;
  variant: string;
  value: unknown;
  reqs?: string[];
}

interface Expected {
  instancePath: string;
  keyword: string;
}

interface InvalidCase extends ValidCase {
  /** Every issue the value must produce, and no others. */
  issues: Expected[];
}

const at = (instancePath: string, keyword: string): Expected => ({ instancePath, keyword });

const A = { strategy: 'default', inquiryId: 'inq-0001' };

function without(value: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
}

const caseIds = { inquiryId: 'inq-0001', authenticationId: 'case-0001' };
const validationError = { message: 'failed to validate input: fulfillment type', errorType: 'validation', code: 400 };
const S = { sessionId: 's' };
const sa = (sendAttempts: string) => ({ ...S, sendAttempts });
const dt = (creationDateTime: string) => ({ ...A, creationDateTime });

/**
 * [requirement ('' for none), variant, value, and for a value refused every issue it must produce as "path keyword"
 * pairs, comma-separated (the root is the empty path)]. One case per distinct rule of each schema: a required member,
 * a type, a format, a length or pattern, an enum, members the schema leaves open. Each member of a response or event
 * schema in its stated type, every other JSON type and null is generated in selftest/schema-wrong-types.spec.ts; each
 * member of a request schema in every JSON type, missing or null, and a body that is no object, in the checks
 * tests/{identity,stepup}/request-members.spec.ts (kit/member-rows.ts), so request schemas keep one type case here.
 */
type Row = [req: string, variant: string, value: unknown, issues?: string];
/** The body schemas written from the spec, each with its cases. */
const table = {
  'assessment-request': [
    ['ASM-ACCEPTED', 'the required members and one the spec does not list', { ...A, futureField: 1 }],
    ['', 'creationDateTime with an offset and fraction', dt('2024-05-01T10:15:30.1+02:00')],
    ['ASM-REQ-TYPES', 'userIp as an IPv6 address', { ...A, userIp: '2001:db8::1' }, '/userIp format'],
    ['ASM-REQ-TYPES', 'creationDateTime without an offset', dt('2024-05-01T10:15:30'), '/creationDateTime format'],
  ],
  'assessment-response': [
    ['ASM-RES-SCHEMA', 'tags, scoreCards of strings or objects', { tags: ['n', { name: 'v' }], scoreCards: [{}, 7] }],
    ['', 'an empty object (no field is marked required)', {}],
    ['ASM-RES-SCHEMA', 'an extra unknown field', { riskLevel: 'low' }],
    ['ASM-RES-SCHEMA', 'scoreCards as an object', { scoreCards: {} }, '/scoreCards type'],
  ],
  'document-verification-request': [
    ['DOCV-ACCEPTED', 'an empty object (every field optional)', {}],
    ['DOCV-REQ-TYPES', 'images as a string', { images: 'x' }, '/images type'],
  ],
  'document-verification-response': [
    ['', 'an extra unknown field', { inquiryId: 'i', expiresAt: 'later' }],
    ['DOCV-RES-SCHEMA', 'token as a number', { token: 1 }, '/token type'],
  ],
  'document-records': [
    ['DOCR-RES-SCHEMA', 'a lower-case formdata member, an unknown extra, not formData', { formdata: 'x' }],
    ['DOCR-RES-SCHEMA', 'ocrData as a string', { ocrData: 'x' }, '/ocrData type'],
  ],
  'case-update-request': [
    ['CU-DECISION-KEPT', 'only inquiryId and authenticationId', caseIds],
    ['CU-DECISION-ENUM', "decision 'allow' in lower case", { ...caseIds, decision: 'allow' }, '/decision enum'],
    ['CU-DECISION-ENUM', 'decision as a number', { ...caseIds, decision: 1 }, '/decision type, /decision enum'],
    ['CU-DECISION-APPLIED', 'a decision from the list', { ...caseIds, decision: 'DENY' }],
    ['CU-FIELDS-ACCEPTED', 'a tag that is a number', { ...caseIds, tags: ['a', 2] }, '/tags/1 type'],
    ['CU-FIELDS-ACCEPTED', 'a document that is a string', { ...caseIds, documents: ['x'] }, '/documents/0 type'],
  ],
  'case-update-response': [
    ['', 'an extra unknown field', { caseVersion: 4 }],
    ['CU-RES-SCHEMA', 'error as a string', { error: 'x' }, '/error type'],
  ],
  'step-up-request': [
    ['SU-CHANNELS', 'by phone number', { ...caseIds, phoneNumber: '+15550100' }],
    ['RES-SHARED-CONTEXT', 'with sharedContext', { ...caseIds, sharedContext: { childClientId: 'c' } }],
    ['SU-CHANNELS', 'strategy as a string (an object in 2.6)', { ...caseIds, strategy: 'otp' }, '/strategy type'],
  ],
  'step-up-response': [
    ['', 'an empty object (no field is marked required)', {}],
    ['SU-RES-SCHEMA', 'decision as a boolean', { decision: true }, '/decision type'],
  ],
  'webhook-document-onboarding': [
    ['', 'an extra unknown field', { ...S, status: 'DOCUMENT_CAPTURED', inquiryId: 'inq-1' }],
    ['EVT-ONBOARDING-SCHEMA', 'an event without status', S, ' required'],
  ],
  'webhook-document-results': [
    ['EVT-RESULTS-SCHEMA', 'only sessionId', S],
    ['EVT-RESULTS-SCHEMA', 'an event without sessionId', { ocr: {} }, ' required'],
  ],
  'webhook-verification-session': [
    ['EVT-SESSION-SCHEMA', 'only sessionId (defaults omitted)', S],
    ['', 'an extra unknown field', { ...S, region: 'eu' }],
    ['EVT-SESSION-INT64', 'sendAttempts at the int64 maximum', sa('9223372036854775807')],
    ['EVT-SESSION-INT64', 'sendAttempts at the int64 minimum', sa('-9223372036854775808')],
    ['EVT-SESSION-SCHEMA', 'an event without sessionId', { mfaType: 'OTP' }, ' required'],
    [
      'EVT-SESSION-STATUS-ENUM',
      "verificationStatus 'verified'",
      { ...S, verificationStatus: 'verified' },
      '/verificationStatus enum',
    ],
    ['EVT-SESSION-RESEND-ENUM', "resendStatus 'RESENT'", { ...S, resendStatus: 'RESENT' }, '/resendStatus enum'],
    ['EVT-SESSION-MFA-ENUM', "mfaType 'SMS'", { ...S, mfaType: 'SMS' }, '/mfaType enum'],
    [
      'EVT-SESSION-CHANNEL-ENUM',
      "channelType 'OTP' (an mfaType value)",
      { ...S, channelType: 'OTP' },
      '/channelType enum',
    ],
    ['EVT-SESSION-INT64', 'sendAttempts "3.5"', sa('3.5'), '/sendAttempts pattern, /sendAttempts format'],
    ['EVT-SESSION-INT64', 'sendAttempts "03" with a leading zero', sa('03'), '/sendAttempts pattern'],
    [
      'EVT-SESSION-INT64',
      'sendAttempts "9223372036854775808" above int64',
      sa('9223372036854775808'),
      '/sendAttempts format',
    ],
    [
      'EVT-SESSION-INT64',
      'sendAttempts "-9223372036854775809" below int64',
      sa('-9223372036854775809'),
      '/sendAttempts format',
    ],
  ],
  'order-error-envelope': [
    ['ORD-ERR-ENVELOPE', 'a 400 validation envelope', validationError],
    ['ORD-ERR-EXACT-FIELDS', 'an extra field (recorded in code)', { ...validationError, traceId: 't' }],
    ['ORD-ERR-ENVELOPE', 'code "400" as a string', { ...validationError, code: '400' }, '/code type'],
    ['ORD-ERR-ENVELOPE', 'missing code', without(validationError, 'code'), ' required'],
    ['ORD-ERR-ENVELOPE', 'a plain-text message instead of an object', 'unavailable', ' type'],
  ],
  'token-response': [
    ['TOK-ISSUED', 'only access_token', { access_token: 'opaque-value' }],
    ['TOK-ISSUED', 'expires_in and extras such as scope', { access_token: 'v', expires_in: 3600, scope: 's' }],
    ['TOK-ISSUED', 'an empty access_token', { access_token: '' }, '/access_token minLength'],
    ['TOK-ISSUED', 'missing access_token', { token_type: 'Bearer' }, ' required'],
  ],
} satisfies Record<string, Row[]>;
type BodySchema = keyof typeof table;
const bodySchemaFiles = Object.keys(table) as BodySchema[];

const rows = (Object.entries(table) as [BodySchema, Row[]][]).flatMap(([schema, list]) =>
  list.map(([req, variant, value, issues]) => ({ schema, variant, value, reqs: req ? [req] : [], issues })),
);
const validCases: ValidCase[] = rows.filter((r) => r.issues === undefined);
const invalidCases: InvalidCase[] = rows.flatMap(({ issues, ...c }) =>
  issues === undefined
    ? []
    : [{ ...c, issues: issues.split(', ').map((pair) => at(...(pair.split(' ') as [string, string]))) }],
);

function titleOf(c: ValidCase): string {
  const reqs = c.reqs?.length ? ` [${c.reqs.join(' ')}]` : '';
  return `${c.variant}${reqs}`;
}

function pointerTarget(document: unknown, pointer: string): unknown {
  let node = document;
  for (const raw of pointer.split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Where an issue's keyword lives, resolved as describeIssues names it; undefined when that place does not exist. */
function keywordAt(schemaId: string, issue: SchemaIssue): unknown {
  const location = issue.schemaPath.startsWith('#') ? schemaId + issue.schemaPath : issue.schemaPath;
  const [documentId = '', fragment = ''] = location.split('#');
  if (!schemaIds.includes(documentId)) return undefined;
  return pointerTarget(schemaDocument(documentId), fragment);
}

const byPlace = (a: Expected, b: Expected): number =>
  a.instancePath.localeCompare(b.instancePath) || a.keyword.localeCompare(b.keyword);

for (const c of [...validCases, ...invalidCases]) {
  for (const id of c.reqs ?? []) requirement(id);
}

for (const file of bodySchemaFiles) {
  test.describe(`${file}.schema.json`, () => {
    const schemaId = schemaIdFor(file);

    for (const c of validCases.filter((v) => v.schema === file)) {
      test(`accepts ${titleOf(c)}`, () => {
        const issues = schemaIssues(schemaId, c.value);
        expect(issues, `expected no issues, got:\n${describeIssues(schemaId, issues)}`).toEqual([]);
      });
    }

    for (const c of invalidCases.filter((v) => v.schema === file)) {
      const places = c.issues.map((e) => `${e.instancePath || '(root)'} ${e.keyword}`).join(', ');
      test(`rejects ${titleOf(c)} at ${places}`, () => {
        const issues = schemaIssues(schemaId, c.value);
        const found = issues.map((i) => at(i.instancePath, i.keyword)).sort(byPlace);
        expect(found, `expected exactly ${places}; got:\n${describeIssues(schemaId, issues)}`).toEqual(
          [...c.issues].sort(byPlace),
        );
        for (const issue of issues) {
          expect(
            keywordAt(schemaId, issue),
            `schema location of "${issue.keyword}" at ${issue.instancePath || '(root)'} must exist: ${issue.schemaPath}`,
          ).toBeDefined();
        }
      });
    }
  });
}

test.describe('enums.schema.json', () => {
  const specLists: Record<EnumName, string[]> = {
    VerificationStatus: [
      'UNKNOWN',
      'INVALID',
      'VERIFIED',
      'TERMINATED',
      'MESSAGE_SENT',
      'FAILED_AUTHORIZATION',
      'VERIFICATION_ATTEMPT_FAILED',
    ],
    ResendStatus: ['UNKNOWN_RESEND_STATUS', 'SENT', 'FAILED', 'PENDING'],
    CaseDecision: ['ALLOW', 'DENY', 'CHALLENGE', 'REVIEW'],
    MfaType: ['OTP', 'NONCE_OTH'],
    ChannelType: ['SMS_OTP', 'EMAIL_OTP', 'SMS_NONCE_OTH', 'EMAIL_NONCE_OTH', 'STANDALONE_NONCE_OTH'],
    FulfillmentType: ['SHIPPED', 'DIGITAL', 'STORE_PICK_UP', 'LOCAL_DELIVERY', 'STORE_DRIVE_UP', 'IN_PERSON'],
    DocumentRecordsData: ['ocrData', 'scoreData', 'imageData', 'formdata', 'all'],
  };

  for (const [name, list] of Object.entries(specLists) as [EnumName, string[]][]) {
    test(`enumValues('${name}') is the spec's list`, () => {
      expect([...enumValues(name)], `enums.schema.json $defs/${name}`).toEqual(list);
      expect(Object.isFrozen(enumValues(name)), 'the returned list cannot be changed by a caller').toBe(true);
    });
  }

  test('enum lists live only in enums.schema.json', () => {
    for (const file of bodySchemaFiles) {
      const text = readFileSync(new URL(`../schemas/${file}.schema.json`, import.meta.url), 'utf8');
      expect(text, `${file}.schema.json must $ref enums.schema.json instead of listing values`).not.toMatch(
        /"(enum|const)"\s*:/,
      );
    }
  });
});

test.describe('registry', () => {
  const schemaFolder = new URL('../schemas/', import.meta.url);
  const files = readdirSync(schemaFolder).filter((name) => name.endsWith('.schema.json'));

  test('every body schema of schemas/ has valid and invalid cases here', () => {
    const notBodies = ['common', 'enums', 'config', 'ledger'].map((name) => `${name}.schema.json`);
    expect(files.filter((file) => !notBodies.includes(file)).sort()).toEqual(
      bodySchemaFiles.map((file) => `${file}.schema.json`).sort(),
    );
    for (const file of bodySchemaFiles) {
      expect(validCases.filter((v) => v.schema === file).length, `${file}: valid cases`).toBeGreaterThanOrEqual(1);
      expect(invalidCases.filter((v) => v.schema === file).length, `${file}: invalid cases`).toBeGreaterThanOrEqual(1);
    }
  });

  test('every schema file declares JSON Schema 2020-12 and a unique $id named after the file', () => {
    const ids = new Set<string>();
    for (const file of files) {
      const schema = JSON.parse(readFileSync(new URL(file, schemaFolder), 'utf8')) as {
        $schema?: unknown;
        $id?: unknown;
      };
      expect(schema.$schema, `${file} $schema`).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id, `${file} $id`).toBe(`https://conformance.example/schemas/${file}`);
      expect(ids.has(String(schema.$id)), `${file} $id is unique`).toBe(false);
      ids.add(String(schema.$id));
    }
    expect([...ids].sort(), 'the registry loads every schema file').toEqual([...schemaIds].sort());
  });

  test('every schema is valid JSON Schema 2020-12 and compiles under strict mode (the registry compiles them lazily, on first use, without the meta-schema check)', () => {
    const meta = new Ajv2020({ strict: true });
    for (const id of schemaIds) {
      expect(meta.validateSchema(schemaDocument(id)), `${id}: ${meta.errorsText(meta.errors)}`).toBe(true);
      expect(() => schemaIssues(id, null), id).not.toThrow();
    }
  });

  test('every schema named in catalog/operations.json is in the registry', () => {
    const named = operations
      .flatMap((o) => [o.requestSchema, o.responseSchema])
      .filter((id): id is string => id !== undefined);
    expect(named.length, 'operations name schemas').toBeGreaterThan(0);
    for (const id of named) {
      expect(schemaIds, `schema ${id} named in catalog/operations.json`).toContain(id);
    }
  });

  test('schemaIdFor accepts the file name with or without .schema.json', () => {
    expect(schemaIdFor('token-response.schema.json')).toBe(
      'https://conformance.example/schemas/token-response.schema.json',
    );
    expect(schemaIdFor('token-response')).toBe('https://conformance.example/schemas/token-response.schema.json');
    expect(() => schemaIdFor('no-such-thing')).toThrow(/no-such-thing\.schema\.json/);
  });

  test('schemaIssues throws a clear error for an unknown schema id', () => {
    expect(() => schemaIssues('https://conformance.example/schemas/missing.schema.json', {})).toThrow(
      /Unknown schema id "https:\/\/conformance\.example\/schemas\/missing\.schema\.json"/,
    );
  });

  test('schemaIssues returns a fresh result per call', () => {
    const id = schemaIdFor('order-error-envelope');
    const first = schemaIssues(id, { code: '400' });
    expect(schemaIssues(id, validationError)).toEqual([]);
    expect(first.map((i) => i.keyword).sort(), 'earlier result is kept').toEqual(['required', 'required', 'type']);
  });

  test('describeIssues gives one line per issue with the instance path and the schema $id', () => {
    const id = schemaIdFor('case-update-request');
    const issues = schemaIssues(id, { inquiryId: 'inq-1', decision: 'allow', tags: ['a', 2] });
    const lines = describeIssues(id, issues).split('\n');
    expect(lines, describeIssues(id, issues)).toHaveLength(3);
    expect(lines).toContain(
      `  at (root): must have required property 'authenticationId' (required, schema ${id}#/required)`,
    );
    expect(lines).toContain(
      `  at /tags/1: must be string (type, schema https://conformance.example/schemas/common.schema.json#/$defs/StringArray/items/type)`,
    );
    const enumLine = lines.find((line) => line.startsWith('  at /decision:'));
    expect(enumLine, 'names the allowed values and the schema that holds them').toContain(
      '"ALLOW", "DENY", "CHALLENGE", "REVIEW"',
    );
    expect(enumLine).toContain(
      '(enum, schema https://conformance.example/schemas/enums.schema.json#/$defs/CaseDecision/enum)',
    );
  });

  test('describeIssues does not echo the failing value, and says so when there is nothing to report', () => {
    const id = schemaIdFor('token-response');
    const text = describeIssues(id, schemaIssues(id, { access_token: 123456789, expires_in: 'secret-looking-value' }));
    expect(text).toContain('/access_token');
    expect(text).not.toContain('123456789');
    expect(text).not.toContain('secret-looking-value');
    expect(describeIssues(id, []), 'says so when there is nothing to report').toContain(id);
  });
});

test('the validators compiled ahead of time and cached give the same answers, errors included, as ajv compiling the schemas now', () => {
  const schemas = new Map(schemaIds.map((id) => [id, schemaDocument(id)]));
  const cached = loadValidators(schemas);
  const fresh = compileValidators(schemas);
  const answers = (validate: Validate | undefined, value: unknown) => ({
    valid: validate?.(value),
    errors: validate?.errors ?? null,
  });
  let compared = 0;
  for (const c of [...validCases, ...invalidCases]) {
    const id = schemaIdFor(c.schema);
    expect(answers(cached.get(id), c.value), `${c.schema}: ${c.variant}`).toEqual(answers(fresh.get(id), c.value));
    compared += 1;
  }
  for (const id of schemaIds)
    for (const value of [null, [], 'text', 7, {}])
      expect(answers(cached.get(id), value), id).toEqual(answers(fresh.get(id), value));
  expect(compared).toBe(validCases.length + invalidCases.length);
});
