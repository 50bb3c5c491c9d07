import { operation } from '../../catalog/catalog.ts';
import {
  expectBearerChallenge,
  expectBearerTokenType,
  expectClientChallenge,
  expectNoAccessToken,
  expectNoStore,
  expectOAuthError,
  expectTokenLifetime,
} from '../../kit/checks/auth.ts';
import {
  expectCaseDecision,
  expectNotTheCase,
  expectRecordsOfCase,
  expectTagsOnCase,
} from '../../kit/checks/identity.ts';
import { caseStateOf, expectNothingChanged } from '../../kit/checks/nothing-changed.ts';
import { expectErrorEnvelope, expectNotValidationError, observeLimit } from '../../kit/checks/order-envelope.ts';
import { envelopeRules } from '../../fixtures/orders.ts';
import { expectAnsweredAlike } from '../../kit/checks/request-variants.ts';
import {
  expectAccepted,
  expectAtMostOneAccepted,
  expectEnumValue,
  expectEqual,
  expectJsonBody,
  expectNonEmptyString,
  expectNoServerError,
  expectRefused,
  expectSchema,
  expectStatus,
  observeAnswer,
  observeRetries,
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
import type { ServerUnit } from './unit.ts';

/** The units of the checks of a target (kit/checks/registry.ts, serverChecksByName), from recorded exchanges. */

const ex = recordedExchange;
const assessmentSchema = operation('assessment').responseSchema as string;
const bodyOf = (exchange: Exchange): Record<string, unknown> => (isObject(exchange.json) ? exchange.json : {});
const fetched = (exchange = ex('caseFetched')) => ({ exchange, body: bodyOf(exchange) });
const tagsOf = (exchange: Exchange): string[] =>
  ((bodyOf(exchange)['tags'] ?? []) as Array<{ name?: string } | string>).map((t) =>
    typeof t === 'string' ? t : (t.name ?? ''),
  );
/** The fetched case with its tags replaced: what a case looks like where the updates' tags did not land. */
const withTags = (exchange: Exchange, tags: unknown[]) =>
  answeredWith(exchange, { json: { ...bodyOf(exchange), tags } });
/** The tags the two recorded updates appended: those of the case after them. */
const appended = () => tagsOf(ex('caseFetched'));

/** A results event, its onboarding event and the request they follow (tests/webhooks/document-events.spec.ts). */
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

const accepted = () => ex('assessed');
const refused = () => ex('requiredMissing');
const asServerError = (exchange: Exchange) => answeredWith(exchange, { status: 500 });
const unchallenged = (exchange: Exchange) => answeredWith(exchange, { headers: { 'www-authenticate': undefined } });

/** The decomposed inquiryId recorded (class latin-nfd) judged as it came back, changed by `back`. */
function identifierBack(v: Verdict, id: string, back: (answered: string) => string | undefined) {
  const exchange = ex('idNfd');
  const sent = (JSON.parse(exchange.request.body ?? '{}') as { inquiryId: string }).inquiryId;
  return expectIdentifierBack(v, id, 'inquiryId', back(String(bodyOf(exchange)['inquiryId'])), sent, exchange);
}

/**
 * The tags of the recorded updates of the decomposed (latin-nfd) and the outer-spaces classes judged against the case
 * fetched after them, each of those tags shown changed by `shown` (undefined: not shown at all).
 */
function tagsShown(v: Verdict, id: string, shown: (tag: string) => string | undefined) {
  const sent = [ex('tagsNfd'), ex('tagsSpaced')].flatMap(
    (update) => (JSON.parse(update.request.body ?? '{}') as { tags: string[] }).tags,
  );
  const after = ex('tagsFetched');
  const tags = ((bodyOf(after)['tags'] ?? []) as unknown[]).flatMap((item) => {
    const name = typeof item === 'string' ? item : String((item as { name?: unknown }).name);
    if (!sent.includes(name)) return [item];
    const changed = shown(name);
    if (changed === undefined) return [];
    return [typeof item === 'string' ? changed : { ...(item as object), name: changed }];
  });
  return expectTagsShown(v, id, sent, fetched(answeredWith(after, { json: { ...bodyOf(after), tags } })));
}

/** A value class of the population (kit/builders/value-population.ts), as an assessment carried it. */
const valueClass = { members: ['inquiryId'], valueClass: { id: 'latin-nfd', name: 'decomposed Latin' } } as const;

/** A verification session event of a step-up by SMS, its channelType `channelType`. */
function sessionChannel(v: Verdict, id: string, channelType: string) {
  const event = withJson(documentEvents().results, { eventType: 'VERIFICATION_SESSION', channelType });
  return observeSessionChannel(v, id, event, { channel: 'phone', name: 'a step-up by SMS', sentAt: event.receivedAt });
}

export const serverUnits: Record<string, ServerUnit> = {
  expectBearerChallenge: {
    id: 'BEARER-CHALLENGE',
    // RFC 6750 section 3.1: a malformed Authorization header is invalid_request, which may be answered 400.
    good: {
      '401 with a Bearer challenge': (v, id) => expectBearerChallenge(v, id, ex('bearerRefused')),
      '400 with a Bearer challenge for a malformed header': (v, id) =>
        expectBearerChallenge(v, id, answeredWith(ex('bearerRefused'), { status: 400 }), { malformed: true }),
    },
    bad: {
      '401 without a challenge (bearer-no-challenge-on-assessment)': (v, id) =>
        expectBearerChallenge(v, id, ex('bearerRefusedWithoutChallenge')),
      '400 with a Bearer challenge for a token merely unknown': (v, id) =>
        expectBearerChallenge(v, id, answeredWith(ex('bearerRefused'), { status: 400 })),
      '400 without a challenge for a malformed header': (v, id) =>
        expectBearerChallenge(v, id, unchallenged(answeredWith(ex('bearerRefused'), { status: 400 })), {
          malformed: true,
        }),
      '403 with a Bearer challenge for a malformed header': (v, id) =>
        expectBearerChallenge(v, id, answeredWith(ex('bearerRefused'), { status: 403 }), { malformed: true }),
      'a challenge of another scheme': (v, id) =>
        expectBearerChallenge(
          v,
          id,
          answeredWith(ex('bearerRefused'), { headers: { 'www-authenticate': 'Basic realm="api"' } }),
        ),
    },
  },
  expectNoAccessToken: {
    id: 'TOK-CLIENT-AUTH',
    good: (v, id) => expectNoAccessToken(v, id, ex('tokenRefusedClient')),
    bad: (v, id) => expectNoAccessToken(v, id, ex('tokenIssued')),
  },
  expectOAuthError: {
    id: 'TOK-CLIENT-ERROR',
    good: (v, id) => expectOAuthError(v, id, ex('tokenRefusedClient'), { statuses: [401], error: 'invalid_client' }),
    bad: (v, id) =>
      expectOAuthError(v, id, answeredWith(ex('tokenRefusedClient'), { json: { error: 'invalid_request' } }), {
        statuses: [401],
        error: 'invalid_client',
      }),
  },
  expectClientChallenge: {
    id: 'TOK-CLIENT-ERROR',
    good: (v, id) => expectClientChallenge(v, id, ex('tokenRefusedClient')),
    bad: (v, id) =>
      expectClientChallenge(
        v,
        id,
        answeredWith(ex('tokenRefusedClient'), { headers: { 'www-authenticate': undefined } }),
      ),
  },
  expectBearerTokenType: {
    id: 'TOK-RESPONSE-FIELDS',
    good: (v, id) => expectBearerTokenType(v, id, ex('tokenIssued')),
    bad: (v, id) =>
      expectBearerTokenType(
        v,
        id,
        answeredWith(ex('tokenIssued'), { json: { ...bodyOf(ex('tokenIssued')), token_type: 'mac' } }),
      ),
  },
  expectTokenLifetime: {
    id: 'TOK-RESPONSE-FIELDS',
    good: (v, id) => expectTokenLifetime(v, id, ex('tokenIssued')),
    bad: (v, id) =>
      expectTokenLifetime(
        v,
        id,
        answeredWith(ex('tokenIssued'), { json: { ...bodyOf(ex('tokenIssued')), expires_in: '1200' } }),
      ),
  },
  expectNoStore: {
    id: 'TOK-NO-STORE',
    good: (v, id) => expectNoStore(v, id, ex('tokenIssued')),
    bad: { 'token-no-cache-control': (v, id) => expectNoStore(v, id, ex('tokenIssuedWithoutNoStore')) },
  },
  expectTagsOnCase: {
    id: 'CU-TAGS-APPEND',
    good: (v, id) => expectTagsOnCase(v, id, fetched(), appended()),
    bad: (v, id) => expectTagsOnCase(v, id, fetched(withTags(ex('caseFetched'), appended().slice(1))), appended()),
  },
  expectCaseDecision: {
    id: 'CU-DECISION-APPLIED',
    good: (v, id) => expectCaseDecision(v, id, fetched(), String(bodyOf(ex('caseFetched'))['decision'])),
    bad: (v, id) => expectCaseDecision(v, id, fetched(), 'DENY'),
  },
  expectRecordsOfCase: {
    id: 'DOCR-RES-ID',
    good: (v, id) => {
      const records = ex('recordsFetched');
      const caseId = String(bodyOf(records)['authenticationId']);
      return expectRecordsOfCase(v, id, records, {
        authenticationId: caseId,
        inquiryId: 'inq-x',
        recordsPathId: caseId,
      });
    },
    bad: (v, id) =>
      expectRecordsOfCase(v, id, ex('recordsFetched'), {
        authenticationId: String(bodyOf(ex('assessed'))['authenticationId']),
        inquiryId: 'inq-x',
        recordsPathId: 'inq-x',
      }),
  },
  expectNotTheCase: {
    id: 'DOCR-UNKNOWN',
    good: (v, id) =>
      expectNotTheCase(v, id, ex('nearMissFetched'), String(bodyOf(ex('caseFetched'))['authenticationId'])),
    bad: (v, id) => expectNotTheCase(v, id, ex('caseFetched'), String(bodyOf(ex('caseFetched'))['authenticationId'])),
  },
  expectNothingChanged: {
    id: 'CU-TAGS-APPEND',
    good: {
      'the refused update left no tag': (v, id) =>
        expectNothingChanged(v, id, fetched(), [{ exchange: refused(), markers: { tags: ['marker-never-sent'] } }]),
      'the refused update left the decision as it was': (v, id) =>
        expectNothingChanged(
          v,
          id,
          fetched(),
          [{ exchange: refused(), markers: { decision: 'ACCEPT' } }],
          caseStateOf(bodyOf(ex('caseFetched'))),
        ),
    },
    bad: {
      "the refused update's tags appended": (v, id) =>
        expectNothingChanged(v, id, fetched(), [{ exchange: refused(), markers: { tags: appended() } }]),
      "the refused update's decision set": (v, id) =>
        expectNothingChanged(v, id, fetched(), [{ exchange: refused(), markers: { decision: 'ACCEPT' } }], {
          ...caseStateOf(bodyOf(ex('caseFetched'))),
          decision: 'NOT-THE-DECISION',
        }),
    },
  },
  expectErrorEnvelope: {
    id: 'ORD-409',
    good: (v, id) => expectErrorEnvelope(v, envelopeRules, ex('orderDuplicate'), { id, row: '409' }),
    bad: {
      'order-duplicate-400': (v, id) =>
        expectErrorEnvelope(v, envelopeRules, ex('orderDuplicateAs400'), { id, row: '409' }),
    },
  },
  expectNotValidationError: {
    id: 'ORD-FULFILLMENT-ALLOWED',
    good: (v, id) => expectNotValidationError(v, id, ex('orderCreated'), 'SHIPPED'),
    bad: (v, id) => expectNotValidationError(v, id, ex('orderValidation'), 'SHIPPED'),
  },
  expectAnsweredAlike: {
    id: 'HDR-NAME-CASE',
    good: (v, id) => expectAnsweredAlike(v, id, accepted(), { consequence: 'accepted', shown: 'answered 200' }),
    bad: (v, id) => expectAnsweredAlike(v, id, refused(), { consequence: 'accepted', shown: 'answered 200' }),
  },
  expectRefused: {
    id: 'ASM-REQ-REQUIRED',
    good: (v, id) => expectRefused(v, id, refused()),
    bad: (v, id) => expectRefused(v, id, accepted()),
  },
  expectAccepted: {
    id: 'ASM-ACCEPTED',
    good: (v, id) => expectAccepted(v, id, accepted()),
    bad: (v, id) => expectAccepted(v, id, refused()),
  },
  expectStatus: {
    id: 'TOK-STATUS-200',
    good: (v, id) => expectStatus(v, id, ex('tokenIssued'), [200]),
    bad: (v, id) => expectStatus(v, id, answeredWith(ex('tokenIssued'), { status: 201 }), [200]),
  },
  expectJsonBody: {
    id: 'GEN-JSON-RESPONSE',
    good: (v, id) => expectJsonBody(v, id, accepted()),
    bad: (v, id) => expectJsonBody(v, id, answeredWith(accepted(), { headers: { 'content-type': 'text/plain' } })),
  },
  expectSchema: {
    id: 'ASM-RES-SCHEMA',
    good: (v, id) => expectSchema(v, id, assessmentSchema, accepted().json, accepted()),
    bad: (v, id) => expectSchema(v, id, assessmentSchema, { ...bodyOf(accepted()), tags: 'none' }, accepted()),
  },
  expectEqual: {
    id: 'ASM-RES-IDS',
    good: (v, id) => {
      const sent = JSON.parse(accepted().request.body ?? '{}') as { inquiryId: string };
      return expectEqual(v, id, 'inquiryId', bodyOf(accepted())['inquiryId'], sent.inquiryId, accepted());
    },
    bad: (v, id) =>
      expectEqual(v, id, 'inquiryId', bodyOf(ex('caseUpdated'))['correlationId'], bodyOf(accepted())['inquiryId']),
  },
  expectNonEmptyString: {
    id: 'ASM-RES-IDS',
    good: (v, id) =>
      expectNonEmptyString(v, id, 'authenticationId', bodyOf(accepted())['authenticationId'], accepted()),
    bad: (v, id) => expectNonEmptyString(v, id, 'authenticationId', bodyOf(refused())['authenticationId'], refused()),
  },
  expectNoServerError: {
    id: 'GEN-MALFORMED-BODY',
    good: (v, id) => expectNoServerError(v, id, refused()),
    bad: (v, id) => expectNoServerError(v, id, asServerError(refused())),
  },
  expectAtMostOneAccepted: {
    id: 'ORD-409',
    good: (v, id) =>
      expectAtMostOneAccepted(v, id, [ex('orderCreated'), ex('orderDuplicate')], 'orders of one identifier'),
    bad: (v, id) =>
      expectAtMostOneAccepted(v, id, [ex('orderCreated'), ex('orderCreated')], 'orders of one identifier'),
  },
  expectEnumValue: {
    id: 'CU-DECISION-APPLIED',
    good: (v, id) => expectEnumValue(v, id, 'decision', bodyOf(ex('caseFetched'))['decision'], 'REVIEW'),
    bad: (v, id) => expectEnumValue(v, id, 'decision', bodyOf(ex('orderCreated'))['decision'], 'REVIEW'),
  },
  expectIdentifierBack: {
    id: 'ASM-RES-IDS',
    good: { 'a decomposed (NFD) inquiryId byte for byte': (v, id) => identifierBack(v, id, (back) => back) },
    bad: {
      'normalised to NFC': (v, id) => identifierBack(v, id, (back) => back.normalize('NFC')),
      're-cased': (v, id) => identifierBack(v, id, (back) => back.toLowerCase()),
      cut: (v, id) => identifierBack(v, id, (back) => back.slice(0, 10)),
      absent: (v, id) => identifierBack(v, id, () => undefined),
    },
  },
  expectAcceptedOrRefused: {
    id: 'CU-TAGS-APPEND',
    good: Object.fromEntries(
      [200, 201, 400, 413, 422].map((status) => [
        `answered ${status}`,
        (v: Verdict, id: string) => expectAcceptedOrRefused(v, id, answeredWith(ex('tagsNfd'), { status })),
      ]),
    ),
    bad: Object.fromEntries(
      [500, 503].map((status) => [
        `answered ${status}`,
        (v: Verdict, id: string) => expectAcceptedOrRefused(v, id, answeredWith(ex('tagsNfd'), { status })),
      ]),
    ),
  },
  expectTagsShown: {
    id: 'CU-TAGS-APPEND',
    good: {
      'every tag as sent': (v, id) => tagsShown(v, id, (tag) => tag),
      'decomposed tags shown normalised to NFC': (v, id) => tagsShown(v, id, (tag) => tag.normalize('NFC')),
      'tags with outer spaces shown trimmed': (v, id) => tagsShown(v, id, (tag) => tag.trim()),
    },
    bad: {
      're-cased': (v, id) => tagsShown(v, id, (tag) => tag.toUpperCase()),
      cut: (v, id) => tagsShown(v, id, (tag) => tag.slice(0, 8)),
      dropped: (v, id) => tagsShown(v, id, () => undefined),
    },
  },
  expectWellFormedDeliveries: {
    id: 'EVT-DELIVERY',
    good: (v, id) => expectWellFormedDeliveries(v, id, documentEvents().all),
    bad: {
      'webhook-text-plain-on-results': (v, id) =>
        expectWellFormedDeliveries(v, id, documentEvents('documentEventsTextPlain').all),
    },
  },
  expectValidEvents: {
    id: 'EVT-RESULTS-SCHEMA',
    good: (v, id) => expectValidEvents(v, [id], documentEvents().all, ['results']),
    bad: (v, id) => {
      const { results } = documentEvents();
      return expectValidEvents(
        v,
        [id],
        [withJson(results, { ...(results.json as object), inquiryId: 42 })],
        ['results'],
      );
    },
  },
  expectFlowEvent: {
    id: 'EVT-FLOW-DELIVERY',
    good: (v, id) => expectFlowEvent(v, id, ex('documentVerified'), documentEvents().results, wait),
    bad: (v, id) => expectFlowEvent(v, id, ex('documentVerified'), undefined, wait),
  },
  expectResultsForInquiry: {
    id: 'EVT-RESULTS-INQUIRY',
    good: (v, id) => {
      const { all, results, inquiryId, runTag } = documentEvents();
      return expectResultsForInquiry(v, id, window, all, inquiryId, runTag, results);
    },
    bad: {
      // The flow's inquiry and run tag are the clean recording's: the faulted run's results event names another.
      'webhook-results-wrong-inquiry': (v, id) => {
        const { inquiryId, runTag } = documentEvents();
        const arrived = documentEvents('documentEventsWrongInquiry').all;
        return expectResultsForInquiry(v, id, window, arrived, inquiryId, runTag, undefined);
      },
    },
  },
  expectOnboardingOfSession: {
    id: 'EVT-DOC-SESSION-ID',
    good: (v, id) => {
      const { all, results, onboarding } = documentEvents();
      return expectOnboardingOfSession(v, id, window, all, results, onboarding);
    },
    bad: (v, id) => {
      const { results } = documentEvents();
      return expectOnboardingOfSession(v, id, window, [results], results, undefined);
    },
  },
  observeLimit: {
    id: 'LIM-NOT-SHOWN',
    good: (v, id) => observeLimit(v, id, ex('orderDuplicate'), 'an order'),
    bad: (v, id) => observeLimit(v, id, answeredWith(ex('orderDuplicate'), { status: 413 }), 'an order'),
  },
  observeAnswer: {
    id: 'ASM-REQ-TYPES',
    good: (v, id) => observeAnswer(v, id, accepted(), 'an assessment'),
    bad: (v, id) => observeAnswer(v, id, refused(), 'an assessment'),
  },
  observeRetries: {
    id: 'ORD-RETRY-OBSERVED',
    good: (v, id) => observeRetries(v, id, accepted()),
    bad: (v, id) =>
      observeRetries(v, id, {
        ...accepted(),
        attempts: [{ status: 503, retryAfter: '1', waitedMs: 1000 }, { status: 200 }],
      } as Exchange),
  },
  observeValueClass: {
    id: 'OBS-VALUE-CLASSES',
    good: (v, id) => observeValueClass(v, id, 'assessment', valueClass, ex('idNfd')),
    bad: (v, id) => observeValueClass(v, id, 'assessment', valueClass, refused(), true),
  },
  observeClassOutcomes: {
    id: 'OBS-VALUE-CLASSES',
    good: (v, id) => observeClassOutcomes(v, id, 'tags', [{ valueClass: 'latin-nfd', outcome: 'as sent' }]),
    bad: (v, id) => observeClassOutcomes(v, id, 'tags', [{ valueClass: 'latin-nfd', outcome: 'normalised to NFC' }]),
  },
  observeSessionChannel: {
    id: 'EVT-SESSION-CHANNEL-MATCH',
    good: (v, id) => sessionChannel(v, id, 'SMS_OTP'),
    bad: (v, id) => sessionChannel(v, id, 'EMAIL_OTP'),
  },
};
