import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { operation } from '../../catalog/catalog.ts';
import { envelopeRules } from '../../fixtures/orders.ts';
import { caseStateOf } from '../../kit/checks/nothing-changed.ts';
import { checks } from '../../kit/checks/registry.ts';
import { parseJson, type Exchange, type HeaderList } from '../../kit/http/exchange.ts';
import type { Verdict } from '../../kit/verdict.ts';
import type { DeliveryRecord } from '../../kit/webhooks/run-events.ts';
import type { Window } from '../../kit/webhooks/ties.ts';
import { isObject } from '../../schemas/json-value.ts';
import { each, unitOf as unit, type CheckUnit } from './unit.ts';

// The units of the checks of a target (`checks` of kit/checks/registry.ts). An answer is an exchange recorded by
// tools/check-units/record.ts by name, or one answered otherwise: headers (undefined removes one), members of its body.
type Change = Partial<Pick<Exchange, 'status' | 'attempts'>> & {
  headers?: Record<string, string | undefined>;
  body?: Record<string, unknown>;
};
type Answer = string | readonly [string, Change];
type Inputs<T> = T | Map<string, T>;

/** server.json as a test attaches its exchanges and deliveries (kit/http/exchange.ts, fixtures/webhooks.ts). */
type Recorded = Pick<Exchange, 'label' | 'note' | 'request' | 'attempts' | 'durationMs'> & {
  response: { status: number; headers: HeaderList; body: string };
};
type RecordedDelivery = Omit<DeliveryRecord, 'receivedAt' | 'endedAt' | 'bodyPreview'> & { receivedAt: string };
const recorded = JSON.parse(readFileSync(new URL('./recorded/server.json', import.meta.url), 'utf8')) as {
  exchanges: Record<string, Recorded>;
  deliveries: Record<string, RecordedDelivery[]>;
};
const bodyOf = (json: unknown): Record<string, unknown> => (isObject(json) ? json : {});

/** The answer's exchange, a fresh copy each time. */
function x(answer: Answer): Exchange {
  const [key, { status, headers: changed, body, attempts } = {}] = typeof answer === 'string' ? [answer] : answer;
  const found = recorded.exchanges[key] ?? assert.fail(`no recorded exchange ${key} in recorded/server.json`);
  const { response, ...exchange } = structuredClone(found);
  const headers = { ...Object.fromEntries(response.headers.map(([n, v]) => [n.toLowerCase(), v])), ...changed };
  for (const [name, value] of Object.entries(headers)) if (value === undefined) delete headers[name];
  const text = body ? JSON.stringify({ ...bodyOf(parseJson(response.body).json), ...body }) : response.body;
  const answered = { status: status ?? response.status, headers, rawHeaders: Object.entries(headers), text };
  return { ...exchange, ...answered, ...parseJson(text), attempts: attempts ?? exchange.attempts } as Exchange;
}
const member = (answer: Answer, name: string) => bodyOf(x(answer).json)[name];
const sentMember = (answer: Answer, name: string) => (JSON.parse(x(answer).request.body ?? '{}') as never)[name];

const fetched = (answer: Answer = 'caseFetched') => ({ exchange: x(answer), body: bodyOf(x(answer).json) });
const nameOf = (tag: unknown) => (typeof tag === 'string' ? tag : String((tag as { name?: unknown }).name ?? ''));
/** The tags the two recorded updates appended: those of the case after them. */
const appended = () => (member('caseFetched', 'tags') as unknown[]).map(nameOf);

/** How a value sent came back: as sent, changed in a way the document allows, or in one it does not. */
const back: Record<string, (value: string) => string | undefined> = {
  'as sent': (value) => value,
  'normalised to NFC': (value) => value.normalize('NFC'),
  trimmed: (value) => value.trim(),
  're-cased': (value) => value.toUpperCase(),
  cut: (value) => value.slice(0, 8),
  dropped: () => undefined,
};
const backs = (...ways: string[]) => each(Object.fromEntries(ways.map((way) => [way, way])));

type Refused = { tags?: readonly string[] | 'appended'; decision?: string; before?: string };

/** The tags of the recorded updates of the decomposed and outer-spaces classes, judged against the case after them. */
function tagsShown(v: Verdict, id: string, way: string) {
  const sent = ['tagsNfd', 'tagsSpaced'].flatMap((update) => sentMember(update, 'tags') as string[]);
  const tags = (member('tagsFetched', 'tags') as unknown[]).flatMap((item) => {
    const name = nameOf(item);
    if (!sent.includes(name)) return [item];
    const shown = back[way]?.(name);
    if (shown === undefined) return [];
    return [typeof item === 'string' ? shown : { ...(item as object), name: shown }];
  });
  return checks.expectTagsShown(v, id, sent, fetched(['tagsFetched', { body: { tags } }]));
}

