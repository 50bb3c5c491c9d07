import { isRequirementId } from '../catalog/catalog.ts';

/**
 * A deliberate mistake the sandbox can be started with. Each one breaks exactly one requirement of
 * catalog/requirements.json, the way a real implementation gets it wrong, so the self-tests can prove the
 * suite notices. `suiteEnv` holds variables the suite needs to reach the faulty sandbox at all. Its values
 * hold placeholders the caller substitutes (sandboxTargetEnv and resolveSuiteEnv in target-env.ts do):
 * `{origin}` is the sandbox origin (http://host:port); `{identityTokenPrefix}` and `{stepupTokenPrefix}`
 * are the flavor's token prefixes from layout.ts, since the two flavors serve tokens under different paths.
 */
export interface Fault {
  id: string;
  requirement: string;
  description: string;
  suiteEnv?: Record<string, string>;
}

const faultList = [
  { id: 'json-as-text-plain', requirement: 'GEN-JSON-RESPONSE', description: 'The assessment success response is labelled text/plain although its body is JSON.' },

  { id: 'token-response-not-json', requirement: 'TOK-ISSUED', description: 'The token success body is form-encoded (access_token=...&token_type=Bearer) and labelled application/x-www-form-urlencoded.' },
  { id: 'token-answered-201', requirement: 'TOK-ISSUED', description: 'The token endpoint answers a valid request 201 Created (RFC 6749 §5.1 says 200), so no check that needs a token can run.' },
  { id: 'token-any-scope', requirement: 'TOK-SCOPE-ONLY', description: 'The token endpoint issues a token for any scope value it is sent.' },
  { id: 'token-any-grant', requirement: 'TOK-GRANT-TYPE', description: 'The token endpoint issues a token whatever grant_type it is sent, or none.' },
  { id: 'token-no-client-auth', requirement: 'TOK-CLIENT-AUTH', description: 'The token endpoint does not check client credentials at all and issues tokens to the main client.' },
  { id: 'token-no-cache-control', requirement: 'TOK-NO-STORE', description: 'The token response carries neither Cache-Control: no-store nor Pragma: no-cache.' },

  { id: 'bearer-optional-on-records', requirement: 'BEARER-MISSING', description: 'Document records are served to a request without any Authorization header (other bearer errors are still refused).' },
  { id: 'bearer-any-scheme', requirement: 'BEARER-SCHEME', description: 'Any scheme word in front of a valid token is accepted (Basic <token>, Token <token>).' },
  { id: 'bearer-signature-unchecked', requirement: 'BEARER-INVALID', description: 'Token signatures are not verified (reference: a tampered token whose payload parses is accepted; alternative: unknown opaque tokens of the right shape are accepted).' },
  { id: 'bearer-expiry-unchecked', requirement: 'BEARER-EXPIRED', description: 'Expired tokens are accepted by the operations 4.2 to 4.7.' },
  { id: 'bearer-no-challenge', requirement: 'BEARER-CHALLENGE', description: 'Refused bearer requests are answered 401 without a WWW-Authenticate header.' },

  { id: 'client-id-optional-on-case-update', requirement: 'HDR-CLIENT-ID', description: 'The case update accepts a request without x-client-id.' },
  { id: 'correlation-id-optional-on-assessment', requirement: 'HDR-CORRELATION-ID', description: 'The assessment accepts a request without x-correlation-id.' },
  { id: 'content-type-unchecked-on-step-up', requirement: 'HDR-CONTENT-TYPE', description: 'The step-up parses the body as JSON whatever Content-Type it carries, or none.' },
  { id: 'client-id-optional-on-assessment', requirement: 'HDR-CLIENT-ID', description: 'The assessment accepts a request without x-client-id.' },
  { id: 'client-id-optional-on-document-verification', requirement: 'HDR-CLIENT-ID', description: 'The document verification accepts a request without x-client-id.' },
  { id: 'client-id-optional-on-document-records', requirement: 'HDR-CLIENT-ID', description: 'The fetch of document records accepts a request without x-client-id.' },
  { id: 'client-id-optional-on-step-up', requirement: 'HDR-CLIENT-ID', description: 'The step-up accepts a request without x-client-id.' },
  { id: 'correlation-id-optional-on-document-verification', requirement: 'HDR-CORRELATION-ID', description: 'The document verification accepts a request without x-correlation-id.' },
  { id: 'correlation-id-optional-on-document-records', requirement: 'HDR-CORRELATION-ID', description: 'The fetch of document records accepts a request without x-correlation-id.' },
  { id: 'correlation-id-optional-on-case-update', requirement: 'HDR-CORRELATION-ID', description: 'The case update accepts a request without x-correlation-id.' },
  { id: 'content-type-unchecked-on-assessment', requirement: 'HDR-CONTENT-TYPE', description: 'The assessment parses the body as JSON whatever Content-Type it carries, or none.' },
  { id: 'content-type-unchecked-on-document-verification', requirement: 'HDR-CONTENT-TYPE', description: 'The document verification parses the body as JSON whatever Content-Type it carries, or none.' },
  { id: 'content-type-unchecked-on-case-update', requirement: 'HDR-CONTENT-TYPE', description: 'The case update parses the body as JSON whatever Content-Type it carries, or none.' },
  { id: 'correlation-id-required-on-step-up', requirement: 'HDR-STEPUP-NO-CORRELATION', description: 'The step-up refuses a request without x-correlation-id, which 4.7 does not list.' },

  { id: 'assessment-strategy-optional', requirement: 'ASM-REQ-REQUIRED', description: 'An assessment without strategy is accepted.' },
  { id: 'assessment-types-unchecked', requirement: 'ASM-REQ-TYPES', description: 'Assessment field types are not checked (a numeric inquiryId or strategy, a string applicant are accepted).' },
  { id: 'assessment-device-session-unique', requirement: 'ASM-DEVICE-SESSION-REUSE', description: 'An assessment whose deviceSessionId an earlier assessment used is refused with 409.' },
  { id: 'assessment-co-applicant-refused', requirement: 'ASM-ACCEPTED', description: 'An assessment carrying coApplicant is refused with 400.' },
  { id: 'assessment-tags-as-string', requirement: 'ASM-RES-SCHEMA', description: 'The assessment response (4.2 and 4.5) carries tags as one comma-joined string.' },
  { id: 'assessment-inquiry-not-echoed', requirement: 'ASM-RES-IDS', description: 'The assessment response of 4.2 answers the inquiryId upper-cased (lower-cased if it already was).' },
  { id: 'fetch-returns-latest-case', requirement: 'ASM-FETCH-SAME-CASE', description: 'Fetching by case identifier returns the most recently created case whatever known identifier is asked for.' },

  { id: 'docv-images-refused', requirement: 'DOCV-ACCEPTED', description: 'A document verification request carrying images is refused with 400.' },
  { id: 'docv-types-unchecked', requirement: 'DOCV-REQ-TYPES', description: 'Document verification field types are not checked.' },
  { id: 'docv-interview-id-number', requirement: 'DOCV-RES-SCHEMA', description: 'The document verification response carries interviewId as a JSON number.' },

  { id: 'records-formdata-refused', requirement: 'DOCR-DATA-VALUES', description: 'data=formdata, as 4.4 spells it, is refused with 400; only the camel-case formData is accepted.' },
  { id: 'records-ocr-as-string', requirement: 'DOCR-RES-SCHEMA', description: 'The document records carry ocrData as a JSON-encoded string instead of an object.' },
  { id: 'records-source-client-refused', requirement: 'DOCR-SOURCE-CLIENT-ID', description: 'Fetching document records with an x-source-client-id header is refused with 403.' },

  { id: 'update-inquiry-optional', requirement: 'CU-REQ-REQUIRED', description: 'A case update without inquiryId is accepted.' },
  { id: 'update-types-unchecked', requirement: 'CU-REQ-TYPES', description: 'Case update field types are not checked, but for verifiedFraud (a numeric notes, a string tags, an object documents are accepted).' },
  { id: 'update-unknown-case-accepted', requirement: 'CU-CASE-KNOWN', description: 'A case update for an unknown authenticationId is answered 200 without doing anything.' },
  { id: 'update-inquiry-unchecked', requirement: 'CU-INQUIRY-MAPS', description: 'A case update whose inquiryId belongs to another case is accepted.' },
  { id: 'update-documents-refused', requirement: 'CU-FIELDS-ACCEPTED', description: 'A case update carrying documents is refused with 400.' },
  { id: 'update-valid-refused', requirement: 'CU-FIELDS-ACCEPTED', description: 'Every case update is refused with 400, valid or not, so no case-update rule can be observed.' },
  { id: 'update-decision-any', requirement: 'CU-DECISION-ENUM', description: 'Any decision string is accepted and stored.' },
  { id: 'update-decision-ignored', requirement: 'CU-DECISION-APPLIED', description: 'A valid decision is accepted but never stored.' },
  { id: 'update-decision-reset', requirement: 'CU-DECISION-KEPT', description: 'A case update without decision resets the case to its initial decision.' },
  { id: 'update-tags-replaced', requirement: 'CU-TAGS-APPEND', description: 'The tags of a case update replace the case tags instead of being appended.' },
  { id: 'update-agent-validated', requirement: 'CU-AGENT-ANY', description: 'An externalAgent that is not a known portal user is refused with 400.' },
  { id: 'update-unknown-queue-fails', requirement: 'CU-QUEUE-UNKNOWN', description: 'A case update naming an unknown queue is refused with 400.' },
  { id: 'update-unknown-rejection-fails', requirement: 'CU-REJECTION-UNKNOWN', description: 'A case update naming an unknown rejection code is refused with 400.' },
  { id: 'update-error-as-string', requirement: 'CU-RES-SCHEMA', description: 'The case update response carries "error": "" instead of an object or nothing.' },
  { id: 'update-response-without-ids', requirement: 'CU-RES-IDS', description: 'The case update response leaves out inquiryId and authenticationId.' },
  { id: 'update-correlation-not-echoed', requirement: 'CU-CORRELATION-ECHO', description: 'The correlationId of the case update response is a fresh identifier, not the x-correlation-id sent.' },

  { id: 'step-up-email-refused', requirement: 'SU-CHANNELS', description: 'A step-up by email is refused with 400.' },
  { id: 'step-up-authentication-id-optional', requirement: 'SU-REQ-REQUIRED', description: 'A step-up without authenticationId is accepted; the case is looked up by inquiryId.' },
  { id: 'step-up-types-unchecked', requirement: 'SU-REQ-TYPES', description: 'Step-up field types are not checked (a string strategy, a numeric phoneNumber are accepted).' },
  { id: 'step-up-unknown-case-accepted', requirement: 'SU-CASE-KNOWN', description: 'A step-up for an unknown authenticationId is accepted.' },
  { id: 'step-up-inquiry-unchecked', requirement: 'SU-INQUIRY-MAPS', description: 'A step-up whose inquiryId belongs to another case is accepted.' },
  { id: 'step-up-strategy-as-string', requirement: 'SU-RES-SCHEMA', description: 'The step-up response carries strategy as a string.' },
  { id: 'step-up-ids-swapped', requirement: 'SU-RES-IDS', description: 'The step-up response swaps inquiryId and authenticationId.' },

  { id: 'shared-context-refused-on-step-up', requirement: 'RES-SHARED-CONTEXT', description: 'A step-up carrying sharedContext is refused with 400.' },

  { id: 'webhooks-never-sent', requirement: 'EVT-FLOW-DELIVERY', description: 'The sandbox never delivers a webhook, whatever flow runs.' },
  { id: 'webhook-text-plain', requirement: 'EVT-DELIVERY', description: 'Webhook deliveries are labelled text/plain.' },
  { id: 'webhook-onboarding-status-number', requirement: 'EVT-ONBOARDING-SCHEMA', description: 'The document onboarding event carries status as a number.' },
  { id: 'webhook-results-ocr-string', requirement: 'EVT-RESULTS-SCHEMA', description: 'The document results event carries ocr as a JSON-encoded string.' },
  { id: 'webhook-results-wrong-inquiry', requirement: 'EVT-RESULTS-INQUIRY', description: 'The document results event carries an inquiryId other than the one of the verification.' },
  { id: 'webhook-session-missing-session-id', requirement: 'EVT-SESSION-SCHEMA', description: 'The verification session event has no sessionId.' },
  { id: 'webhook-int64-as-number', requirement: 'EVT-SESSION-INT64', description: 'The attempt counters of the verification session event are JSON numbers.' },
  { id: 'webhook-status-outside-enum', requirement: 'EVT-SESSION-STATUS-ENUM', description: 'verificationStatus is SUCCESS, which 3.1 does not list.' },
  { id: 'webhook-resend-outside-enum', requirement: 'EVT-SESSION-RESEND-ENUM', description: 'resendStatus is DELIVERED, which 3.2 does not list.' },
  { id: 'webhook-mfa-outside-enum', requirement: 'EVT-SESSION-MFA-ENUM', description: 'mfaType is SMS, which 6.3 does not list.' },
  { id: 'webhook-channel-outside-enum', requirement: 'EVT-SESSION-CHANNEL-ENUM', description: 'channelType is PHONE, which 6.3 does not list.' },

  { id: 'order-code-as-string', requirement: 'ORD-ERR-ENVELOPE', description: 'The code of every order error envelope is a string ("400").' },
  { id: 'order-extra-error-fields', requirement: 'ORD-ERR-EXACT-FIELDS', description: 'Every order error envelope carries an extra timestamp field.' },
  { id: 'order-code-differs', requirement: 'ORD-ERR-CODE-STATUS', description: 'The 409 envelope carries code 400.' },
  { id: 'order-401-unauthenticated', requirement: 'ORD-ERR-PAIR', description: 'The 401 envelope carries errorType unauthenticated.' },
  { id: 'order-validation-without-prefix', requirement: 'ORD-ERR-MESSAGE', description: 'A validation message is only the reason, without "failed to validate input: ".' },
  { id: 'order-fulfillment-unchecked', requirement: 'ORD-400-VALIDATION', description: 'Fulfillment types are not checked against the allowed list.' },
  { id: 'order-in-person-refused', requirement: 'ORD-FULFILLMENT-ALLOWED', description: 'The fulfillment type IN_PERSON is refused as a validation error.' },
  { id: 'order-correlation-optional', requirement: 'ORD-400-CORRELATION', description: 'An order request without x-correlation-id is accepted.' },
  { id: 'order-client-id-optional', requirement: 'ORD-400-CLIENT-ID', description: 'An order request without x-client-id is accepted.' },
  { id: 'order-malformed-500', requirement: 'ORD-400-MALFORMED', description: 'An order body that is not well-formed JSON is answered 500 internal.' },
  { id: 'order-expired-accepted', requirement: 'ORD-401', description: 'The order endpoint accepts expired tokens.' },
  { id: 'order-entitlements-unchecked', requirement: 'ORD-403', description: 'The order endpoint does not check entitlements.' },
  { id: 'order-404-not-found-type', requirement: 'ORD-404', description: 'The 404 envelope carries errorType not_found.' },
  { id: 'order-duplicate-400', requirement: 'ORD-409', description: 'A duplicate merchantOrderId is answered 400 validation "failed to validate input: duplicate order".' },
  { id: 'order-500-server-error-type', requirement: 'ORD-500', description: 'The 500 envelope carries errorType server_error.' },
  { id: 'order-503-service-unavailable-type', requirement: 'ORD-503', description: 'The 503 envelope carries errorType service_unavailable.' },
] as const satisfies readonly Fault[];

