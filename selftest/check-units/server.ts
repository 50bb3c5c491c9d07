import { operation } from '../../catalog/catalog.ts';
import { envelopeRules } from '../../fixtures/orders.ts';
import { expectBearerChallenge } from '../../kit/checks/auth.ts';
import { expectCaseDecision, expectRecordsOfCase, expectTagsOnCase } from '../../kit/checks/identity.ts';
import { caseStateOf, expectNothingChanged } from '../../kit/checks/nothing-changed.ts';
import { expectErrorEnvelope } from '../../kit/checks/order-envelope.ts';
import { checks } from '../../kit/checks/registry.ts';
import {
  expectAtMostOneAccepted,
  expectEnumValue,
  expectEqual,
  expectNonEmptyString,
  expectSchema,
} from '../../kit/checks/responses.ts';
import {
  expectAcceptedOrRefused,
  expectIdentifierBack,
  expectTagsShown,
  observeClassOutcomes,
  observeValueClass,
} from '../../kit/checks/value-round-trip.ts';
import {
  expectFlowEvent,
  expectOnboardingOfSession,
  expectResultsForInquiry,
  expectValidEvents,
  expectWellFormedDeliveries,
  observeSessionChannel,
} from '../../kit/checks/webhook-events.ts';
import type { Exchange } from '../../kit/http/exchange.ts';
import type { Verdict } from '../../kit/verdict.ts';
import type { DeliveryRecord } from '../../kit/webhooks/run-events.ts';
import type { Window } from '../../kit/webhooks/ties.ts';
import { isObject } from '../../schemas/json-value.ts';
import { answeredWith, recordedDeliveries, recordedExchange } from './recorded.ts';
import { each, unitOf, type Each, type ServerUnit } from './unit.ts';

/**
 * The units of the checks of a target (kit/checks/registry.ts, serverChecksByName), a table of data: each check's
 * call on one input, then its good and bad inputs. An answer is a recorded exchange by name
 * (tools/check-units/record.ts, `picks`), or one answered otherwise: another status, headers, attempts, or members of
 * its JSON body replaced.
 */

interface Change {
  status?: number;
  headers?: Record<string, string | undefined>;
  body?: Record<string, unknown>;
  attempts?: Exchange['attempts'];
}
type Answer = string | readonly [string, Change];

const bodyOf = (exchange: Exchange): Record<string, unknown> => (isObject(exchange.json) ? exchange.json : {});
/** The answer's exchange: recorded, or answered otherwise. */
function x(answer: Answer): Exchange {
  const [key, change = {}] = typeof answer === 'string' ? [answer] : answer;
  const { body, attempts, ...rest } = change;
  const recorded = recordedExchange(key);
  const exchange = answeredWith(recorded, body ? { ...rest, json: { ...bodyOf(recorded), ...body } } : rest);
  return attempts ? { ...exchange, attempts } : exchange;
}
const member = (answer: Answer, name: string) => bodyOf(x(answer))[name];
const sentMember = (answer: Answer, name: string) => (JSON.parse(x(answer).request.body ?? '{}') as never)[name];
const unit = unitOf<Verdict, never> as <T>(
  id: string,
  call: (v: Verdict, id: string, input: T) => unknown,
  good: NoInfer<T | Each<T>>,
  bad: NoInfer<T | Each<T>>,
) => ServerUnit;

const fetched = (answer: Answer = 'caseFetched') => ({ exchange: x(answer), body: bodyOf(x(answer)) });
/** The tags the two recorded updates appended: those of the case after them. */
const appended = () =>
  (member('caseFetched', 'tags') as Array<{ name?: string } | string>).map((t) =>
    typeof t === 'string' ? t : (t.name ?? ''),
  );

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

/** The decomposed inquiryId recorded (class latin-nfd) judged as it came back. */
const identifierBack = (v: Verdict, id: string, way: string) =>
  expectIdentifierBack(
    v,
    id,
    'inquiryId',
    back[way]?.(String(member('idNfd', 'inquiryId'))),
    sentMember('idNfd', 'inquiryId'),
    x('idNfd'),
  );