/** The deliveries of a recorded document flow: its results event, its onboarding event, the inquiry they follow. */
function documentEvents(key = 'documentEvents') {
  const found = recorded.deliveries[key] ?? assert.fail(`no recorded deliveries ${key} in recorded/server.json`);
  const all: DeliveryRecord[] = structuredClone(found).map((d) => {
    const at = Date.parse(d.receivedAt);
    return { ...d, receivedAt: at, endedAt: at, bodyPreview: JSON.stringify(d.json) ?? '' };
  });
  const results = all.find((d) => isObject(d.json) && 'inquiryId' in d.json) as DeliveryRecord;
  const onboarding = all.find((d) => d !== results) as DeliveryRecord;
  const inquiryId = (results.json as { inquiryId: string }).inquiryId;
  return { all, results, onboarding, inquiryId, runTag: inquiryId.split('-')[1] as string };
}
const window = { since: 0, timeoutMs: 60_000 } as Window;
const wait = { expected: 'a document results event of the verification', actual: 'none arrived' };
const withJson = (d: DeliveryRecord, json: Record<string, unknown>): DeliveryRecord => ({ ...d, json });
/** A value class of the population (kit/builders/value-population.ts), as an assessment carried it. */
const valueClass = { members: ['inquiryId'], valueClass: { id: 'latin-nfd', name: 'decomposed Latin' } } as const;
/** The recorded update of decomposed tags, answered each status instead. */
const tagsAnswered = (...statuses: number[]) =>
  each(Object.fromEntries(statuses.map((status) => [`answered ${status}`, ['tagsNfd', { status }] as const])));
const noChallenge = { 'www-authenticate': undefined };
const caseId = String(member('caseFetched', 'authenticationId'));
const alikeAccepted = { consequence: 'accepted', shown: 'answered 200' };
const retriedOnce = [{ status: 503, retryAfter: '1', waitedMs: 1000 }, { status: 200 }];

/** The checks of one answer: requirement, good and bad answers, the check's further arguments. */
const ofOneAnswer: Record<string, readonly [string, Inputs<Answer>, Inputs<Answer>, ...unknown[]]> = {
  expectNoAccessToken: ['TOK-CLIENT-AUTH', 'tokenRefusedClient', 'tokenIssued'],
  expectOAuthError: [
    'TOK-CLIENT-ERROR',
    'tokenRefusedClient',
    ['tokenRefusedClient', { body: { error: 'invalid_request' } }],
    { statuses: [401], error: 'invalid_client' },
  ],
  expectClientChallenge: ['TOK-CLIENT-ERROR', 'tokenRefusedClient', ['tokenRefusedClient', { headers: noChallenge }]],
  expectBearerTokenType: ['TOK-RESPONSE-FIELDS', 'tokenIssued', ['tokenIssued', { body: { token_type: 'mac' } }]],
  expectTokenLifetime: ['TOK-RESPONSE-FIELDS', 'tokenIssued', ['tokenIssued', { body: { expires_in: '1200' } }]],
  expectNoStore: ['TOK-NO-STORE', 'tokenIssued', each({ 'token-no-cache-control': 'tokenIssuedWithoutNoStore' })],
  expectStatus: ['TOK-STATUS-200', 'tokenIssued', ['tokenIssued', { status: 201 }], [200]],
  expectNotTheCase: ['DOCR-UNKNOWN', 'nearMissFetched', 'caseFetched', caseId],
  expectNotValidationError: ['ORD-FULFILLMENT-ALLOWED', 'orderCreated', 'orderValidation', 'SHIPPED'],
  expectAnsweredAlike: ['HDR-NAME-CASE', 'assessed', 'requiredMissing', alikeAccepted],
  expectRefused: ['ASM-REQ-REQUIRED', 'requiredMissing', 'assessed'],
  expectAccepted: ['ASM-ACCEPTED', 'assessed', 'requiredMissing'],
  expectJsonBody: ['GEN-JSON-RESPONSE', 'assessed', ['assessed', { headers: { 'content-type': 'text/plain' } }]],
  expectNoServerError: ['GEN-MALFORMED-BODY', 'requiredMissing', ['requiredMissing', { status: 500 }]],
  expectAcceptedOrRefused: ['CU-TAGS-APPEND', tagsAnswered(200, 201, 400, 413, 422), tagsAnswered(500, 503)],
  observeLimit: ['LIM-NOT-SHOWN', 'orderDuplicate', ['orderDuplicate', { status: 413 }], 'an order'],
  observeAnswer: ['ASM-REQ-TYPES', 'assessed', 'requiredMissing', 'an assessment'],
  observeRetries: ['ORD-RETRY-OBSERVED', 'assessed', ['assessed', { attempts: retriedOnce }]],
};
type OfOneAnswer = (v: Verdict, id: string, exchange: Exchange, ...extra: unknown[]) => unknown;

