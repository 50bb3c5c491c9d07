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

/** The body schemas written from the spec; each needs valid and invalid cases below. */
const bodySchemaFiles = [
  'assessment-request',
  'assessment-response',
  'document-verification-request',
  'document-verification-response',
  'document-records',
  'case-update-request',
  'case-update-response',
  'step-up-request',
  'step-up-response',
  'webhook-document-onboarding',
  'webhook-document-results',
  'webhook-verification-session',
  'order-error-envelope',
  'token-response',
] as const;
type BodySchema = (typeof bodySchemaFiles)[number];

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
/** A malformed int64 string fails the decimal pattern and the int64 range format alike. */
const notDecimal = (instancePath: string): Expected[] => [at(instancePath, 'pattern'), at(instancePath, 'format')];

function without(value: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
}

const fullAssessmentRequest = {
  strategy: 'default',
  inquiryId: 'inq-0001',
  channel: 'web-checkout',
  deviceSessionId: 'dev-session-0001',
  creationDateTime: '2024-05-01T10:15:30Z',
  userIp: '203.0.113.7',
  account: { id: 'acct-1' },
  applicant: { firstName: 'Ada' },
  coApplicant: {},
  product: { sku: 'loan-1' },
  customFields: { channelRank: 2 },
  memberId: 'member-1',
  entryUser: 'agent-7',
  requestType: 'new-account',
  sharedContext: { childClientId: 'child-1' },
};

const fullAssessmentResponse = {
  inquiryId: 'inq-0001',
  authenticationId: 'case-0001',
  deviceSessionId: 'dev-session-0001',
  decision: 'ACCEPT',
  userSegment: 'low-risk',
  tags: ['new', { name: 'vip' }],
  scoreCards: [{ name: 'fraud', score: 12 }, 7],
  deviceId: 'device-1',
  insights: {},
  strategy: { name: 'default', version: 3 },
  thirdPartyCalls: { bureau: 'ok' },
  errorResponses: {},
  status: 'COMPLETED',
  message: 'ok',
  applicantCustomerIdentifier: 'cust-1',
  coApplicantCustomerIdentifier: 'cust-2',
  entryUser: 'agent-7',
};

const fullDocvRequest = {
  inquiryId: 'inq-0001',
  strategy: 'docv-default',
  phoneNumber: '+15550100',
  images: { front: 'base64...' },
  applicant: { firstName: 'Ada' },
  customFields: {},
  sharedContext: { childClientId: 'child-1' },
};

const fullDocvResponse = {
  inquiryId: 'inq-0001',
  authenticationId: 'case-0001',
  status: 'STARTED',
  message: 'ok',
  interviewId: 'interview-1',
  token: 'opaque-value',
};

const fullRecords = {
  authenticationId: 'case-0001',
  ocrData: { name: 'ADA' },
  scoreData: { score: 0.9 },
  imageData: { front: 'https://example.test/tmp/front' },
  formData: {},
};

const minimalCaseUpdate = { inquiryId: 'inq-0001', authenticationId: 'case-0001' };
const fullCaseUpdate = {
  ...minimalCaseUpdate,
  decision: 'DENY',
  tags: ['manual-review', 'fraud-ring'],
  notes: 'called the applicant',
  externalAgent: 'agent-7',
  queue: 'escalations',
  verifiedFraud: true,
  rejectionCode: 'R01',
  strategy: 'default',
  customFields: { source: 'portal' },
  documents: [{ kind: 'passport' }, {}],
  sharedContext: { childClientId: 'child-1' },
};

const fullCaseUpdateResponse = {
  inquiryId: 'inq-0001',
  authenticationId: 'case-0001',
  correlationId: 'corr-1',
  message: 'updated',
  error: {},
};

const minimalStepUp = { inquiryId: 'inq-0001', authenticationId: 'case-0001' };
const fullStepUp = {
  ...minimalStepUp,
  strategy: { name: 'otp' },
  phoneNumber: '+15550100',
  email: 'ada@example.test',
  images: { selfie: 'base64...' },
  sharedContext: { childClientId: 'child-1' },
};

const fullStepUpResponse = { inquiryId: 'inq-0001', authenticationId: 'case-0001', decision: 'PENDING', strategy: {} };

const onboarding = { sessionId: 'session-1', status: 'DOCUMENT_CAPTURED' };

const fullResults = {
  sessionId: 'session-1',
  ocr: { name: 'ADA' },
  score: { overall: 0.8 },
  image: { front: 'https://example.test/tmp/front' },
  inquiryId: 'inq-0001',
  form: { field: 'value' },
};