/** The tags of the recorded updates of the decomposed and outer-spaces classes, judged against the case after them. */
function tagsShown(v: Verdict, id: string, way: string) {
  const sent = ['tagsNfd', 'tagsSpaced'].flatMap((update) => sentMember(update, 'tags') as string[]);
  const tags = (member('tagsFetched', 'tags') as unknown[]).flatMap((item) => {
    const name = typeof item === 'string' ? item : String((item as { name?: unknown }).name);
    if (!sent.includes(name)) return [item];
    const shown = back[way]?.(name);
    if (shown === undefined) return [];
    return [typeof item === 'string' ? shown : { ...(item as object), name: shown }];
  });
  return expectTagsShown(v, id, sent, fetched(['tagsFetched', { body: { tags } }]));
}

/** The deliveries of a recorded document flow: its results event, its onboarding event, the inquiry they follow. */
function documentEvents(key = 'documentEvents') {
  const all = recordedDeliveries(key);
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
const statuses = (...answered: number[]) =>
  each(Object.fromEntries(answered.map((status) => [`answered ${status}`, status])));
const noChallenge = { 'www-authenticate': undefined };

/** The checks of one answer by their registered name: requirement, good and bad answers, the check's further arguments. */
const ofOneAnswer: Array<readonly [string, string, Answer | Each<Answer>, Answer | Each<Answer>, ...unknown[]]> = [
  ['expectNoAccessToken', 'TOK-CLIENT-AUTH', 'tokenRefusedClient', 'tokenIssued'],
  [
    'expectOAuthError',
    'TOK-CLIENT-ERROR',
    'tokenRefusedClient',
    ['tokenRefusedClient', { body: { error: 'invalid_request' } }],
    { statuses: [401], error: 'invalid_client' },
  ],
  ['expectClientChallenge', 'TOK-CLIENT-ERROR', 'tokenRefusedClient', ['tokenRefusedClient', { headers: noChallenge }]],
  ['expectBearerTokenType', 'TOK-RESPONSE-FIELDS', 'tokenIssued', ['tokenIssued', { body: { token_type: 'mac' } }]],
  ['expectTokenLifetime', 'TOK-RESPONSE-FIELDS', 'tokenIssued', ['tokenIssued', { body: { expires_in: '1200' } }]],
  ['expectNoStore', 'TOK-NO-STORE', 'tokenIssued', each({ 'token-no-cache-control': 'tokenIssuedWithoutNoStore' })],
  ['expectStatus', 'TOK-STATUS-200', 'tokenIssued', ['tokenIssued', { status: 201 }], [200]],
  [
    'expectNotTheCase',
    'DOCR-UNKNOWN',
    'nearMissFetched',
    'caseFetched',
    String(member('caseFetched', 'authenticationId')),
  ],
  ['expectNotValidationError', 'ORD-FULFILLMENT-ALLOWED', 'orderCreated', 'orderValidation', 'SHIPPED'],
  [
    'expectAnsweredAlike',
    'HDR-NAME-CASE',
    'assessed',
    'requiredMissing',
    { consequence: 'accepted', shown: 'answered 200' },
  ],
  ['expectRefused', 'ASM-REQ-REQUIRED', 'requiredMissing', 'assessed'],
  ['expectAccepted', 'ASM-ACCEPTED', 'assessed', 'requiredMissing'],
  ['expectJsonBody', 'GEN-JSON-RESPONSE', 'assessed', ['assessed', { headers: { 'content-type': 'text/plain' } }]],
  ['expectNoServerError', 'GEN-MALFORMED-BODY', 'requiredMissing', ['requiredMissing', { status: 500 }]],
  ['observeLimit', 'LIM-NOT-SHOWN', 'orderDuplicate', ['orderDuplicate', { status: 413 }], 'an order'],
  ['observeAnswer', 'ASM-REQ-TYPES', 'assessed', 'requiredMissing', 'an assessment'],
  [
    'observeRetries',
    'ORD-RETRY-OBSERVED',
    'assessed',
    ['assessed', { attempts: [{ status: 503, retryAfter: '1', waitedMs: 1000 }, { status: 200 }] }],
  ],
];
type OfOneAnswer = (v: Verdict, id: string, exchange: Exchange, ...extra: unknown[]) => unknown;

export const serverUnits: Record<string, ServerUnit> = {
  ...Object.fromEntries(
    ofOneAnswer.map(([name, id, good, bad, ...extra]) => [
      name,
      unit(
        id,
        (v, given, answer: Answer) =>
          (checks[name as keyof typeof checks] as OfOneAnswer)(v, given, x(answer), ...extra),
        good,
        bad,
      ),
    ]),
  ),
  // RFC 6750 section 3.1: a malformed Authorization header is invalid_request, which may be answered 400.
  expectBearerChallenge: unit(
    'BEARER-CHALLENGE',
    (v, id, [answer, malformed]: readonly [Answer, boolean?]) => expectBearerChallenge(v, id, x(answer), { malformed }),
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
  ),
  expectTagsOnCase: unit(
    'CU-TAGS-APPEND',
    (v, id, missing: number) =>
      expectTagsOnCase(v, id, fetched(['caseFetched', { body: { tags: appended().slice(missing) } }]), appended()),
    0,
    1,
  ),
  expectCaseDecision: unit(
    'CU-DECISION-APPLIED',
    (v, id, decision: string) => expectCaseDecision(v, id, fetched(), decision),
    'REVIEW',
    'DENY',
  ),
  expectRecordsOfCase: unit(
    'DOCR-RES-ID',
    (v, id, [caseOf, recordsPathId]: readonly [Answer, string?]) => {
      const authenticationId = String(member(caseOf, 'authenticationId'));
      return expectRecordsOfCase(v, id, x('recordsFetched'), {
        authenticationId,
        inquiryId: 'inq-x',
        recordsPathId: recordsPathId ?? authenticationId,
      });
    },
    ['recordsFetched'],
    ['assessed', 'inq-x'],
  ),
  // A refused update's markers (the tags it carried, 'appended': those the recorded updates appended; its decision),
  // and the decision of the case before it where one is compared.
  expectNothingChanged: unit(
    'CU-TAGS-APPEND',
    (
      v,
      id,
      { tags, decision, before }: { tags?: readonly string[] | 'appended'; decision?: string; before?: string },
    ) => {
      const markers = { tags: tags === 'appended' ? appended() : tags && [...tags], decision };
      const state = caseStateOf(bodyOf(x('caseFetched')));
      const was = before && { ...state, decision: before === 'as fetched' ? state.decision : before };
      return expectNothingChanged(v, id, fetched(), [{ exchange: x('requiredMissing'), markers }], was || undefined);
    },
    each({
      'the refused update left no tag': { tags: ['marker-never-sent'] },
      'the refused update left the decision as it was': { decision: 'ACCEPT', before: 'as fetched' },
    }),
    each({
      "the refused update's tags appended": { tags: 'appended' },
      "the refused update's decision set": { decision: 'ACCEPT', before: 'NOT-THE-DECISION' },
    }),
  ),
  expectErrorEnvelope: unit(
    'ORD-409',
    (v, id, answer: Answer) => expectErrorEnvelope(v, envelopeRules, x(answer), { id, row: '409' }),
    'orderDuplicate',
    each({ 'order-duplicate-400': 'orderDuplicateAs400' }),
  ),
  expectSchema: unit(
    'ASM-RES-SCHEMA',
    (v, id, answer: Answer) =>
      expectSchema(v, id, operation('assessment').responseSchema as string, x(answer).json, x(answer)),
    'assessed',
    ['assessed', { body: { tags: 'none' } }],
  ),
  expectEqual: unit(
    'ASM-RES-IDS',
    (v, id, [answer, name]: readonly [Answer, string]) =>
      expectEqual(v, id, 'inquiryId', member(answer, name), sentMember('assessed', 'inquiryId'), x(answer)),
    ['assessed', 'inquiryId'],
    ['caseUpdated', 'correlationId'],
  ),
  expectNonEmptyString: unit(
    'ASM-RES-IDS',
    (v, id, answer: Answer) =>
      expectNonEmptyString(v, id, 'authenticationId', member(answer, 'authenticationId'), x(answer)),
    'assessed',
    'requiredMissing',
  ),
  expectAtMostOneAccepted: unit(
    'ORD-409',
    (v, id, answers: readonly Answer[]) => expectAtMostOneAccepted(v, id, answers.map(x), 'orders of one identifier'),
    ['orderCreated', 'orderDuplicate'],
    ['orderCreated', 'orderCreated'],
  ),
  expectEnumValue: unit(
    'CU-DECISION-APPLIED',
    (v, id, answer: Answer) => expectEnumValue(v, id, 'decision', member(answer, 'decision'), 'REVIEW'),
    'caseFetched',
    'orderCreated',
  ),
  expectIdentifierBack: unit(
    'ASM-RES-IDS',
    identifierBack,
    backs('as sent'),
    backs('normalised to NFC', 're-cased', 'cut', 'dropped'),
  ),
  expectAcceptedOrRefused: unit(
    'CU-TAGS-APPEND',
    (v, id, status: number) => expectAcceptedOrRefused(v, id, x(['tagsNfd', { status }])),
    statuses(200, 201, 400, 413, 422),
    statuses(500, 503),
  ),
  // Part 2.5 lets the service show a tag normalised or trimmed, never otherwise changed.
  expectTagsShown: unit(
    'CU-TAGS-APPEND',
    tagsShown,
    backs('as sent', 'normalised to NFC', 'trimmed'),
    backs('re-cased', 'cut', 'dropped'),
  ),
  expectWellFormedDeliveries: unit(
    'EVT-DELIVERY',
    (v, id, key: string) => expectWellFormedDeliveries(v, id, documentEvents(key).all),
    'documentEvents',
    each({ 'webhook-text-plain-on-results': 'documentEventsTextPlain' }),
  ),
  expectValidEvents: unit(
    'EVT-RESULTS-SCHEMA',
    (v, id, members: Record<string, unknown>) => {
      const { results } = documentEvents();
      return expectValidEvents(v, [id], [withJson(results, { ...(results.json as object), ...members })], ['results']);
    },
    {},
    { inquiryId: 42 },
  ),
  expectFlowEvent: unit(
    'EVT-FLOW-DELIVERY',
    (v, id, arrived: boolean) =>
      expectFlowEvent(v, id, x('documentVerified'), arrived ? documentEvents().results : undefined, wait),
    true,
    false,
  ),
  // The flow's inquiry and run tag are the clean recording's: a faulted run's results event names another.
  expectResultsForInquiry: unit(
    'EVT-RESULTS-INQUIRY',
    (v, id, key: string) => {
      const { inquiryId, runTag } = documentEvents();
      const arrived = documentEvents(key);
      const found = arrived.inquiryId === inquiryId ? arrived.results : undefined;
      return expectResultsForInquiry(v, id, window, arrived.all, inquiryId, runTag, found);
    },
    'documentEvents',
    each({ 'webhook-results-wrong-inquiry': 'documentEventsWrongInquiry' }),
  ),
  expectOnboardingOfSession: unit(
    'EVT-DOC-SESSION-ID',
    (v, id, onboarded: boolean) => {
      const { all, results, onboarding } = documentEvents();
      return expectOnboardingOfSession(
        v,
        id,
        window,
        onboarded ? all : [results],
        results,
        onboarded ? onboarding : undefined,
      );
    },
    true,
    false,
  ),
  observeValueClass: unit(
    'OBS-VALUE-CLASSES',
    (v, id, [answer, resent]: readonly [Answer, boolean?]) =>
      observeValueClass(v, id, 'assessment', valueClass, x(answer), resent),
    ['idNfd'],
    ['requiredMissing', true],
  ),
  observeClassOutcomes: unit(
    'OBS-VALUE-CLASSES',
    (v, id, outcome: string) => observeClassOutcomes(v, id, 'tags', [{ valueClass: 'latin-nfd', outcome }]),
    'as sent',
    'normalised to NFC',
  ),
  // A verification session event of a step-up by SMS.
  observeSessionChannel: unit(
    'EVT-SESSION-CHANNEL-MATCH',
    (v, id, channelType: string) => {
      const event = withJson(documentEvents().results, { eventType: 'VERIFICATION_SESSION', channelType });
      return observeSessionChannel(v, id, event, {
        channel: 'phone',
        name: 'a step-up by SMS',
        sentAt: event.receivedAt,
      });
    },
    'SMS_OTP',
    'EMAIL_OTP',
  ),
};