export type FaultId = (typeof faultList)[number]['id'];

export const faults: readonly Fault[] = faultList;

const seen = new Set<string>();
for (const fault of faults) {
  if (seen.has(fault.id)) throw new Error(`sandbox/faults.ts lists fault "${fault.id}" twice`);
  seen.add(fault.id);
  if (!isRequirementId(fault.requirement)) {
    throw new Error(`Fault "${fault.id}" names requirement "${fault.requirement}", which is not in catalog/requirements.json`);
  }
}

export function fault(id: string): Fault {
  const found = faults.find((f) => f.id === id);
  if (!found) throw new Error(`Unknown sandbox fault "${id}"; known faults: ${faults.map((f) => f.id).join(', ')}`);
  return found;
}

/** The faults a sandbox runs with; `has` takes only ids that exist, so a misspelt check does not compile. */
export class FaultSet {
  readonly ids: readonly FaultId[];
  private readonly active: ReadonlySet<string>;

  constructor(ids: readonly string[]) {
    for (const id of ids) fault(id);
    this.ids = [...new Set(ids)] as FaultId[];
    this.active = new Set(this.ids);
  }

  has(id: FaultId): boolean {
    return this.active.has(id);
  }
}

/** The suite variables the given faults need, `{origin}` still in place. */
export function faultSuiteEnv(ids: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const id of ids) Object.assign(env, fault(id).suiteEnv ?? {});
  return env;
}