const fullSession = {
  sessionIdHash: 'hash-1',
  mfaType: 'OTP',
  sendAttempts: '1',
  verificationStatus: 'VERIFIED',
  error: {},
  sessionId: 'session-1',
  verificationAttempts: '2',
  resendStatus: 'SENT',
  autoTrustDevice: false,
  sentTimeStamp: '2024-05-01T10:15:30Z',
  channelType: 'SMS_OTP',
  docVerification: false,
  remainingSendAttempts: '0',
  remainingVerificationAttempts: '-1',
};

const validationError = { message: 'failed to validate input: fulfillment type', errorType: 'validation', code: 400 };

const ok = (schema: BodySchema, variant: string, value: unknown, ...reqs: string[]): ValidCase => ({
  schema,
  variant,
  value,
  reqs,
});
const bad = (schema: BodySchema, variant: string, value: unknown, issues: Expected[], ...reqs: string[]) => ({
  ...ok(schema, variant, value, ...reqs),
  issues,
});

/** One accepted value per distinct rule of each schema; the first of a response schema is its full value. */
const validCases: ValidCase[] = [
  ok('assessment-request', 'every field of 2.1 in its stated type', fullAssessmentRequest, 'ASM-ACCEPTED'),
  ok('assessment-request', 'only the required strategy and inquiryId', { strategy: 'd', inquiryId: 'i' }),
  ok('assessment-request', 'a member the spec does not list', { ...fullAssessmentRequest, futureField: 1 }),
  ok('assessment-request', 'creationDateTime with an offset and fraction', {
    ...fullAssessmentRequest,
    creationDateTime: '2024-05-01T10:15:30.123+02:00',
  }),
  ok('assessment-response', 'every field of 2.2', fullAssessmentResponse, 'ASM-RES-SCHEMA'),
  ok('assessment-response', 'an empty object (no field is marked required)', {}),
  ok('assessment-response', 'an extra unknown field', { ...fullAssessmentResponse, riskLevel: 'low' }),
  ok('document-verification-request', 'every field of 2.3', fullDocvRequest, 'DOCV-ACCEPTED'),
  ok('document-verification-request', 'an empty object (every field optional)', {}, 'DOCV-ACCEPTED'),
  ok('document-verification-response', 'every field of 2.3', fullDocvResponse, 'DOCV-RES-SCHEMA'),
  ok('document-verification-response', 'an extra unknown field', { ...fullDocvResponse, expiresAt: 'later' }),
  ok('document-records', 'every field of 2.4', fullRecords, 'DOCR-RES-SCHEMA'),
  ok('document-records', 'a lower-case formdata member, an unknown extra and not formData', {
    authenticationId: 'case-1',
    formdata: 'x',
  }),
  ok('case-update-request', 'only inquiryId and authenticationId', minimalCaseUpdate, 'CU-DECISION-KEPT'),
  ok('case-update-request', 'every field of 2.5', fullCaseUpdate, 'CU-FIELDS-ACCEPTED', 'CU-DECISION-APPLIED'),
  ok('case-update-response', 'every field of 2.5', fullCaseUpdateResponse, 'CU-RES-SCHEMA'),
  ok('case-update-response', 'an extra unknown field', { ...fullCaseUpdateResponse, caseVersion: 4 }),
  ok('step-up-request', 'by phone number', { ...minimalStepUp, phoneNumber: '+15550100' }, 'SU-CHANNELS'),
  ok('step-up-request', 'every field of 2.6', fullStepUp, 'SU-CHANNELS', 'RES-SHARED-CONTEXT'),
  ok('step-up-response', 'every field of 2.6', fullStepUpResponse, 'SU-RES-SCHEMA'),
  ok('step-up-response', 'an empty object (no field is marked required)', {}),
  ok('webhook-document-onboarding', 'sessionId and status', onboarding, 'EVT-ONBOARDING-SCHEMA'),
  ok('webhook-document-onboarding', 'an extra unknown field', { ...onboarding, inquiryId: 'inq-1' }),
  ok('webhook-document-results', 'every field of 6.2', fullResults, 'EVT-RESULTS-SCHEMA'),
  ok('webhook-document-results', 'only sessionId', { sessionId: 'session-1' }, 'EVT-RESULTS-SCHEMA'),
  ok(
    'webhook-verification-session',
    'every field of 6.3, each enum member from its list',
    fullSession,
    'EVT-SESSION-SCHEMA',
  ),
  ok('webhook-verification-session', 'only sessionId (defaults omitted)', { sessionId: 's' }, 'EVT-SESSION-SCHEMA'),
  ok('webhook-verification-session', 'an extra unknown field', { ...fullSession, region: 'eu' }),
  ...['9223372036854775807', '-9223372036854775808'].map((sendAttempts) =>
    ok(
      'webhook-verification-session',
      `sendAttempts "${sendAttempts}" at the int64 bound`,
      { sessionId: 's', sendAttempts },
      'EVT-SESSION-INT64',
    ),
  ),
  ok('order-error-envelope', 'a 400 validation envelope', validationError, 'ORD-ERR-ENVELOPE'),
  ok(
    'order-error-envelope',
    'an extra field (recorded in code)',
    { ...validationError, traceId: 't' },
    'ORD-ERR-EXACT-FIELDS',
  ),
  ok('token-response', 'only access_token', { access_token: 'opaque-value' }, 'TOK-ISSUED'),
  ok(
    'token-response',
    'token_type, expires_in and extras such as scope',
    {
      access_token: 'opaque-value',
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'k1_integration_api',
    },
    'TOK-ISSUED',
  ),
];

