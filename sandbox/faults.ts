import { AsyncLocalStorage } from 'node:async_hooks';
import {
  eventKinds,
  isRequirementId,
  operation,
  placesOf,
  requirement,
  type EventKind,
  type OperationId,
  type Place,
} from '../catalog/catalog.ts';

/**
 * A deliberate mistake the sandbox can be started with. Each one breaks exactly one requirement of
 * catalog/requirements.json, on one place it names when it names several (an operation, an event), the way a real
 * implementation gets it wrong, so the self-tests can prove the suite notices.
 */
export interface Fault {
  id: string;
  requirement: string;
  /** The operation or event the fault breaks the requirement on, when the requirement names several. */
  place?: Place;
  /** The family it belongs to, when it is one of a family (`faults.on(family, place)` in the sandbox). */
  family?: string;
  description: string;
  /** The kind of traffic that shows it (faultClasses); a fault without one is of a single request's answer. */
  class?: FaultClass;
  /**
   * It breaks a precondition the suite's checks share (a document session's records, the run's token, the receiver's
   * first delivery): once that failed, every check standing on it is blocked at once for the whole target, so the proof
   * gives the fault a target of its own.
   */
  sharedPrecondition?: true;
}

/**
 * The kinds of traffic a fault shows under: one request and its answer; the state a refused request leaves behind;
 * calls that overlap; a request written as another client writes it, which HTTP says is the same request; values of
 * one class of a real population (docs/traffic.md). The kill matrix and npm run coverage list each fault's class.
 */
export const faultClasses = ['request', 'refusal-state', 'concurrency', 'request-variant', 'values'] as const;
export type FaultClass = (typeof faultClasses)[number];

/** The operations and events, as the faults' ids spell them (`client-id-optional-on-case-update`). */
const slugs = {
  assessment: 'assessment',
  documentVerification: 'document-verification',
  documentRecords: 'document-records',
  fetchAssessment: 'fetch-assessment',
  caseUpdate: 'case-update',
  stepUp: 'step-up',
  onboarding: 'onboarding',
  results: 'results',
  session: 'session',
} as const satisfies Record<Exclude<Place, 'createOrder'>, string>;
type Slugged = keyof typeof slugs;

/**
 * Families of faults: one per place the requirement names, each breaking it there alone, so that the kill matrix
 * proves the check of every place (`<family>-on-<place>`). Routes ask `faults.on(family, place)`.
 */
const families = {
  'json-as-text-plain': {
    requirement: 'GEN-JSON-RESPONSE',
    says: (noun: string) => `The success response of ${noun} is labelled text/plain although its body is JSON.`,
  },
  'bearer-optional': {
    requirement: 'BEARER-MISSING',
    says: (noun: string) =>
      `${noun} is served without any Authorization header (other bearer errors are still refused).`,
  },
  'bearer-any-scheme': {
    requirement: 'BEARER-SCHEME',
    says: (noun: string) => `${noun} accepts any scheme word in front of a valid token (Basic <token>, Token <token>).`,
  },
  'bearer-signature-unchecked': {
    requirement: 'BEARER-INVALID',
    says: (noun: string) =>
      `${noun} does not verify tokens (a tampered token whose payload parses, or an unknown opaque token of the right shape, is accepted).`,
  },
  'bearer-expiry-unchecked': {
    requirement: 'BEARER-EXPIRED',
    says: (noun: string) => `${noun} accepts expired tokens.`,
  },
  'bearer-no-challenge': {
    requirement: 'BEARER-CHALLENGE',
    says: (noun: string) => `${noun} answers a refused bearer request 401 without a WWW-Authenticate header.`,
  },
  'bearer-scheme-case-sensitive': {
    requirement: 'BEARER-CASE-INSENSITIVE',
    says: (noun: string) => `${noun} refuses a valid token unless the scheme is written exactly "Bearer".`,
  },
  'client-id-optional': {
    requirement: 'HDR-CLIENT-ID',
    says: (noun: string) => `${noun} is accepted without x-client-id.`,
  },
  'correlation-id-optional': {
    requirement: 'HDR-CORRELATION-ID',
    says: (noun: string) => `${noun} is accepted without x-correlation-id.`,
  },
  'assessment-tags-as-string': {
    requirement: 'ASM-RES-SCHEMA',
    says: (noun: string) => `The assessment answered by ${noun} carries tags as one comma-joined string.`,
  },
  'shared-context-refused': {
    requirement: 'RES-SHARED-CONTEXT',
    says: (noun: string) => `${noun} carrying sharedContext is refused with 400.`,
  },
  'webhook-text-plain': {
    requirement: 'EVT-DELIVERY',
    says: (noun: string) => `The ${noun} event is delivered labelled text/plain.`,
  },
} as const;
type Family = keyof typeof families;

