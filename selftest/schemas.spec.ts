import { readdirSync, readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import ajvModule from 'ajv/dist/2020.js';
import { operations } from '../catalog/catalog.ts';
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

/**
 * The cases of each schema, one a line: the variant, the value, and for a value the schema must refuse, every issue it
 * must produce ("<instance path> <keyword>"), no others. The wrong JSON type of each member of an answer or event, a
 * missing required member and null as unset are generated from the schemas (schema-wrong-types.spec.ts); what is here
 * are the rules a type does not say: the requests' required members, formats, enums, int64 strings, members left open.
 */
type Case = [variant: string, value: unknown, issues?: string | string[]];
const int64 = (path: string) => [`${path} pattern`, `${path} format`];
const [asm, cu, su, session] = [fullAssessmentRequest, minimalCaseUpdate, minimalStepUp, fullSession];
const sessionEnums = (['VerificationStatus', 'ResendStatus', 'MfaType', 'ChannelType'] as const).flatMap((name) => {
  const member = `${name[0]?.toLowerCase()}${name.slice(1)}`;
  return enumValues(name).map((value): Case => [`${member} ${value}`, { sessionId: 's', [member]: value }]);
});

const cases: Record<BodySchema, Case[]> = {
  'assessment-request': [
    ['only the required strategy and inquiryId', { strategy: 'default', inquiryId: 'inq-1' }],
    ['every field of 2.1, and a member the spec does not list', { ...asm, futureField: 1 }],
    ['creationDateTime with an offset and fraction', { ...asm, creationDateTime: '2024-05-01T10:15:30.123+02:00' }],
    ['an empty object', {}, [' required', ' required']],
    ['missing strategy', without(asm, 'strategy'), ' required'],
    ['userIp "999.1.1.1"', { ...asm, userIp: '999.1.1.1' }, '/userIp format'],
    ['userIp as an IPv6 address', { ...asm, userIp: '2001:db8::1' }, '/userIp format'],
    ['creationDateTime without a time', { ...asm, creationDateTime: '2024-05-01' }, '/creationDateTime format'],
    [
      'creationDateTime without an offset',
      { ...asm, creationDateTime: '2024-05-01T10:15' },
      '/creationDateTime format',
    ],
    ['account null', { ...asm, account: null }, '/account type'],
    ['a JSON array body', [asm], ' type'],
  ],
  'assessment-response': [
    ['every field of 2.2, and an unknown one', { ...fullAssessmentResponse, riskLevel: 'low' }],
    ['an empty object (no field is marked required)', {}],
    ['tags as a string', { ...fullAssessmentResponse, tags: 'new' }, '/tags type'],
  ],
  'document-verification-request': [
    ['an empty object (every field optional)', {}],
    ['every field of 2.3', fullDocvRequest],
    ['images as a string', { ...fullDocvRequest, images: 'front.png' }, '/images type'],
  ],
  'document-verification-response': [
    ['every field of 2.3, and an unknown one', { ...fullDocvResponse, expiresAt: 'later' }],
    ['token as a number', { ...fullDocvResponse, token: 42 }, '/token type'],
  ],
  'document-records': [
    ['every field of 2.4', fullRecords],
    ['a lower-case formdata member, an unknown extra and not formData', { authenticationId: 'case-1', formdata: 'x' }],
    ['formData as an array', { ...fullRecords, formData: [] }, '/formData type'],
  ],
  'case-update-request': [
    ['only inquiryId and authenticationId', cu],
    ['every field of 2.5', fullCaseUpdate],
    ...enumValues('CaseDecision').map((decision): Case => [`decision ${decision}`, { ...cu, decision }]),
    ['missing authenticationId', without(fullCaseUpdate, 'authenticationId'), ' required'],
    ["decision 'allow' in lower case", { ...cu, decision: 'allow' }, '/decision enum'],
    ["decision ' ALLOW' with a space", { ...cu, decision: ' ALLOW' }, '/decision enum'],
    ['decision as a number', { ...cu, decision: 1 }, ['/decision type', '/decision enum']],
    ['a tag that is a number', { ...cu, tags: ['vip', 3] }, '/tags/1 type'],
    ["verifiedFraud 'true' as a string", { ...cu, verifiedFraud: 'true' }, '/verifiedFraud type'],
    ['a document that is a string', { ...cu, documents: ['passport.pdf'] }, '/documents/0 type'],
    ['strategy as an object (it is a string in 2.5)', { ...cu, strategy: { name: 'x' } }, '/strategy type'],
  ],
  'case-update-response': [
    ['every field of 2.5, and an unknown one', { ...fullCaseUpdateResponse, caseVersion: 4 }],
    ['error as a string', { ...fullCaseUpdateResponse, error: 'not found' }, '/error type'],
  ],
  'step-up-request': [
    ['by phone number', { ...su, phoneNumber: '+15550100' }],
    ['every field of 2.6', fullStepUp],
    ['missing inquiryId', without(fullStepUp, 'inquiryId'), ' required'],
    ['strategy as a string (it is an object in 2.6)', { ...su, strategy: 'otp' }, '/strategy type'],
  ],
  'step-up-response': [
    ['every field of 2.6, and an unknown one', { ...fullStepUpResponse, nextStep: 'otp' }],
    ['decision as a boolean', { ...fullStepUpResponse, decision: true }, '/decision type'],
  ],
  'webhook-document-onboarding': [
    ['sessionId, status and an unknown member', { ...onboarding, inquiryId: 'inq-1' }],
    ['an event without status', { sessionId: 'session-1' }, ' required'],
  ],
  'webhook-document-results': [
    ['every field of 6.2', fullResults],
    ['only sessionId', { sessionId: 'session-1' }],
    ['an event without sessionId', without(fullResults, 'sessionId'), ' required'],
  ],
  'webhook-verification-session': [
    ['every field of 6.3, and an unknown one', { ...session, region: 'eu' }],
    ['only sessionId (defaults omitted)', { sessionId: 'session-1' }],
    ...sessionEnums,
    ...['0', '-1', '9223372036854775807', '-9223372036854775808'].map((sendAttempts): Case => [
      `sendAttempts "${sendAttempts}"`,
      { sessionId: 's', sendAttempts },
    ]),
    [
      "verificationStatus 'verified' in lower case",
      { ...session, verificationStatus: 'verified' },
      '/verificationStatus enum',
    ],
    ["resendStatus 'RESENT'", { ...session, resendStatus: 'RESENT' }, '/resendStatus enum'],
    ["mfaType 'SMS'", { ...session, mfaType: 'SMS' }, '/mfaType enum'],
    ["channelType 'OTP' (an mfaType value)", { ...session, channelType: 'OTP' }, '/channelType enum'],
    ['sendAttempts as the number 3', { ...session, sendAttempts: 3 }, '/sendAttempts type'],
    ['sendAttempts "3.5"', { ...session, sendAttempts: '3.5' }, int64('/sendAttempts')],
    ['verificationAttempts ""', { ...session, verificationAttempts: '' }, int64('/verificationAttempts')],
    [
      'verificationAttempts " 3" with a space',
      { ...session, verificationAttempts: ' 3' },
      int64('/verificationAttempts'),
    ],
    ['remainingSendAttempts "1e3"', { ...session, remainingSendAttempts: '1e3' }, int64('/remainingSendAttempts')],
    ['remainingSendAttempts "0x10"', { ...session, remainingSendAttempts: '0x10' }, int64('/remainingSendAttempts')],
    [
      '"03" with a leading zero',
      { ...session, remainingVerificationAttempts: '03' },
      '/remainingVerificationAttempts pattern',
    ],
    [
      'sendAttempts "9223372036854775808" above int64',
      { ...session, sendAttempts: '9223372036854775808' },
      '/sendAttempts format',
    ],
    [
      '"-9223372036854775809" below int64',
      { ...session, sendAttempts: '-9223372036854775809' },
      '/sendAttempts format',
    ],
  ],
  'order-error-envelope': [
    ['a 400 validation envelope', validationError],
    ['an extra field (recorded in code, ORD-ERR-EXACT-FIELDS)', { ...validationError, traceId: 't-1' }],
    ['code "400" as a string', { ...validationError, code: '400' }, '/code type'],
    ['missing errorType', without(validationError, 'errorType'), ' required'],
    ['a plain-text message instead of an object', 'failed to authorize request', ' type'],
  ],
  'token-response': [
    ['only access_token', { access_token: 'opaque-value' }],
    ['token_type, expires_in and extras such as scope', { access_token: 'a', token_type: 'Bearer', scope: 'x' }],
    ['an empty access_token', { access_token: '', token_type: 'Bearer' }, '/access_token minLength'],
    ['missing access_token', { token_type: 'Bearer', expires_in: 3600 }, ' required'],
  ],
};
const allCases = Object.entries(cases).flatMap(([schema, list]) => list.map((c) => [schema, ...c] as const));

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

for (const file of bodySchemaFiles) {
  test.describe(`${file}.schema.json`, () => {
    const schemaId = schemaIdFor(file);
    for (const [variant, value, refused] of cases[file]) {
      const expected = refused === undefined ? [] : [refused].flat();
      const places = expected.map((e) => e.replace(/^ /, '(root) ')).join(', ');
      test(refused === undefined ? `accepts ${variant}` : `rejects ${variant} at ${places}`, () => {
        const issues = schemaIssues(schemaId, value);
        expect(
          issues.map((i) => `${i.instancePath} ${i.keyword}`).sort(),
          `expected ${places || 'no issue'}; got:\n${describeIssues(schemaId, issues)}`,
        ).toEqual([...expected].sort());
        for (const issue of issues)
          expect(
            keywordAt(schemaId, issue),
            `schema location of "${issue.keyword}" at ${issue.instancePath || '(root)'} must exist: ${issue.schemaPath}`,
          ).toBeDefined();
      });
    }
    test('has a valid and an invalid case here', () => {
      expect(cases[file].filter(([, , issues]) => !issues).length, 'valid cases').toBeGreaterThanOrEqual(1);
      expect(cases[file].filter(([, , issues]) => issues).length, 'invalid cases').toBeGreaterThanOrEqual(1);
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
  for (const [schema, variant, value] of allCases) {
    const id = schemaIdFor(schema);
    expect(answers(cached.get(id), value), `${schema}: ${variant}`).toEqual(answers(fresh.get(id), value));
  }
  for (const id of schemaIds)
    for (const value of [null, [], 'text', 7, {}])
      expect(answers(cached.get(id), value), id).toEqual(answers(fresh.get(id), value));
});
