import { readdirSync, readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import ajvModule from 'ajv/dist/2020.js';
import jsonpointer from 'jsonpointer';
import { requirement, requirements } from '../catalog/catalog.ts';
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
const BASE = 'https://conformance.example/schemas/';

const A = { strategy: 'default', inquiryId: 'inq-0001' };

const caseIds = { inquiryId: 'inq-0001', authenticationId: 'case-0001' };
const validationError = { message: 'failed to validate input: fulfillment type', errorType: 'validation', code: 400 };
const S = { sessionId: 's' };
const dt = (creationDateTime: string) => ({ ...A, creationDateTime });

/**
 * [requirement ('' for none), variant, value, and for a value refused every issue it must produce as "path keyword"
 * pairs, comma-separated (the root is the empty path)]. What the schema leaves open, and each rule no other proof
 * holds: a member of an answer or event schema (catalog: checksSchema) in a wrong JSON type, null or missing is
 * selftest/schema-wrong-types.spec.ts's, one outside its enum the kill matrix's (the sandbox's *-outside-enum faults);
 * a request member in every wrong type is the checks' of tests/{identity,stepup}/request-members.spec.ts.
 */
type Row = [req: string, variant: string, value: unknown, issues?: string];
const int64 = (variant: string, sendAttempts: string, issues?: string) =>
  ['EVT-SESSION-INT64', `sendAttempts ${variant}`, { ...S, sendAttempts }, issues] as Row;
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
  ],
  'document-verification-request': [
    ['DOCV-ACCEPTED', 'an empty object (every field optional)', {}],
    ['DOCV-REQ-TYPES', 'images as a string', { images: 'x' }, '/images type'],
  ],
  'document-verification-response': [['', 'an extra unknown field', { inquiryId: 'i', expiresAt: 'later' }]],
  'document-records': [
    ['DOCR-RES-SCHEMA', 'a lower-case formdata member, an unknown extra, not formData', { formdata: 'x' }],
  ],
  'case-update-request': [
    ['CU-DECISION-KEPT', 'only inquiryId and authenticationId', caseIds],
    ['CU-DECISION-ENUM', "decision 'allow' in lower case", { ...caseIds, decision: 'allow' }, '/decision enum'],
    ['CU-DECISION-ENUM', 'decision as a number', { ...caseIds, decision: 1 }, '/decision type, /decision enum'],
    ['CU-DECISION-APPLIED', 'a decision from the list', { ...caseIds, decision: 'DENY' }],
    ['CU-FIELDS-ACCEPTED', 'a tag that is a number', { ...caseIds, tags: ['a', 2] }, '/tags/1 type'],
    ['CU-FIELDS-ACCEPTED', 'a document that is a string', { ...caseIds, documents: ['x'] }, '/documents/0 type'],
  ],
  'case-update-response': [['', 'an extra unknown field', { caseVersion: 4 }]],
  'step-up-request': [
    ['SU-CHANNELS', 'by phone number', { ...caseIds, phoneNumber: '+15550100' }],
    ['RES-SHARED-CONTEXT', 'with sharedContext', { ...caseIds, sharedContext: { childClientId: 'c' } }],
    ['SU-CHANNELS', 'strategy as a string (an object in 2.6)', { ...caseIds, strategy: 'otp' }, '/strategy type'],
  ],
  'step-up-response': [['', 'an empty object (no field is marked required)', {}]],
  'webhook-document-onboarding': [
    ['', 'an extra unknown field', { ...S, status: 'DOCUMENT_CAPTURED', inquiryId: 'inq-1' }],
  ],
  'webhook-document-results': [['EVT-RESULTS-SCHEMA', 'only sessionId', S]],
  'webhook-verification-session': [
    ['EVT-SESSION-SCHEMA', 'only sessionId (defaults omitted)', S],
    ['', 'an extra unknown field', { ...S, region: 'eu' }],
    int64('at the int64 maximum', '9223372036854775807'),
    int64('at the int64 minimum', '-9223372036854775808'),
    int64('"3.5"', '3.5', '/sendAttempts pattern, /sendAttempts format'),
    int64('"03" with a leading zero', '03', '/sendAttempts pattern'),
    int64('"9223372036854775808" above int64', '9223372036854775808', '/sendAttempts format'),
    int64('"-9223372036854775809" below int64', '-9223372036854775809', '/sendAttempts format'),
  ],
  'order-error-envelope': [
    ['ORD-ERR-ENVELOPE', 'a 400 validation envelope', validationError],
    ['ORD-ERR-EXACT-FIELDS', 'an extra field (recorded in code)', { ...validationError, traceId: 't' }],
    ['ORD-ERR-ENVELOPE', 'code "400" as a string', { ...validationError, code: '400' }, '/code type'],
    ['ORD-ERR-ENVELOPE', 'missing code', { message: validationError.message, errorType: 'validation' }, ' required'],
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
const cases = (Object.entries(table) as [BodySchema, Row[]][]).flatMap(([schema, list]) =>
  list.map(([req, variant, value, issues]) => ({ schema, req, variant, value, issues })),
);
for (const { req } of cases) if (req) requirement(req);

/** Where an issue's keyword lives, resolved as describeIssues names it; undefined when that place does not exist. */
function keywordAt(schemaId: string, issue: SchemaIssue): unknown {
  const location = issue.schemaPath.startsWith('#') ? schemaId + issue.schemaPath : issue.schemaPath;
  const [documentId = '', fragment = ''] = location.split('#');
  if (!schemaIds.includes(documentId)) return undefined;
  return jsonpointer.get(schemaDocument(documentId), decodeURIComponent(fragment));
}

for (const file of bodySchemaFiles) {
  test.describe(`${file}.schema.json`, () => {
    const schemaId = schemaIdFor(file);
    for (const { req, variant, value, issues } of cases.filter((c) => c.schema === file)) {
      const title = `${variant}${req ? ` [${req}]` : ''}`;
      const places = issues?.replace(/(^|, ) /g, '$1(root) ');
      test(places === undefined ? `accepts ${title}` : `rejects ${title} at ${places}`, () => {
        const found = schemaIssues(schemaId, value);
        expect(
          found.map((i) => `${i.instancePath} ${i.keyword}`).sort(),
          `expected ${places === undefined ? 'no issues' : `exactly ${places}`}; got:\n${describeIssues(schemaId, found)}`,
        ).toEqual(issues?.split(', ').sort() ?? []);
        expect(
          found.filter((i) => keywordAt(schemaId, i) === undefined).map((i) => i.schemaPath),
          'every issue names a schema location that exists',
        ).toEqual([]);
      });
    }
  });
}

test.describe('enums.schema.json', () => {
  const specLists: Record<EnumName, string> = {
    VerificationStatus:
      'UNKNOWN INVALID VERIFIED TERMINATED MESSAGE_SENT FAILED_AUTHORIZATION VERIFICATION_ATTEMPT_FAILED',
    ResendStatus: 'UNKNOWN_RESEND_STATUS SENT FAILED PENDING',
    CaseDecision: 'ALLOW DENY CHALLENGE REVIEW',
    MfaType: 'OTP NONCE_OTH',
    ChannelType: 'SMS_OTP EMAIL_OTP SMS_NONCE_OTH EMAIL_NONCE_OTH STANDALONE_NONCE_OTH',
    FulfillmentType: 'SHIPPED DIGITAL STORE_PICK_UP LOCAL_DELIVERY STORE_DRIVE_UP IN_PERSON',
    DocumentRecordsData: 'ocrData scoreData imageData formdata all',
  };
  const names = Object.keys(specLists) as EnumName[];

  test("enumValues gives the spec's list of each enum", () => {
    expect(Object.fromEntries(names.map((name) => [name, enumValues(name).join(' ')])), '$defs').toEqual(specLists);
  });

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

  test('every body schema of schemas/ has an accepted case here, and a refused one here or generated', () => {
    const notBodies = ['common', 'enums', 'config', 'ledger'].map((name) => `${name}.schema.json`);
    expect(files.filter((file) => !notBodies.includes(file)).sort()).toEqual(
      bodySchemaFiles.map((file) => `${file}.schema.json`).sort(),
    );
    const generated = new Set(requirements.flatMap((r) => r.checksSchema ?? []));
    const lacking = bodySchemaFiles.flatMap((file) =>
      ['accepted', 'refused']
        .filter((kind) => kind === 'accepted' || !generated.has(file))
        .filter((kind) => !cases.some((c) => c.schema === file && (c.issues === undefined) === (kind === 'accepted')))
        .map((kind) => `${file}: no ${kind} case`),
    );
    expect(lacking).toEqual([]);
  });

  test('every schema file declares JSON Schema 2020-12 and the $id of its file, and is valid under the meta-schema (the registry compiles without the meta-schema check)', () => {
    const meta = new Ajv2020({ strict: true });
    for (const file of files) {
      const { $schema, $id } = JSON.parse(readFileSync(new URL(file, schemaFolder), 'utf8')) as Record<string, unknown>;
      expect({ $schema, $id }, file).toEqual({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: BASE + file,
      });
    }
    expect([...schemaIds].sort(), 'the registry loads every schema file').toEqual(files.map((f) => BASE + f).sort());
    for (const id of schemaIds)
      expect(meta.validateSchema(schemaDocument(id)), `${id}: ${meta.errorsText(meta.errors)}`).toBe(true);
  });

  test('schemaIdFor takes the file name with or without .schema.json; an unknown name or id throws, naming it; schemaIssues returns a fresh result per call', () => {
    expect(schemaIdFor('token-response.schema.json')).toBe(`${BASE}token-response.schema.json`);
    expect(schemaIdFor('token-response')).toBe(`${BASE}token-response.schema.json`);
    expect(() => schemaIdFor('no-such-thing')).toThrow(/no-such-thing\.schema\.json/);
    expect(() => schemaIssues(`${BASE}missing.schema.json`, {})).toThrow(
      /Unknown schema id "https:\/\/conformance\.example\/schemas\/missing\.schema\.json"/,
    );
    const id = schemaIdFor('order-error-envelope');
    const first = schemaIssues(id, { code: '400' });
    expect(schemaIssues(id, validationError)).toEqual([]);
    expect(first.map((i) => i.keyword).sort(), 'earlier result is kept').toEqual(['required', 'required', 'type']);
  });

  test('describeIssues gives one line per issue with the instance path and the schema $id, never the failing value, and says so when there is nothing to report', () => {
    const id = schemaIdFor('case-update-request');
    const issues = schemaIssues(id, { inquiryId: 'inq-1', decision: 'allow', tags: ['a', 2] });
    const lines = describeIssues(id, issues).split('\n');
    expect(lines, describeIssues(id, issues)).toHaveLength(3);
    expect(lines).toContain(
      `  at (root): must have required property 'authenticationId' (required, schema ${id}#/required)`,
    );
    expect(lines).toContain(
      `  at /tags/1: must be string (type, schema ${BASE}common.schema.json#/$defs/StringArray/items/type)`,
    );
    const enumLine = lines.find((line) => line.startsWith('  at /decision:'));
    expect(enumLine, 'names the allowed values and the schema that holds them').toContain(
      '"ALLOW", "DENY", "CHALLENGE", "REVIEW"',
    );
    expect(enumLine).toContain(`(enum, schema ${BASE}enums.schema.json#/$defs/CaseDecision/enum)`);
    const token = schemaIdFor('token-response');
    const text = describeIssues(token, schemaIssues(token, { access_token: 123456789, expires_in: 'secret-looking' }));
    expect(text).toContain('/access_token');
    expect(text, 'the failing values not echoed').not.toMatch(/123456789|secret-looking/);
    expect(describeIssues(token, []), 'says so when there is nothing to report').toContain(token);
  });
});

test('the validators compiled ahead of time and cached give the same answers, errors included, as ajv compiling the schemas now', () => {
  const schemas = new Map(schemaIds.map((id) => [id, schemaDocument(id)]));
  const [cached, fresh] = [loadValidators(schemas), compileValidators(schemas)];
  const answers = (validate: Validate | undefined, value: unknown) => ({
    valid: validate?.(value),
    errors: validate?.errors ?? null,
  });
  for (const c of cases) {
    const id = schemaIdFor(c.schema);
    expect(answers(cached.get(id), c.value), `${c.schema}: ${c.variant}`).toEqual(answers(fresh.get(id), c.value));
  }
  for (const id of schemaIds)
    for (const value of [null, [], 'text', 7, {}])
      expect(answers(cached.get(id), value), id).toEqual(answers(fresh.get(id), value));
});