export const serverUnits: Record<string, CheckUnit> = {
  ...Object.fromEntries(
    Object.entries(ofOneAnswer).map(([name, [id, good, bad, ...extra]]) => [
      name,
      unit(id, good, bad, (v, given, answer: Answer) =>
        (checks[name as keyof typeof checks] as OfOneAnswer)(v, given, x(answer), ...extra),
      ),
    ]),
  ),
  // RFC 6750 section 3.1: a malformed Authorization header is invalid_request, which may be answered 400.
  expectBearerChallenge: unit(
    'BEARER-CHALLENGE',
    each({
      '401 with a Bearer challenge': ['bearerRefused'],
      '400 with a Bearer challenge for a malformed header': [['bearerRefused', { status: 400 }], true],
    }),
    each({
      '401 without a challenge (bearer-no-challenge-on-assessment)': ['bearerRefusedWithoutChallenge'],
      '400 with a Bearer challenge for a token merely unknown': [['bearerRefused', { status: 400 }]],
      '400 without a challenge for a malformed header': [
        ['bearerRefused', { status: 400, headers: noChallenge }],
        true,
      ],
      '403 with a Bearer challenge for a malformed header': [['bearerRefused', { status: 403 }], true],
      'a challenge of another scheme': [['bearerRefused', { headers: { 'www-authenticate': 'Basic realm="api"' } }]],
    }),
    (v, id, [answer, malformed]: readonly [Answer, boolean?]) =>
      checks.expectBearerChallenge(v, id, x(answer), { malformed }),
  ),
  expectTagsOnCase: unit('CU-TAGS-APPEND', 0, 1, (v, id, missing: number) =>
    checks.expectTagsOnCase(v, id, fetched(['caseFetched', { body: { tags: appended().slice(missing) } }]), appended()),
  ),
  expectCaseDecision: unit('CU-DECISION-APPLIED', 'REVIEW', 'DENY', (v, id, decision: string) =>
    checks.expectCaseDecision(v, id, fetched(), decision),
  ),
  expectRecordsOfCase: unit(
    'DOCR-RES-ID',
    ['recordsFetched'],
    ['assessed', 'inq-x'],
    (v, id, [caseOf, recordsPathId]: readonly [Answer, string?]) => {
      const authenticationId = String(member(caseOf, 'authenticationId'));
      const ids = { authenticationId, inquiryId: 'inq-x', recordsPathId: recordsPathId ?? authenticationId };
      return checks.expectRecordsOfCase(v, id, x('recordsFetched'), ids);
    },
  ),
  // A refused update's markers (its tags, 'appended': those the recorded updates appended; its decision), and the
  // decision of the case before it where one is compared.
  expectNothingChanged: unit(
    'CU-TAGS-APPEND',
    each({
      'the refused update left no tag': { tags: ['marker-never-sent'] },
      'the refused update left the decision as it was': { decision: 'ACCEPT', before: 'as fetched' },
    }),
    each({
      "the refused update's tags appended": { tags: 'appended' },
      "the refused update's decision set": { decision: 'ACCEPT', before: 'NOT-THE-DECISION' },
    }),
    (v, id, { tags, decision, before }: Refused) => {
      const markers = { tags: tags === 'appended' ? appended() : tags && [...tags], decision };
      const state = caseStateOf(bodyOf(x('caseFetched').json));
      const was = before ? { ...state, decision: before === 'as fetched' ? state.decision : before } : undefined;
      return checks.expectNothingChanged(v, id, fetched(), [{ exchange: x('requiredMissing'), markers }], was);
    },
  ),
  expectErrorEnvelope: unit(
    'ORD-409',
    'orderDuplicate',
    each({ 'order-duplicate-400': 'orderDuplicateAs400' }),
    (v, id, answer: Answer) => checks.expectErrorEnvelope(v, envelopeRules, x(answer), { id, row: '409' }),
  ),
  expectSchema: unit('ASM-RES-SCHEMA', 'assessed', ['assessed', { body: { tags: 'none' } }], (v, id, answer: Answer) =>
    checks.expectSchema(v, id, operation('assessment').responseSchema as string, x(answer).json, x(answer)),
  ),
  expectEqual: unit(
    'ASM-RES-IDS',
    ['assessed', 'inquiryId'],
    ['caseUpdated', 'correlationId'],
    (v, id, [answer, name]: readonly [Answer, string]) =>
      checks.expectEqual(v, id, 'inquiryId', member(answer, name), sentMember('assessed', 'inquiryId'), x(answer)),
  ),
  expectNonEmptyString: unit('ASM-RES-IDS', 'assessed', 'requiredMissing', (v, id, answer: Answer) =>
    checks.expectNonEmptyString(v, id, 'authenticationId', member(answer, 'authenticationId'), x(answer)),
  ),
  expectAtMostOneAccepted: unit(
    'ORD-409',
    ['orderCreated', 'orderDuplicate'],
    ['orderCreated', 'orderCreated'],
    (v, id, answers: readonly Answer[]) =>
      checks.expectAtMostOneAccepted(v, id, answers.map(x), 'orders of one identifier'),
  ),
  expectEnumValue: unit('CU-DECISION-APPLIED', 'caseFetched', 'orderCreated', (v, id, answer: Answer) =>
    checks.expectEnumValue(v, id, 'decision', member(answer, 'decision'), 'REVIEW'),
  ),
  // The decomposed inquiryId recorded (class latin-nfd), judged as it came back.
  expectIdentifierBack: unit(
    'ASM-RES-IDS',
    backs('as sent'),
    backs('normalised to NFC', 're-cased', 'cut', 'dropped'),
    (v, id, way: string) => {
      const came = back[way]?.(String(member('idNfd', 'inquiryId')));
      return checks.expectIdentifierBack(v, id, 'inquiryId', came, sentMember('idNfd', 'inquiryId'), x('idNfd'));
    },
  ),
  // Part 2.5 lets the service show a tag normalised or trimmed, never otherwise changed.
  expectTagsShown: unit(
    'CU-TAGS-APPEND',
    backs('as sent', 'normalised to NFC', 'trimmed'),
    backs('re-cased', 'cut', 'dropped'),
    tagsShown,
  ),
  expectWellFormedDeliveries: unit(
    'EVT-DELIVERY',
    'documentEvents',
    each({ 'webhook-text-plain-on-results': 'documentEventsTextPlain' }),
    (v, id, key: string) => checks.expectWellFormedDeliveries(v, id, documentEvents(key).all),
  ),
  expectValidEvents: unit('EVT-RESULTS-SCHEMA', {}, { inquiryId: 42 }, (v, id, members: Record<string, unknown>) => {
    const { results } = documentEvents();
    return checks.expectValidEvents(v, [id], [withJson(results, { ...bodyOf(results.json), ...members })], ['results']);
  }),
  expectFlowEvent: unit('EVT-FLOW-DELIVERY', true, false, (v, id, arrived: boolean) =>
    checks.expectFlowEvent(v, id, x('documentVerified'), arrived ? documentEvents().results : undefined, wait),
  ),
  // The flow's inquiry and run tag are the clean recording's: a faulted run's results event names another.
  expectResultsForInquiry: unit(
    'EVT-RESULTS-INQUIRY',
    'documentEvents',
    each({ 'webhook-results-wrong-inquiry': 'documentEventsWrongInquiry' }),
    (v, id, key: string) => {
      const { inquiryId, runTag } = documentEvents();
      const arrived = documentEvents(key);
      const found = arrived.inquiryId === inquiryId ? arrived.results : undefined;
      return checks.expectResultsForInquiry(v, id, window, arrived.all, inquiryId, runTag, found);
    },
  ),
  expectOnboardingOfSession: unit('EVT-DOC-SESSION-ID', true, false, (v, id, onboarded: boolean) => {
    const { all, results, onboarding } = documentEvents();
    const arrived = onboarded ? all : [results];
    return checks.expectOnboardingOfSession(v, id, window, arrived, results, onboarded ? onboarding : undefined);
  }),
  observeValueClass: unit(
    'OBS-VALUE-CLASSES',
    ['idNfd'],
    ['requiredMissing', true],
    (v, id, [answer, resent]: readonly [Answer, boolean?]) =>
      checks.observeValueClass(v, id, 'assessment', valueClass, x(answer), resent),
  ),
  observeClassOutcomes: unit('OBS-VALUE-CLASSES', 'as sent', 'normalised to NFC', (v, id, outcome: string) =>
    checks.observeClassOutcomes(v, id, 'tags', [{ valueClass: 'latin-nfd', outcome }]),
  ),
  observeSessionChannel: unit('EVT-SESSION-CHANNEL-MATCH', 'SMS_OTP', 'EMAIL_OTP', (v, id, channelType: string) => {
    const event = withJson(documentEvents().results, { eventType: 'VERIFICATION_SESSION', channelType });
    const step = { channel: 'phone', name: 'a step-up by SMS', sentAt: event.receivedAt } as const;
    return checks.observeSessionChannel(v, id, event, step);
  }),
};
