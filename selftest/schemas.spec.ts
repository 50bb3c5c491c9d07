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

const validCases: ValidCase[] = [
  {
    schema: 'assessment-request',
    variant: 'only the required strategy and inquiryId',
    value: { strategy: 'default', inquiryId: 'inq-1' },
    reqs: ['ASM-ACCEPTED'],
  },
  {
    schema: 'assessment-request',
    variant: 'every field of 2.1 in its stated type',
    value: fullAssessmentRequest,
    reqs: ['ASM-ACCEPTED'],
  },
  {
    schema: 'assessment-request',
    variant: 'a member the spec does not list',
    value: { ...fullAssessmentRequest, futureField: 1 },
  },
  {
    schema: 'assessment-request',
    variant: 'creationDateTime with an offset and fraction',
    value: { ...fullAssessmentRequest, creationDateTime: '2024-05-01T10:15:30.123+02:00' },
  },

  {
    schema: 'assessment-response',
    variant: 'every field of 2.2',
    value: fullAssessmentResponse,
    reqs: ['ASM-RES-SCHEMA'],
  },
  { schema: 'assessment-response', variant: 'an empty object (no field is marked required)', value: {} },
  {
    schema: 'assessment-response',
    variant: 'an extra unknown field',
    value: { ...fullAssessmentResponse, riskLevel: 'low' },
    reqs: ['ASM-RES-SCHEMA'],
  },
  { schema: 'assessment-response', variant: 'empty tags and scoreCards', value: { tags: [], scoreCards: [] } },

  {
    schema: 'document-verification-request',
    variant: 'an empty object (every field optional)',
    value: {},
    reqs: ['DOCV-ACCEPTED'],
  },
  {
    schema: 'document-verification-request',
    variant: 'every field of 2.3',
    value: fullDocvRequest,
    reqs: ['DOCV-ACCEPTED'],
  },

  {
    schema: 'document-verification-response',
    variant: 'every field of 2.3',
    value: fullDocvResponse,
    reqs: ['DOCV-RES-SCHEMA'],
  },
  {
    schema: 'document-verification-response',
    variant: 'an extra unknown field',
    value: { ...fullDocvResponse, expiresAt: 'later' },
  },

  { schema: 'document-records', variant: 'every field of 2.4', value: fullRecords, reqs: ['DOCR-RES-SCHEMA'] },
  {
    schema: 'document-records',
    variant: 'only authenticationId and ocrData',
    value: { authenticationId: 'case-1', ocrData: {} },
  },
  {
    schema: 'document-records',
    variant: 'a lower-case formdata member, which is an unknown extra and not formData',
    value: { authenticationId: 'case-1', formdata: 'x' },
  },

  {
    schema: 'case-update-request',
    variant: 'only inquiryId and authenticationId',
    value: minimalCaseUpdate,
    reqs: ['CU-DECISION-KEPT'],
  },
  { schema: 'case-update-request', variant: 'every field of 2.5', value: fullCaseUpdate, reqs: ['CU-FIELDS-ACCEPTED'] },
  ...enumValues('CaseDecision').map((decision): ValidCase => ({
    schema: 'case-update-request',
    variant: `decision ${decision}`,
    value: { ...minimalCaseUpdate, decision },
    reqs: ['CU-DECISION-APPLIED'],
  })),
  {
    schema: 'case-update-request',
    variant: 'empty tags and documents arrays',
    value: { ...minimalCaseUpdate, tags: [], documents: [] },
  },

  {
    schema: 'case-update-response',
    variant: 'every field of 2.5',
    value: fullCaseUpdateResponse,
    reqs: ['CU-RES-SCHEMA'],
  },
  {
    schema: 'case-update-response',
    variant: 'an extra unknown field',
    value: { ...fullCaseUpdateResponse, caseVersion: 4 },
  },

  {
    schema: 'step-up-request',
    variant: 'by phone number',
    value: { ...minimalStepUp, phoneNumber: '+15550100' },
    reqs: ['SU-CHANNELS'],
  },
  {
    schema: 'step-up-request',
    variant: 'by email',
    value: { ...minimalStepUp, email: 'ada@example.test' },
    reqs: ['SU-CHANNELS'],
  },
  { schema: 'step-up-request', variant: 'with images', value: { ...minimalStepUp, images: {} }, reqs: ['SU-CHANNELS'] },
  { schema: 'step-up-request', variant: 'every field of 2.6', value: fullStepUp, reqs: ['RES-SHARED-CONTEXT'] },

  { schema: 'step-up-response', variant: 'every field of 2.6', value: fullStepUpResponse, reqs: ['SU-RES-SCHEMA'] },
  { schema: 'step-up-response', variant: 'an empty object (no field is marked required)', value: {} },
  { schema: 'step-up-response', variant: 'an extra unknown field', value: { ...fullStepUpResponse, nextStep: 'otp' } },

  {
    schema: 'webhook-document-onboarding',
    variant: 'sessionId and status',
    value: onboarding,
    reqs: ['EVT-ONBOARDING-SCHEMA'],
  },
  {
    schema: 'webhook-document-onboarding',
    variant: 'an extra unknown field',
    value: { ...onboarding, inquiryId: 'inq-1' },
  },

  {
    schema: 'webhook-document-results',
    variant: 'every field of 6.2',
    value: fullResults,
    reqs: ['EVT-RESULTS-SCHEMA'],
  },
  {
    schema: 'webhook-document-results',
    variant: 'only sessionId',
    value: { sessionId: 'session-1' },
    reqs: ['EVT-RESULTS-SCHEMA'],
  },

  {
    schema: 'webhook-verification-session',
    variant: 'every field of 6.3',
    value: fullSession,
    reqs: ['EVT-SESSION-SCHEMA'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'only sessionId (defaults omitted)',
    value: { sessionId: 'session-1' },
    reqs: ['EVT-SESSION-SCHEMA'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'an extra unknown field',
    value: { ...fullSession, region: 'eu' },
  },
  ...enumValues('VerificationStatus').map((verificationStatus): ValidCase => ({
    schema: 'webhook-verification-session',
    variant: `verificationStatus ${verificationStatus}`,
    value: { sessionId: 's', verificationStatus },
    reqs: ['EVT-SESSION-STATUS-ENUM'],
  })),
  ...enumValues('ResendStatus').map((resendStatus): ValidCase => ({
    schema: 'webhook-verification-session',
    variant: `resendStatus ${resendStatus}`,
    value: { sessionId: 's', resendStatus },
    reqs: ['EVT-SESSION-RESEND-ENUM'],
  })),
  ...enumValues('MfaType').map((mfaType): ValidCase => ({
    schema: 'webhook-verification-session',
    variant: `mfaType ${mfaType}`,
    value: { sessionId: 's', mfaType },
    reqs: ['EVT-SESSION-MFA-ENUM'],
  })),
  ...enumValues('ChannelType').map((channelType): ValidCase => ({
    schema: 'webhook-verification-session',
    variant: `channelType ${channelType}`,
    value: { sessionId: 's', channelType },
    reqs: ['EVT-SESSION-CHANNEL-ENUM'],
  })),
  ...['0', '-1', '9223372036854775807', '-9223372036854775808'].map((sendAttempts): ValidCase => ({
    schema: 'webhook-verification-session',
    variant: `sendAttempts "${sendAttempts}"`,
    value: { sessionId: 's', sendAttempts },
    reqs: ['EVT-SESSION-INT64'],
  })),

  {
    schema: 'order-error-envelope',
    variant: 'a 400 validation envelope',
    value: validationError,
    reqs: ['ORD-ERR-ENVELOPE'],
  },
  {
    schema: 'order-error-envelope',
    variant: 'a 503 unavailable envelope',
    value: { message: 'service currently unavailable', errorType: 'unavailable', code: 503 },
    reqs: ['ORD-ERR-ENVELOPE'],
  },
  {
    schema: 'order-error-envelope',
    variant: 'an extra field (recorded in code, ORD-ERR-EXACT-FIELDS)',
    value: { ...validationError, traceId: 't-1' },
    reqs: ['ORD-ERR-EXACT-FIELDS'],
  },

  {
    schema: 'token-response',
    variant: 'only access_token',
    value: { access_token: 'opaque-value' },
    reqs: ['TOK-ISSUED'],
  },
  {
    schema: 'token-response',
    variant: 'access_token, token_type and expires_in',
    value: { access_token: 'opaque-value', token_type: 'Bearer', expires_in: 3600 },
    reqs: ['TOK-ISSUED'],
  },
  {
    schema: 'token-response',
    variant: 'extra fields such as scope',
    value: { access_token: 'opaque-value', scope: 'k1_integration_api', issued_at: 1 },
    reqs: ['TOK-ISSUED'],
  },
];

const invalidCases: InvalidCase[] = [
  {
    schema: 'assessment-request',
    variant: 'missing strategy',
    value: without(fullAssessmentRequest, 'strategy'),
    issues: [at('', 'required')],
    reqs: ['ASM-REQ-REQUIRED'],
  },
  {
    schema: 'assessment-request',
    variant: 'missing inquiryId',
    value: without(fullAssessmentRequest, 'inquiryId'),
    issues: [at('', 'required')],
    reqs: ['ASM-REQ-REQUIRED'],
  },
  {
    schema: 'assessment-request',
    variant: 'an empty object',
    value: {},
    issues: [at('', 'required'), at('', 'required')],
    reqs: ['ASM-REQ-REQUIRED'],
  },
  {
    schema: 'assessment-request',
    variant: 'strategy as a number',
    value: { ...fullAssessmentRequest, strategy: 7 },
    issues: [at('/strategy', 'type')],
    reqs: ['ASM-REQ-TYPES'],
  },
  {
    schema: 'assessment-request',
    variant: 'userIp "999.1.1.1"',
    value: { ...fullAssessmentRequest, userIp: '999.1.1.1' },
    issues: [at('/userIp', 'format')],
    reqs: ['ASM-REQ-TYPES'],
  },
  {
    schema: 'assessment-request',
    variant: 'userIp as an IPv6 address',
    value: { ...fullAssessmentRequest, userIp: '2001:db8::1' },
    issues: [at('/userIp', 'format')],
    reqs: ['ASM-REQ-TYPES'],
  },
  {
    schema: 'assessment-request',
    variant: 'creationDateTime without a time',
    value: { ...fullAssessmentRequest, creationDateTime: '2024-05-01' },
    issues: [at('/creationDateTime', 'format')],
    reqs: ['ASM-REQ-TYPES'],
  },
  {
    schema: 'assessment-request',
    variant: 'creationDateTime without an offset',
    value: { ...fullAssessmentRequest, creationDateTime: '2024-05-01T10:15:30' },
    issues: [at('/creationDateTime', 'format')],
    reqs: ['ASM-REQ-TYPES'],
  },
  {
    schema: 'assessment-request',
    variant: 'applicant as a string',
    value: { ...fullAssessmentRequest, applicant: 'Ada' },
    issues: [at('/applicant', 'type')],
    reqs: ['ASM-REQ-TYPES'],
  },
  {
    schema: 'assessment-request',
    variant: 'account null',
    value: { ...fullAssessmentRequest, account: null },
    issues: [at('/account', 'type')],
    reqs: ['ASM-REQ-TYPES'],
  },
  {
    schema: 'assessment-request',
    variant: 'sharedContext as an array',
    value: { ...fullAssessmentRequest, sharedContext: [] },
    issues: [at('/sharedContext', 'type')],
    reqs: ['ASM-REQ-TYPES'],
  },
  {
    schema: 'assessment-request',
    variant: 'a JSON array body',
    value: [fullAssessmentRequest],
    issues: [at('', 'type')],
    reqs: ['ASM-REQ-TYPES'],
  },

  {
    schema: 'assessment-response',
    variant: 'tags as a string',
    value: { ...fullAssessmentResponse, tags: 'new' },
    issues: [at('/tags', 'type')],
    reqs: ['ASM-RES-SCHEMA'],
  },
  {
    schema: 'assessment-response',
    variant: 'scoreCards as an object',
    value: { ...fullAssessmentResponse, scoreCards: {} },
    issues: [at('/scoreCards', 'type')],
    reqs: ['ASM-RES-SCHEMA'],
  },
  {
    schema: 'assessment-response',
    variant: 'insights as an array',
    value: { ...fullAssessmentResponse, insights: [] },
    issues: [at('/insights', 'type')],
    reqs: ['ASM-RES-SCHEMA'],
  },
  {
    schema: 'assessment-response',
    variant: 'authenticationId as a number',
    value: { ...fullAssessmentResponse, authenticationId: 1 },
    issues: [at('/authenticationId', 'type')],
    reqs: ['ASM-RES-SCHEMA'],
  },
  {
    schema: 'assessment-response',
    variant: 'decision as a number',
    value: { ...fullAssessmentResponse, decision: 7 },
    issues: [at('/decision', 'type')],
    reqs: ['ASM-RES-SCHEMA'],
  },

  {
    schema: 'document-verification-request',
    variant: 'phoneNumber as a number',
    value: { ...fullDocvRequest, phoneNumber: 15550100 },
    issues: [at('/phoneNumber', 'type')],
    reqs: ['DOCV-REQ-TYPES'],
  },
  {
    schema: 'document-verification-request',
    variant: 'images as a string',
    value: { ...fullDocvRequest, images: 'front.png' },
    issues: [at('/images', 'type')],
    reqs: ['DOCV-REQ-TYPES'],
  },
  {
    schema: 'document-verification-request',
    variant: 'customFields as an array',
    value: { ...fullDocvRequest, customFields: ['a'] },
    issues: [at('/customFields', 'type')],
    reqs: ['DOCV-REQ-TYPES'],
  },

  {
    schema: 'document-verification-response',
    variant: 'token as a number',
    value: { ...fullDocvResponse, token: 42 },
    issues: [at('/token', 'type')],
    reqs: ['DOCV-RES-SCHEMA'],
  },
  {
    schema: 'document-verification-response',
    variant: 'interviewId as an object',
    value: { ...fullDocvResponse, interviewId: {} },
    issues: [at('/interviewId', 'type')],
    reqs: ['DOCV-RES-SCHEMA'],
  },

  {
    schema: 'document-records',
    variant: 'ocrData as a string',
    value: { ...fullRecords, ocrData: 'NAME ADA' },
    issues: [at('/ocrData', 'type')],
    reqs: ['DOCR-RES-SCHEMA'],
  },
  {
    schema: 'document-records',
    variant: 'formData as an array',
    value: { ...fullRecords, formData: [] },
    issues: [at('/formData', 'type')],
    reqs: ['DOCR-RES-SCHEMA'],
  },
  {
    schema: 'document-records',
    variant: 'authenticationId as a number',
    value: { ...fullRecords, authenticationId: 5 },
    issues: [at('/authenticationId', 'type')],
    reqs: ['DOCR-RES-SCHEMA'],
  },

  {
    schema: 'case-update-request',
    variant: 'missing inquiryId',
    value: without(fullCaseUpdate, 'inquiryId'),
    issues: [at('', 'required')],
    reqs: ['CU-REQ-REQUIRED'],
  },
  {
    schema: 'case-update-request',
    variant: 'missing authenticationId',
    value: without(fullCaseUpdate, 'authenticationId'),
    issues: [at('', 'required')],
    reqs: ['CU-REQ-REQUIRED'],
  },
  {
    schema: 'case-update-request',
    variant: "decision 'allow' in lower case",
    value: { ...minimalCaseUpdate, decision: 'allow' },
    issues: [at('/decision', 'enum')],
    reqs: ['CU-DECISION-ENUM'],
  },
  {
    schema: 'case-update-request',
    variant: "decision 'APPROVE'",
    value: { ...minimalCaseUpdate, decision: 'APPROVE' },
    issues: [at('/decision', 'enum')],
    reqs: ['CU-DECISION-ENUM'],
  },
  {
    schema: 'case-update-request',
    variant: "decision ' ALLOW' with a space",
    value: { ...minimalCaseUpdate, decision: ' ALLOW' },
    issues: [at('/decision', 'enum')],
    reqs: ['CU-DECISION-ENUM'],
  },
  {
    schema: 'case-update-request',
    variant: 'decision as a number',
    value: { ...minimalCaseUpdate, decision: 1 },
    issues: [at('/decision', 'type'), at('/decision', 'enum')],
    reqs: ['CU-DECISION-ENUM'],
  },
  {
    schema: 'case-update-request',
    variant: 'tags as a string',
    value: { ...minimalCaseUpdate, tags: 'vip' },
    issues: [at('/tags', 'type')],
    reqs: ['CU-FIELDS-ACCEPTED'],
  },
  {
    schema: 'case-update-request',
    variant: 'a tag that is a number',
    value: { ...minimalCaseUpdate, tags: ['vip', 3] },
    issues: [at('/tags/1', 'type')],
    reqs: ['CU-FIELDS-ACCEPTED'],
  },
  {
    schema: 'case-update-request',
    variant: "verifiedFraud 'true' as a string",
    value: { ...minimalCaseUpdate, verifiedFraud: 'true' },
    issues: [at('/verifiedFraud', 'type')],
    reqs: ['CU-VERIFIED-FRAUD-TYPE'],
  },
  {
    schema: 'case-update-request',
    variant: 'a document that is a string',
    value: { ...minimalCaseUpdate, documents: ['passport.pdf'] },
    issues: [at('/documents/0', 'type')],
    reqs: ['CU-FIELDS-ACCEPTED'],
  },
  {
    schema: 'case-update-request',
    variant: 'documents as an object',
    value: { ...minimalCaseUpdate, documents: { kind: 'passport' } },
    issues: [at('/documents', 'type')],
    reqs: ['CU-FIELDS-ACCEPTED'],
  },
  {
    schema: 'case-update-request',
    variant: 'strategy as an object (it is a string in 2.5)',
    value: { ...minimalCaseUpdate, strategy: { name: 'x' } },
    issues: [at('/strategy', 'type')],
    reqs: ['CU-FIELDS-ACCEPTED'],
  },

  {
    schema: 'case-update-response',
    variant: 'error as a string',
    value: { ...fullCaseUpdateResponse, error: 'not found' },
    issues: [at('/error', 'type')],
    reqs: ['CU-RES-SCHEMA'],
  },
  {
    schema: 'case-update-response',
    variant: 'correlationId as a number',
    value: { ...fullCaseUpdateResponse, correlationId: 9 },
    issues: [at('/correlationId', 'type')],
    reqs: ['CU-RES-SCHEMA'],
  },

  {
    schema: 'step-up-request',
    variant: 'missing inquiryId',
    value: without(fullStepUp, 'inquiryId'),
    issues: [at('', 'required')],
    reqs: ['SU-REQ-REQUIRED'],
  },
  {
    schema: 'step-up-request',
    variant: 'missing authenticationId',
    value: without(fullStepUp, 'authenticationId'),
    issues: [at('', 'required')],
    reqs: ['SU-REQ-REQUIRED'],
  },
  {
    schema: 'step-up-request',
    variant: 'strategy as a string (it is an object in 2.6)',
    value: { ...minimalStepUp, strategy: 'otp' },
    issues: [at('/strategy', 'type')],
    reqs: ['SU-CHANNELS'],
  },
  {
    schema: 'step-up-request',
    variant: 'email as a number',
    value: { ...minimalStepUp, email: 1 },
    issues: [at('/email', 'type')],
    reqs: ['SU-CHANNELS'],
  },
  {
    schema: 'step-up-request',
    variant: 'images as an array',
    value: { ...minimalStepUp, images: [] },
    issues: [at('/images', 'type')],
    reqs: ['SU-CHANNELS'],
  },

  {
    schema: 'step-up-response',
    variant: 'strategy as a string',
    value: { ...fullStepUpResponse, strategy: 'otp' },
    issues: [at('/strategy', 'type')],
    reqs: ['SU-RES-SCHEMA'],
  },
  {
    schema: 'step-up-response',
    variant: 'decision as a boolean',
    value: { ...fullStepUpResponse, decision: true },
    issues: [at('/decision', 'type')],
    reqs: ['SU-RES-SCHEMA'],
  },

  {
    schema: 'webhook-document-onboarding',
    variant: 'an event without status',
    value: { sessionId: 'session-1' },
    issues: [at('', 'required')],
    reqs: ['EVT-ONBOARDING-SCHEMA'],
  },
  {
    schema: 'webhook-document-onboarding',
    variant: 'an event without sessionId',
    value: { status: 'DONE' },
    issues: [at('', 'required')],
    reqs: ['EVT-ONBOARDING-SCHEMA'],
  },
  {
    schema: 'webhook-document-onboarding',
    variant: 'status as a number',
    value: { ...onboarding, status: 2 },
    issues: [at('/status', 'type')],
    reqs: ['EVT-ONBOARDING-SCHEMA'],
  },

  {
    schema: 'webhook-document-results',
    variant: 'an event without sessionId',
    value: without(fullResults, 'sessionId'),
    issues: [at('', 'required')],
    reqs: ['EVT-RESULTS-SCHEMA'],
  },
  {
    schema: 'webhook-document-results',
    variant: 'ocr as a string',
    value: { ...fullResults, ocr: 'ADA' },
    issues: [at('/ocr', 'type')],
    reqs: ['EVT-RESULTS-SCHEMA'],
  },
  {
    schema: 'webhook-document-results',
    variant: 'inquiryId as a number',
    value: { ...fullResults, inquiryId: 1 },
    issues: [at('/inquiryId', 'type')],
    reqs: ['EVT-RESULTS-SCHEMA'],
  },

  {
    schema: 'webhook-verification-session',
    variant: 'an event without sessionId',
    value: without(fullSession, 'sessionId'),
    issues: [at('', 'required')],
    reqs: ['EVT-SESSION-SCHEMA'],
  },
  {
    schema: 'webhook-verification-session',
    variant: "verificationStatus 'SUCCESS'",
    value: { ...fullSession, verificationStatus: 'SUCCESS' },
    issues: [at('/verificationStatus', 'enum')],
    reqs: ['EVT-SESSION-STATUS-ENUM'],
  },
  {
    schema: 'webhook-verification-session',
    variant: "verificationStatus 'verified' in lower case",
    value: { ...fullSession, verificationStatus: 'verified' },
    issues: [at('/verificationStatus', 'enum')],
    reqs: ['EVT-SESSION-STATUS-ENUM'],
  },
  {
    schema: 'webhook-verification-session',
    variant: "resendStatus 'RESENT'",
    value: { ...fullSession, resendStatus: 'RESENT' },
    issues: [at('/resendStatus', 'enum')],
    reqs: ['EVT-SESSION-RESEND-ENUM'],
  },
  {
    schema: 'webhook-verification-session',
    variant: "mfaType 'SMS'",
    value: { ...fullSession, mfaType: 'SMS' },
    issues: [at('/mfaType', 'enum')],
    reqs: ['EVT-SESSION-MFA-ENUM'],
  },
  {
    schema: 'webhook-verification-session',
    variant: "channelType 'WHATSAPP_OTP' outside the list",
    value: { ...fullSession, channelType: 'WHATSAPP_OTP' },
    issues: [at('/channelType', 'enum')],
    reqs: ['EVT-SESSION-CHANNEL-ENUM'],
  },
  {
    schema: 'webhook-verification-session',
    variant: "channelType 'OTP' (an mfaType value)",
    value: { ...fullSession, channelType: 'OTP' },
    issues: [at('/channelType', 'enum')],
    reqs: ['EVT-SESSION-CHANNEL-ENUM'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'sendAttempts as the number 3',
    value: { ...fullSession, sendAttempts: 3 },
    issues: [at('/sendAttempts', 'type')],
    reqs: ['EVT-SESSION-INT64'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'sendAttempts "3.5"',
    value: { ...fullSession, sendAttempts: '3.5' },
    issues: notDecimal('/sendAttempts'),
    reqs: ['EVT-SESSION-INT64'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'verificationAttempts ""',
    value: { ...fullSession, verificationAttempts: '' },
    issues: notDecimal('/verificationAttempts'),
    reqs: ['EVT-SESSION-INT64'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'verificationAttempts " 3" with a space',
    value: { ...fullSession, verificationAttempts: ' 3' },
    issues: notDecimal('/verificationAttempts'),
    reqs: ['EVT-SESSION-INT64'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'remainingSendAttempts "1e3"',
    value: { ...fullSession, remainingSendAttempts: '1e3' },
    issues: notDecimal('/remainingSendAttempts'),
    reqs: ['EVT-SESSION-INT64'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'remainingSendAttempts "0x10"',
    value: { ...fullSession, remainingSendAttempts: '0x10' },
    issues: notDecimal('/remainingSendAttempts'),
    reqs: ['EVT-SESSION-INT64'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'remainingVerificationAttempts "03" with a leading zero',
    value: { ...fullSession, remainingVerificationAttempts: '03' },
    issues: [at('/remainingVerificationAttempts', 'pattern')],
    reqs: ['EVT-SESSION-INT64'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'remainingVerificationAttempts "9223372036854775808" above int64',
    value: { ...fullSession, remainingVerificationAttempts: '9223372036854775808' },
    issues: [at('/remainingVerificationAttempts', 'format')],
    reqs: ['EVT-SESSION-INT64'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'sendAttempts "-9223372036854775809" below int64',
    value: { ...fullSession, sendAttempts: '-9223372036854775809' },
    issues: [at('/sendAttempts', 'format')],
    reqs: ['EVT-SESSION-INT64'],
  },
  {
    schema: 'webhook-verification-session',
    variant: "autoTrustDevice 'true' as a string",
    value: { ...fullSession, autoTrustDevice: 'true' },
    issues: [at('/autoTrustDevice', 'type')],
    reqs: ['EVT-SESSION-SCHEMA'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'docVerification as the number 1',
    value: { ...fullSession, docVerification: 1 },
    issues: [at('/docVerification', 'type')],
    reqs: ['EVT-SESSION-SCHEMA'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'error as a string',
    value: { ...fullSession, error: 'timeout' },
    issues: [at('/error', 'type')],
    reqs: ['EVT-SESSION-SCHEMA'],
  },
  {
    schema: 'webhook-verification-session',
    variant: 'sentTimeStamp as a number',
    value: { ...fullSession, sentTimeStamp: 1714558530 },
    issues: [at('/sentTimeStamp', 'type')],
    reqs: ['EVT-SESSION-SCHEMA'],
  },

  {
    schema: 'order-error-envelope',
    variant: 'code "400" as a string',
    value: { ...validationError, code: '400' },
    issues: [at('/code', 'type')],
    reqs: ['ORD-ERR-ENVELOPE'],
  },
  {
    schema: 'order-error-envelope',
    variant: 'missing message',
    value: without(validationError, 'message'),
    issues: [at('', 'required')],
    reqs: ['ORD-ERR-ENVELOPE'],
  },
  {
    schema: 'order-error-envelope',
    variant: 'missing errorType',
    value: without(validationError, 'errorType'),
    issues: [at('', 'required')],
    reqs: ['ORD-ERR-ENVELOPE'],
  },
  {
    schema: 'order-error-envelope',
    variant: 'missing code',
    value: without(validationError, 'code'),
    issues: [at('', 'required')],
    reqs: ['ORD-ERR-ENVELOPE'],
  },
  {
    schema: 'order-error-envelope',
    variant: 'errorType null',
    value: { ...validationError, errorType: null },
    issues: [at('/errorType', 'type')],
    reqs: ['ORD-ERR-ENVELOPE'],
  },
  {
    schema: 'order-error-envelope',
    variant: 'a plain-text message instead of an object',
    value: 'failed to authorize request',
    issues: [at('', 'type')],
    reqs: ['ORD-ERR-ENVELOPE'],
  },

  {
    schema: 'token-response',
    variant: 'an empty access_token',
    value: { access_token: '', token_type: 'Bearer' },
    issues: [at('/access_token', 'minLength')],
    reqs: ['TOK-ISSUED'],
  },
  {
    schema: 'token-response',
    variant: 'missing access_token',
    value: { token_type: 'Bearer', expires_in: 3600 },
    issues: [at('', 'required')],
    reqs: ['TOK-ISSUED'],
  },
  {
    schema: 'token-response',
    variant: 'access_token as a number',
    value: { access_token: 12345 },
    issues: [at('/access_token', 'type')],
    reqs: ['TOK-ISSUED'],
  },
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
      expect(invalidCases.filter((v) => v.schema === file).length, 'invalid cases').toBeGreaterThanOrEqual(2);
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

  test('null is unset (proto3 JSON mapping): every optional member of each response and event schema accepts null, and a present value of another type still fails', () => {
    const responseSchemas = [
      'assessment-response',
      'case-update-response',
      'document-records',
      'document-verification-response',
      'step-up-response',
      'webhook-document-onboarding',
      'webhook-document-results',
      'webhook-verification-session',
    ];
    for (const file of responseSchemas) {
      const id = schemaIdFor(file);
      const document = schemaDocument(id) as { properties: Record<string, unknown>; required?: string[] };
      const valid = validCases.find((c) => c.schema === file)?.value as Record<string, unknown> | undefined;
      expect(valid, `a valid case of ${file}`).toBeDefined();
      const optional = Object.keys(document.properties).filter((name) => !(document.required ?? []).includes(name));
      const allNull = { ...valid, ...Object.fromEntries(optional.map((name) => [name, null])) };
      expect(schemaIssues(id, allNull), `${file} with every optional member null`).toEqual([]);
      for (const name of optional) {
        const wrong = typeof valid?.[name] === 'string' ? 12 : 'not-an-object-or-list';
        const issues = schemaIssues(id, { ...allNull, [name]: wrong });
        expect(
          issues.map((i) => i.instancePath),
          `${file}.${name} as ${JSON.stringify(wrong)}`,
        ).toContain(`/${name}`);
      }
    }
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