const nounOf = (place: Slugged): string =>
  eventKinds.includes(place as EventKind) ? place : operation(place as OperationId).noun;
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function familyFaults(): Fault[] {
  return (Object.entries(families) as Array<[Family, (typeof families)[Family]]>).flatMap(
    ([family, { requirement: id, says }]) =>
      placesOf(requirement(id)).map((place) => ({
        id: `${family}-on-${slugs[place as Slugged]}`,
        requirement: id,
        place,
        family,
        description: capitalised(says(nounOf(place as Slugged))),
      })),
  );
}

/**
 * How long the concurrency faults hold a request between reading and writing: far longer than calls released at one
 * moment take to arrive, so that overlapping calls always meet the fault (the kill matrix is not flaky), and short
 * enough to cost a round little.
 */
export const RACE_WINDOW_MS = 150;

const faultList = [
  {
    id: 'token-response-not-json',
    requirement: 'TOK-ISSUED',
    description:
      'The token success body is form-encoded (access_token=...&token_type=Bearer) and labelled application/x-www-form-urlencoded.',
  },
  {
    id: 'token-answered-201',
    requirement: 'TOK-STATUS-200',
    description:
      'The token endpoint answers a valid request 201 Created (RFC 6749 §5.1 says 200); the token in it is still a token.',
  },
  {
    id: 'token-any-scope',
    requirement: 'TOK-SCOPE-ONLY',
    description: 'The token endpoint issues a token for any scope value it is sent.',
  },
  {
    id: 'token-any-grant',
    requirement: 'TOK-GRANT-TYPE',
    description: 'The token endpoint issues a token whatever grant_type it is sent, or none.',
  },
  {
    id: 'token-no-client-auth',
    requirement: 'TOK-CLIENT-AUTH',
    description: 'The token endpoint does not check client credentials at all and issues tokens to the main client.',
  },
  {
    id: 'token-no-cache-control',
    requirement: 'TOK-NO-STORE',
    description: 'The token response carries neither Cache-Control: no-store nor Pragma: no-cache.',
  },
  {
    id: 'token-never-answers',
    requirement: 'TOK-ISSUED',
    sharedPrecondition: true,
    description:
      'The token endpoint never answers: it reads a token request and holds the connection open without a response.',
  },

  {
    id: 'correlation-id-required-on-step-up',
    place: 'stepUp',
    requirement: 'HDR-STEPUP-NO-CORRELATION',
    description: 'The step-up refuses a request without x-correlation-id, which 4.7 does not list.',
  },

  {
    id: 'assessment-strategy-optional',
    requirement: 'ASM-REQ-REQUIRED',
    description: 'An assessment without strategy is accepted.',
  },
  {
    id: 'assessment-null-body-crashes',
    requirement: 'ASM-REQ-REQUIRED',
    description:
      'An assessment body that is JSON but no object is not refused as such: null fails with 500 (an array or a string is still refused, for its missing members).',
  },
  {
    id: 'assessment-number-kept-as-number',
    requirement: 'ASM-RES-SCHEMA',
    description:
      'An assessment takes a number where 2.1 states a string (an inquiryId 42) and answers it as the number it was sent, not as the string 2.2 states.',
  },
  {
    id: 'assessment-device-session-unique',
    requirement: 'ASM-DEVICE-SESSION-REUSE',
    description: 'An assessment whose deviceSessionId an earlier assessment used is refused with 409.',
  },
  {
    id: 'assessment-co-applicant-refused',
    requirement: 'ASM-ACCEPTED',
    description: 'An assessment carrying coApplicant is refused with 400.',
  },
  {
    id: 'assessment-inquiry-not-echoed',
    requirement: 'ASM-RES-IDS',
    description: 'The assessment response of 4.2 answers the inquiryId upper-cased (lower-cased if it already was).',
  },
  {
    id: 'fetch-returns-latest-case',
    requirement: 'ASM-FETCH-SAME-CASE',
    description:
      'Fetching by case identifier returns the most recently created case whatever known identifier is asked for.',
  },

  {
    id: 'docv-images-refused',
    requirement: 'DOCV-ACCEPTED',
    description: 'A document verification request carrying images is refused with 400.',
  },
  {
    id: 'docv-inquiry-not-echoed',
    requirement: 'DOCV-RES-INQUIRY',
    description:
      'The document verification response answers the inquiryId upper-cased (lower-cased if it already was).',
  },
  {
    id: 'docv-interview-id-number',
    requirement: 'DOCV-RES-SCHEMA',
    description: 'The document verification response carries interviewId as a JSON number.',
  },

  {
    id: 'records-all-refused',
    requirement: 'DOCR-DATA-VALUES',
    description: 'data=all, a value 4.4 lists, is refused with 400; each single part is still served.',
  },
  {
    id: 'records-ocr-as-string',
    requirement: 'DOCR-RES-SCHEMA',
    description: 'The document records carry ocrData as a JSON-encoded string instead of an object.',
  },
  {
    id: 'records-source-client-refused',
    requirement: 'DOCR-SOURCE-CLIENT-ID',
    description: 'Fetching document records with an x-source-client-id header is refused with 403.',
  },
  {
    id: 'records-never-ready',
    requirement: 'DOCR-DATA-VALUES',
    sharedPrecondition: true,
    description:
      'The records of a document verification never appear: every fetch of them is answered 404, as records not ready yet.',
  },

  {
    id: 'update-string-tags-kept',
    requirement: 'ASM-RES-SCHEMA',
    description:
      "A case update whose tags is one string, not an array, is accepted and that string becomes the case's tags, fetched as a string instead of the array 2.2 states.",
  },
  {
    id: 'update-inquiry-optional',
    requirement: 'CU-REQ-REQUIRED',
    description: 'A case update without inquiryId is accepted.',
  },
  {
    id: 'update-unknown-case-accepted',
    requirement: 'CU-CASE-KNOWN',
    description: 'A case update for an unknown authenticationId is answered 200 without doing anything.',
  },
  {
    id: 'update-inquiry-unchecked',
    requirement: 'CU-INQUIRY-MAPS',
    description: 'A case update whose inquiryId belongs to another case is accepted.',
  },
  {
    id: 'update-case-id-truncated',
    requirement: 'CU-CASE-KNOWN',
    description:
      'A case update looks its authenticationId up as a column of fixed width keeps it: an id with characters appended resolves to the case it starts with.',
  },
  {
    id: 'update-inquiry-prefix-maps',
    requirement: 'CU-INQUIRY-MAPS',
    description: "A case update whose inquiryId is the case's cut short maps to the case (a LIKE 'id%' comparison).",
  },
  {
    id: 'step-up-case-id-prefix',
    requirement: 'SU-CASE-KNOWN',
    description:
      "A step-up looks its authenticationId up with LIKE 'id%': an id cut short resolves to the case it begins.",
  },
  {
    id: 'step-up-inquiry-truncated',
    requirement: 'SU-INQUIRY-MAPS',
    description:
      "A step-up compares its inquiryId truncated to the length of the case's: the case's inquiryId with characters appended maps.",
  },
  {
    id: 'fetch-case-id-prefix',
    requirement: 'ASM-FETCH-UNKNOWN',
    description:
      "The fetch by case identifier looks the id up with LIKE 'id%': an id cut short shows the case it begins.",
  },
  {
    id: 'records-case-id-truncated',
    requirement: 'DOCR-UNKNOWN',
    description:
      'The records of 4.4 are looked up by the path id truncated as a column of fixed width keeps it: an id with characters appended shows the records of the case it starts with.',
  },
  {
    id: 'assessment-offset-date-time-refused',
    requirement: 'ASM-ACCEPTED',
    description:
      'An assessment whose creationDateTime carries a numeric offset (+00:00, -07:00), not Z, is refused with 400, though RFC 3339 allows it.',
  },
  {
    id: 'update-documents-refused',
    requirement: 'CU-FIELDS-ACCEPTED',
    description: 'A case update carrying documents is refused with 400.',
  },
  {
    id: 'update-valid-refused',
    requirement: 'CU-FIELDS-ACCEPTED',
    description: 'Every case update is refused with 400, valid or not, so no case-update rule can be observed.',
  },
  {
    id: 'update-decision-any',
    requirement: 'CU-DECISION-ENUM',
    description: 'Any decision string is accepted and stored.',
  },
  {
    id: 'update-unknown-decision-drops-update',
    requirement: 'CU-DECISION-ENUM',
    description:
      'A case update whose decision is outside the list is answered 200 but nothing of it is applied: its tags are dropped with the decision.',
  },
  {
    id: 'update-decision-ignored',
    requirement: 'CU-DECISION-APPLIED',
    description: 'A valid decision is accepted but never stored.',
  },
  {
    id: 'update-decision-reset',
    requirement: 'CU-DECISION-KEPT',
    description: 'A case update without decision resets the case to its initial decision.',
  },
  {
    id: 'update-body-array-unwrapped',
    requirement: 'CU-REQ-REQUIRED',
    description: 'A case update whose body is an array is taken as its first item: [valid update] is accepted.',
  },
  {
    id: 'update-tags-replaced',
    requirement: 'CU-TAGS-APPEND',
    description: 'The tags of a case update replace the case tags instead of being appended.',
  },
  {
    id: 'update-agent-validated',
    requirement: 'CU-AGENT-ANY',
    description: 'An externalAgent that is not a known portal user is refused with 400.',
  },
  {
    id: 'update-unknown-queue-fails',
    requirement: 'CU-QUEUE-UNKNOWN',
    description: 'A case update naming an unknown queue is refused with 400.',
  },
  {
    id: 'update-unknown-rejection-fails',
    requirement: 'CU-REJECTION-UNKNOWN',
    description: 'A case update naming an unknown rejection code is refused with 400.',
  },
  {
    id: 'update-error-as-string',
    requirement: 'CU-RES-SCHEMA',
    description: 'The case update response carries "error": "" instead of an object or nothing.',
  },
  {
    id: 'update-response-without-ids',
    requirement: 'CU-RES-IDS',
    description: 'The case update response leaves out inquiryId and authenticationId.',
  },

  { id: 'step-up-email-refused', requirement: 'SU-CHANNELS', description: 'A step-up by email is refused with 400.' },
  {
    id: 'step-up-authentication-id-optional',
    requirement: 'SU-REQ-REQUIRED',
    description: 'A step-up without authenticationId is accepted; the case is looked up by inquiryId.',
  },
  {
    id: 'step-up-unknown-case-accepted',
    requirement: 'SU-CASE-KNOWN',
    description: 'A step-up for an unknown authenticationId is accepted.',
  },
  {
    id: 'step-up-inquiry-unchecked',
    requirement: 'SU-INQUIRY-MAPS',
    description: 'A step-up whose inquiryId belongs to another case is accepted.',
  },
  {
    id: 'step-up-strategy-as-string',
    requirement: 'SU-RES-SCHEMA',
    description: 'The step-up response carries strategy as a string.',
  },
  {
    id: 'step-up-ids-swapped',
    requirement: 'SU-RES-IDS',
    description: 'The step-up response swaps inquiryId and authenticationId.',
  },

  {
    id: 'webhooks-never-sent',
    requirement: 'EVT-FLOW-DELIVERY',
    sharedPrecondition: true,
    description: 'The sandbox never delivers a webhook, whatever flow runs.',
  },
  {
    id: 'webhook-onboarding-status-number',
    requirement: 'EVT-ONBOARDING-SCHEMA',
    description: 'The document onboarding event carries status as a number.',
  },
  {
    id: 'webhook-results-ocr-string',
    requirement: 'EVT-RESULTS-SCHEMA',
    description: 'The document results event carries ocr as a JSON-encoded string.',
  },
  {
    id: 'webhook-results-wrong-inquiry',
    requirement: 'EVT-RESULTS-INQUIRY',
    description: 'The document results event carries an inquiryId other than the one of the verification.',
  },
  {
    id: 'webhook-session-missing-session-id',
    requirement: 'EVT-SESSION-SCHEMA',
    description: 'The verification session event has no sessionId.',
  },
  {
    id: 'webhook-int64-as-number',
    requirement: 'EVT-SESSION-INT64',
    description: 'The attempt counters of the verification session event are JSON numbers.',
  },
  {
    id: 'webhook-status-outside-enum',
    requirement: 'EVT-SESSION-STATUS-ENUM',
    description: 'verificationStatus is SUCCESS, which 3.1 does not list.',
  },
  {
    id: 'webhook-resend-outside-enum',
    requirement: 'EVT-SESSION-RESEND-ENUM',
    description: 'resendStatus is DELIVERED, which 3.2 does not list.',
  },
  {
    id: 'webhook-mfa-outside-enum',
    requirement: 'EVT-SESSION-MFA-ENUM',
    description: 'mfaType is SMS, which 6.3 does not list.',
  },
  {
    id: 'webhook-channel-outside-enum',
    requirement: 'EVT-SESSION-CHANNEL-ENUM',
    description: 'channelType is PHONE, which 6.3 does not list.',
  },

  {
    id: 'order-code-as-string',
    requirement: 'ORD-ERR-ENVELOPE',
    description: 'The code of every order error envelope is a string ("400").',
  },
  { id: 'order-code-differs', requirement: 'ORD-ERR-CODE-STATUS', description: 'The 409 envelope carries code 400.' },
  {
    id: 'order-401-unauthenticated',
    requirement: 'ORD-ERR-PAIR',
    description: 'The 401 envelope carries errorType unauthenticated.',
  },
  {
    id: 'order-validation-without-prefix',
    requirement: 'ORD-ERR-MESSAGE',
    description: 'A validation message is only the reason, without "failed to validate input: ".',
  },
  {
    id: 'order-fulfillment-unchecked',
    requirement: 'ORD-400-VALIDATION',
    description: 'Fulfillment types are not checked against the allowed list.',
  },
  {
    id: 'order-in-person-refused',
    requirement: 'ORD-FULFILLMENT-ALLOWED',
    description: 'The fulfillment type IN_PERSON is refused as a validation error.',
  },
  {
    id: 'order-correlation-optional',
    requirement: 'ORD-400-CORRELATION',
    description: 'An order request without x-correlation-id is accepted.',
  },
  {
    id: 'order-client-id-optional',
    requirement: 'ORD-400-CLIENT-ID',
    description: 'An order request without x-client-id is accepted.',
  },
  {
    id: 'order-malformed-500',
    requirement: 'ORD-400-MALFORMED',
    description: 'An order body that is not well-formed JSON is answered 500 internal.',
  },
  { id: 'order-expired-accepted', requirement: 'ORD-401', description: 'The order endpoint accepts expired tokens.' },
  {
    id: 'order-entitlements-unchecked',
    requirement: 'ORD-403',
    description: 'The order endpoint does not check entitlements.',
  },
  {
    id: 'order-404-not-found-type',
    requirement: 'ORD-404',
    description: 'The 404 envelope carries errorType not_found.',
  },
  {
    id: 'order-duplicate-400',
    requirement: 'ORD-409',
    description: 'A duplicate merchantOrderId is answered 400 validation "failed to validate input: duplicate order".',
  },
  {
    id: 'order-500-server-error-type',
    requirement: 'ORD-500',
    description: 'The 500 envelope carries errorType server_error.',
  },
  {
    id: 'order-503-service-unavailable-type',
    requirement: 'ORD-503',
    description: 'The 503 envelope carries errorType service_unavailable.',
  },

  {
    id: 'token-secret-unchecked',
    requirement: 'TOK-CLIENT-AUTH',
    description:
      'The token endpoint authenticates a client by its id alone: the right client id with any secret gets a token.',
  },
  {
    id: 'bearer-bare-token-accepted',
    requirement: 'BEARER-SCHEME',
    description:
      'An Authorization header holding a valid token without any scheme is accepted by the operations 4.2 to 4.7.',
  },

  {
    id: 'update-null-inquiry-accepted',
    requirement: 'CU-REQ-REQUIRED',
    description: "A case update whose inquiryId is null is taken as the case's own inquiry and accepted.",
  },
  {
    id: 'step-up-null-authentication-id-accepted',
    requirement: 'SU-REQ-REQUIRED',
    description: 'A step-up whose authenticationId is null finds the case by its inquiryId and is accepted.',
  },
  {
    id: 'assessment-co-applicant-needs-applicant',
    requirement: 'GEN-OPTIONAL-MEMBERS',
    place: 'assessment',
    description:
      'An assessment carrying coApplicant without applicant is refused: an optional member made required by another.',
  },
  {
    id: 'docv-images-need-applicant',
    requirement: 'GEN-OPTIONAL-MEMBERS',
    place: 'documentVerification',
    description: 'A document verification carrying images without applicant is refused.',
  },
  {
    id: 'update-rejection-needs-decision',
    requirement: 'GEN-OPTIONAL-MEMBERS',
    place: 'caseUpdate',
    description: 'A case update carrying rejectionCode without decision is refused.',
  },
  {
    id: 'step-up-images-need-phone',
    requirement: 'GEN-OPTIONAL-MEMBERS',
    place: 'stepUp',
    description: 'A step-up carrying images without phoneNumber is refused.',
  },

  {
    id: 'update-notes-resets-decision',
    requirement: 'CU-DECISION-KEPT',
    description:
      'A case update carrying notes but no decision resets the case to its initial decision (an update of tags alone keeps it).',
  },
  {
    id: 'update-tags-dropped-with-decision',
    requirement: 'CU-TAGS-APPEND',
    description: 'The tags of a case update that also carries a decision are dropped (tags alone are appended).',
  },
  {
    id: 'update-decision-clears-tags',
    requirement: 'CU-TAGS-APPEND',
    description: 'A case update that changes the decision clears the tags added before it.',
  },
  {
    id: 'fetch-tags-never-caught-up',
    requirement: 'CU-TAGS-APPEND',
    description:
      'The fetch by case id reads a replica that never catches up on tags: the case shows the tags it was created with, never those of a later update (its decision does follow).',
  },

  // Values of one class losing information on one member in one way (class values, docs/traffic.md).
  {
    id: 'assessment-inquiry-escapes-dropped',
    requirement: 'ASM-RES-IDS',
    class: 'values',
    description:
      'The assessment keeps and answers the inquiryId without its double quotes, backslashes and control characters, as an answer written by hand that cannot escape them.',
  },
  {
    id: 'assessment-inquiry-nfc',
    requirement: 'ASM-RES-IDS',
    class: 'values',
    description:
      'The assessment keeps the inquiryId normalised to NFC and answers it so: an identifier sent decomposed (NFD) comes back composed, another string.',
  },
  {
    id: 'fetch-inquiry-lower-cased',
    requirement: 'ASM-FETCH-SAME-CASE',
    class: 'values',
    description:
      "The case fetched by its identifier shows its inquiryId lower-cased (the assessment's answer echoes it as sent).",
  },
  {
    id: 'docv-inquiry-cut-at-255',
    requirement: 'DOCV-RES-INQUIRY',
    class: 'values',
    description:
      'The document verification answers an inquiryId of more than 255 characters cut to its first 255, as a VARCHAR(255) column keeps it.',
  },
  {
    id: 'assessment-astral-inquiry-500',
    requirement: 'ASM-ACCEPTED',
    class: 'values',
    description:
      'An assessment whose inquiryId holds a character outside the BMP (an emoji) is answered 500, as a three-byte UTF-8 column fails on it.',
  },
  {
    id: 'update-tags-cut-at-255',
    requirement: 'CU-TAGS-APPEND',
    class: 'values',
    description: 'A tag of more than 255 characters is kept cut to its first 255.',
  },
  {
    id: 'update-tags-astral-replaced',
    requirement: 'CU-TAGS-APPEND',
    class: 'values',
    description: 'Each character of a tag outside the BMP is kept as U+FFFD, as a UCS-2 store keeps it.',
  },
  {
    id: 'update-tags-unescaped-twice',
    requirement: 'CU-TAGS-APPEND',
    class: 'values',
    description:
      'A tag is JSON-decoded a second time: the text \\n, \\u0041 or \\\\ in it becomes a line feed, an A, one backslash.',
  },
  {
    id: 'update-tags-lower-cased',
    requirement: 'CU-TAGS-APPEND',
    class: 'values',
    description: 'Tags are kept lower-cased, as a case-insensitive tag store keeps them.',
  },
  {
    id: 'update-tags-spaces-collapsed',
    requirement: 'CU-TAGS-APPEND',
    class: 'values',
    description: 'Runs of spaces in a tag are kept as one space.',
  },
  {
    id: 'case-tags-capped-at-100',
    requirement: 'CU-TAGS-APPEND',
    class: 'values',
    description: 'A case keeps its first 100 tags: the tags of later updates are accepted and dropped.',
  },
  {
    id: 'update-long-tag-refused-after-append',
    requirement: 'CU-TAGS-APPEND',
    class: 'refusal-state',
    description:
      'A case update carrying a tag of more than 1,024 characters is refused with 400, after its tags were appended to the case.',
  },

  {
    id: 'records-of-latest-session',
    requirement: 'DOCR-RES-ID',
    description:
      'The records of any known case are answered with the records and identifier of the most recent document session.',
  },
  {
    id: 'update-answers-latest-case',
    requirement: 'CU-RES-IDS',
    description:
      'The case update applies to the case named, but answers with the identifiers of the most recently created case.',
  },
  {
    id: 'step-up-answers-latest-case',
    requirement: 'SU-RES-IDS',
    description:
      'The step-up answers with the identifiers of the most recently created case instead of the case named.',
  },
  {
    id: 'decision-dotless-i',
    requirement: 'CU-DECISION-APPLIED',
    description:
      'The decision REVIEW is fetched back as "revıew" (a dotless ı): another string, which only a locale-aware case folding takes for REVIEW.',
  },
  {
    id: 'decision-mixed-case',
    requirement: 'CU-DECISION-APPLIED',
    description: 'A decision is fetched back in alternating case ("dEnY"), none of the spellings a response may use.',
  },

  {
    id: 'webhook-onboarding-without-session-id',
    requirement: 'EVT-ONBOARDING-SCHEMA',
    description: 'The document onboarding event carries status but no sessionId.',
  },
  {
    id: 'webhook-form-encoded-onboarding',
    requirement: 'EVT-DELIVERY',
    place: 'onboarding',
    description: 'The document onboarding event is delivered form-encoded (sessionId=...&status=...) and labelled so.',
  },
  {
    id: 'webhook-session-redelivered-not-sent',
    requirement: 'EVT-FLOW-DELIVERY',
    place: 'session',
    description:
      'A step-up by email sends no verification session event of its own; the last event sent is delivered again instead.',
  },
  {
    id: 'webhook-results-never-sent',
    requirement: 'EVT-FLOW-DELIVERY',
    place: 'results',
    description: 'No document results event is ever sent (onboarding events still are).',
  },
  {
    id: 'webhook-session-stale-replayed',
    requirement: 'EVT-FLOW-DELIVERY',
    place: 'session',
    description:
      "Each assessment is followed at once by a delivery of the same stale verification session event, and a step-up by phone number sends that stale event again instead of one of its own: an event whose session reached the receiver before the step-up is taken for the step-up's.",
  },
  {
    id: 'webhook-session-first-replayed',
    requirement: 'EVT-FLOW-DELIVERY',
    place: 'session',
    description:
      "Every step-up by phone number after the first delivers the first one's verification session event again instead of one of its own, as a session cache that is never renewed would: only the channel's first step-up of the run has an event of its own.",
  },
  {
    id: 'webhook-session-never-sent',
    requirement: 'EVT-FLOW-DELIVERY',
    place: 'session',
    description: 'No verification session event is ever sent (document events still are).',
  },

  {
    id: 'update-foreign-inquiry-tags-kept',
    requirement: 'CU-INQUIRY-MAPS',
    class: 'refusal-state',
    description:
      "A case update refused because its inquiryId is not the case's has already appended its tags to the case.",
  },
  {
    id: 'update-required-missing-applied',
    requirement: 'CU-REQ-REQUIRED',
    class: 'refusal-state',
    description:
      'A case update refused for a missing required member (inquiryId) has already stored its decision and appended its tags.',
  },
  {
    id: 'order-refused-id-reserved',
    requirement: 'ORD-REFUSED-ID-FREE',
    class: 'refusal-state',
    description:
      'An order refused as a validation error keeps its identifier: a valid order with that identifier afterwards is answered 409.',
  },
  {
    id: 'update-tags-lost-concurrent',
    requirement: 'CU-TAGS-APPEND',
    class: 'concurrency',
    description:
      "A case update reads the case's tags, takes a slow step (RACE_WINDOW_MS), then writes what it read plus its own tags: of updates of one case that overlap, only the last one's tags are kept (one after the other, every tag is).",
  },
  {
    id: 'order-duplicate-race',
    requirement: 'ORD-409',
    class: 'concurrency',
    description:
      "An order's identifier is checked, then a slow downstream call (RACE_WINDOW_MS) runs before it is stored: orders with one identifier that overlap are all created (one after the other, the second is 409).",
  },
  // Request variants (docs/traffic.md): each mishandles one spelling of a request that HTTP says is the same request.
  {
    id: 'header-names-case-sensitive',
    requirement: 'HDR-NAME-CASE',
    class: 'request-variant',
    description:
      'The mandatory headers (x-client-id, x-correlation-id) of 4.2 to 4.8 are read by their exact lower-case names from the raw header list: sent as X-Client-Id they are missing, and the request is refused 400.',
  },
  {
    id: 'json-charset-refused',
    requirement: 'HDR-JSON-CHARSET',
    class: 'request-variant',
    description:
      'The operations with a body compare the whole Content-Type with "application/json": application/json; charset=utf-8 is refused 415.',
  },
  {
    id: 'token-basic-scheme-case-sensitive',
    requirement: 'TOK-BASIC-CASE',
    class: 'request-variant',
    description:
      'The token endpoints compare the auth-scheme exactly with "Basic": the API key under "basic" or "BASIC" is refused 401 invalid_client.',
  },
  {
    id: 'unparsable-body-500',
    requirement: 'GEN-MALFORMED-BODY',
    class: 'request-variant',
    description:
      "A body of 4.2, 4.3, 4.6 or 4.7 that does not parse as JSON (cut off, form-encoded) is answered 500: the parser's exception escapes to the default handler.",
  },
] as const satisfies readonly Fault[];