/**
 * One rejected value per distinct rule. A wrong type of each optional response and event member is held by the
 * generated test of selftest/schema-wrong-types.spec.ts, so response schemas keep one type case here.
 */
const invalidCases: InvalidCase[] = [
  bad(
    'assessment-request',
    'missing strategy',
    without(fullAssessmentRequest, 'strategy'),
    [at('', 'required')],
    'ASM-REQ-REQUIRED',
  ),
  bad(
    'assessment-request',
    'strategy as a number',
    { ...fullAssessmentRequest, strategy: 7 },
    [at('/strategy', 'type')],
    'ASM-REQ-TYPES',
  ),
  bad(
    'assessment-request',
    'userIp as an IPv6 address',
    { ...fullAssessmentRequest, userIp: '2001:db8::1' },
    [at('/userIp', 'format')],
    'ASM-REQ-TYPES',
  ),
  bad(
    'assessment-request',
    'creationDateTime without an offset',
    { ...fullAssessmentRequest, creationDateTime: '2024-05-01T10:15:30' },
    [at('/creationDateTime', 'format')],
    'ASM-REQ-TYPES',
  ),
  bad(
    'assessment-request',
    'account null',
    { ...fullAssessmentRequest, account: null },
    [at('/account', 'type')],
    'ASM-REQ-TYPES',
  ),
  bad('assessment-request', 'a JSON array body', [fullAssessmentRequest], [at('', 'type')], 'ASM-REQ-TYPES'),
  bad(
    'assessment-response',
    'scoreCards as an object',
    { scoreCards: {} },
    [at('/scoreCards', 'type')],
    'ASM-RES-SCHEMA',
  ),
  bad(
    'document-verification-request',
    'phoneNumber as a number',
    { phoneNumber: 5550100 },
    [at('/phoneNumber', 'type')],
    'DOCV-REQ-TYPES',
  ),
  bad(
    'document-verification-request',
    'images as a string',
    { images: 'x' },
    [at('/images', 'type')],
    'DOCV-REQ-TYPES',
  ),
  bad(
    'document-verification-response',
    'token as a number',
    { ...fullDocvResponse, token: 1 },
    [at('/token', 'type')],
    'DOCV-RES-SCHEMA',
  ),
  bad(
    'document-records',
    'ocrData as a string',
    { ...fullRecords, ocrData: 'x' },
    [at('/ocrData', 'type')],
    'DOCR-RES-SCHEMA',
  ),
  bad('case-update-request', 'missing authenticationId', { inquiryId: 'i' }, [at('', 'required')], 'CU-REQ-REQUIRED'),
  bad(
    'case-update-request',
    "decision 'allow' in lower case",
    { ...minimalCaseUpdate, decision: 'allow' },
    [at('/decision', 'enum')],
    'CU-DECISION-ENUM',
  ),
  bad(
    'case-update-request',
    'decision as a number',
    { ...minimalCaseUpdate, decision: 1 },
    [at('/decision', 'type'), at('/decision', 'enum')],
    'CU-DECISION-ENUM',
  ),
  bad(
    'case-update-request',
    'a tag that is a number',
    { ...minimalCaseUpdate, tags: ['a', 2] },
    [at('/tags/1', 'type')],
    'CU-FIELDS-ACCEPTED',
  ),
  bad(
    'case-update-request',
    'a document that is a string',
    { ...minimalCaseUpdate, documents: ['x'] },
    [at('/documents/0', 'type')],
    'CU-FIELDS-ACCEPTED',
  ),
  bad(
    'case-update-request',
    "verifiedFraud 'true' as a string",
    { ...minimalCaseUpdate, verifiedFraud: 'true' },
    [at('/verifiedFraud', 'type')],
    'CU-VERIFIED-FRAUD-TYPE',
  ),
  bad(
    'case-update-response',
    'error as a string',
    { ...fullCaseUpdateResponse, error: 'x' },
    [at('/error', 'type')],
    'CU-RES-SCHEMA',
  ),
  bad('step-up-request', 'missing inquiryId', { authenticationId: 'a' }, [at('', 'required')], 'SU-REQ-REQUIRED'),
  bad(
    'step-up-request',
    'strategy as a string (it is an object in 2.6)',
    { ...minimalStepUp, strategy: 'otp' },
    [at('/strategy', 'type')],
    'SU-CHANNELS',
  ),
  bad('step-up-response', 'decision as a boolean', { decision: true }, [at('/decision', 'type')], 'SU-RES-SCHEMA'),
  bad(
    'webhook-document-onboarding',
    'an event without status',
    { sessionId: 's' },
    [at('', 'required')],
    'EVT-ONBOARDING-SCHEMA',
  ),
  bad(
    'webhook-document-results',
    'an event without sessionId',
    { ocr: {} },
    [at('', 'required')],
    'EVT-RESULTS-SCHEMA',
  ),
  bad(
    'webhook-verification-session',
    'an event without sessionId',
    without(fullSession, 'sessionId'),
    [at('', 'required')],
    'EVT-SESSION-SCHEMA',
  ),
  bad(
    'webhook-verification-session',
    "verificationStatus 'verified' in lower case",
    { sessionId: 's', verificationStatus: 'verified' },
    [at('/verificationStatus', 'enum')],
    'EVT-SESSION-STATUS-ENUM',
  ),
  bad(
    'webhook-verification-session',
    "resendStatus 'RESENT'",
    { sessionId: 's', resendStatus: 'RESENT' },
    [at('/resendStatus', 'enum')],
    'EVT-SESSION-RESEND-ENUM',
  ),
  bad(
    'webhook-verification-session',
    "mfaType 'SMS'",
    { sessionId: 's', mfaType: 'SMS' },
    [at('/mfaType', 'enum')],
    'EVT-SESSION-MFA-ENUM',
  ),
  bad(
    'webhook-verification-session',
    "channelType 'OTP' (an mfaType value)",
    { sessionId: 's', channelType: 'OTP' },
    [at('/channelType', 'enum')],
    'EVT-SESSION-CHANNEL-ENUM',
  ),
  bad(
    'webhook-verification-session',
    'sendAttempts as the number 3',
    { sessionId: 's', sendAttempts: 3 },
    [at('/sendAttempts', 'type')],
    'EVT-SESSION-INT64',
  ),
  bad(
    'webhook-verification-session',
    'sendAttempts "3.5"',
    { sessionId: 's', sendAttempts: '3.5' },
    notDecimal('/sendAttempts'),
    'EVT-SESSION-INT64',
  ),
  bad(
    'webhook-verification-session',
    'verificationAttempts "03" with a leading zero',
    { sessionId: 's', verificationAttempts: '03' },
    [at('/verificationAttempts', 'pattern')],
    'EVT-SESSION-INT64',
  ),
  bad(
    'webhook-verification-session',
    'sendAttempts "9223372036854775808" above int64',
    { sessionId: 's', sendAttempts: '9223372036854775808' },
    [at('/sendAttempts', 'format')],
    'EVT-SESSION-INT64',
  ),
  bad(
    'webhook-verification-session',
    'sendAttempts "-9223372036854775809" below int64',
    { sessionId: 's', sendAttempts: '-9223372036854775809' },
    [at('/sendAttempts', 'format')],
    'EVT-SESSION-INT64',
  ),
  bad(
    'order-error-envelope',
    'code "400" as a string',
    { ...validationError, code: '400' },
    [at('/code', 'type')],
    'ORD-ERR-ENVELOPE',
  ),
  bad(
    'order-error-envelope',
    'missing code',
    without(validationError, 'code'),
    [at('', 'required')],
    'ORD-ERR-ENVELOPE',
  ),
  bad(
    'order-error-envelope',
    'a plain-text message instead of an object',
    'unavailable',
    [at('', 'type')],
    'ORD-ERR-ENVELOPE',
  ),
  bad(
    'token-response',
    'an empty access_token',
    { access_token: '' },
    [at('/access_token', 'minLength')],
    'TOK-ISSUED',
  ),
  bad('token-response', 'missing access_token', { token_type: 'Bearer' }, [at('', 'required')], 'TOK-ISSUED'),
];

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

    test('has valid and invalid cases here', () => {
      expect(validCases.filter((v) => v.schema === file).length, 'valid cases').toBeGreaterThanOrEqual(1);
      expect(invalidCases.filter((v) => v.schema === file).length, 'invalid cases').toBeGreaterThanOrEqual(1);
    });
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

  test('describeIssues does not echo the failing value', () => {
    const id = schemaIdFor('token-response');
    const text = describeIssues(id, schemaIssues(id, { access_token: 123456789, expires_in: 'secret-looking-value' }));
    expect(text).toContain('/access_token');
    expect(text).not.toContain('123456789');
    expect(text).not.toContain('secret-looking-value');
  });

  test('describeIssues says so when there is nothing to report', () => {
    const id = schemaIdFor('token-response');
    expect(describeIssues(id, [])).toContain(id);
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