export type FaultId = (typeof faultList)[number]['id'];
type FamilyFaultId = `${Family}-on-${(typeof slugs)[Slugged]}`;

export const faults: ReadonlyArray<Fault & { class: FaultClass }> = [...faultList, ...familyFaults()].map(
  (f: Fault) => ({ ...f, class: f.class ?? 'request' }),
);

const seen = new Set<string>();
for (const fault of faults) {
  if (seen.has(fault.id)) throw new Error(`sandbox/faults.ts lists fault "${fault.id}" twice`);
  seen.add(fault.id);
  if (!isRequirementId(fault.requirement)) {
    throw new Error(
      `Fault "${fault.id}" names requirement "${fault.requirement}", which is not in catalog/requirements.json`,
    );
  }
}

export function fault(id: string): Fault {
  const found = faults.find((f) => f.id === id);
  if (!found)
    throw new Error(
      `Unknown sandbox fault "${id}": expected an id from sandbox/faults.ts (${faults.length} faults) or a family name (${Object.keys(families).join(', ')})`,
    );
  return found;
}

/**
 * The fault ids of a SANDBOX_FAULTS value (comma-separated ids or family names), or the one line that says what is
 * wrong with it.
 */
export function faultIdsOf(text: string): { ids: string[] } | { problem: string } {
  const ids = expandFaults(
    text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  const unknown = ids.find((id) => !faults.some((f) => f.id === id));
  if (unknown === undefined) return { ids };
  return {
    problem: `SANDBOX_FAULTS names "${unknown}", which is not a fault: expected a comma-separated list of fault ids or family names from sandbox/faults.ts (${faults.length} faults; families: ${Object.keys(families).join(', ')})`,
  };
}

/** Fault ids with each family name replaced by every fault of that family (`json-as-text-plain` is all its places). */
export function expandFaults(ids: readonly string[]): string[] {
  return ids.flatMap((id) => (id in families ? faults.filter((f) => f.family === id).map((f) => f.id) : [id]));
}

/** The faults of the request being handled, when they are its own (SandboxOptions.faultsOf); timers it starts keep them. */
const requestFaults = new AsyncLocalStorage<ReadonlySet<string>>();

/**
 * The faults a sandbox runs with: its own, or those of the request being handled when the request has its own (the
 * proof run gives each test its fault on one shared sandbox). `has` and `on` take only ids that exist, so a misspelt
 * check does not compile.
 */
export class FaultSet {
  readonly ids: readonly string[];
  private readonly active: ReadonlySet<string>;

  constructor(given: readonly string[]) {
    const ids = expandFaults(given);
    for (const id of ids) fault(id);
    this.ids = [...new Set(ids)];
    this.active = new Set(this.ids);
  }

  /** Runs the handling of a request with these faults instead of the sandbox's own (undefined: the sandbox's own). */
  within<T>(ids: readonly string[] | undefined, handle: () => T): T {
    if (ids === undefined) return handle();
    const expanded = expandFaults(ids);
    for (const id of expanded) fault(id);
    return requestFaults.run(new Set(expanded), handle);
  }

  private get current(): ReadonlySet<string> {
    return requestFaults.getStore() ?? this.active;
  }

  has(id: FaultId | FamilyFaultId): boolean {
    return this.current.has(id);
  }

  /** Whether the fault of this family is on for this place (an operation, or a part-6 event). */
  on(family: Family, place: Place): boolean {
    return place !== 'createOrder' && this.current.has(`${family}-on-${slugs[place]}`);
  }
}
