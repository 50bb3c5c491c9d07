import type { LayoutName } from '../layout.ts';

/**
 * How one implementation of the document makes the choices it leaves open: one object per flavor
 * (sandbox/flavors/reference.ts, alternative.ts), chosen once when the sandbox starts. Route code reads these answers
 * and never asks which flavor it is.
 */
export interface CoreBehaviour {
  /** Paths and routes: a layout of sandbox/layout.ts and its column of catalog/operations.json. */
  layout: LayoutName;
  /** The status of a success that creates something (4.2, 4.3, an order): the document shows none. */
  createdStatus: number;
  /** The status of a body refused for its fields (400, or 422). */
  validationStatus: number;
  /** The status of a body refused for its media type (415, or 400). */
  mediaTypeStatus: number;
  /** Whether the fetch of records (4.4, no body) insists on the Content-Type the document lists (ERRATUM-GET-CONTENT-TYPE). */
  getNeedsContentType: boolean;
  /** Operations 4.2 to 4.7: whether the credentials are checked before the mandatory headers. */
  credentialsBeforeHeaders: boolean;
  /** The order endpoint: whether the credentials are checked before the mandatory headers. */
  orderCredentialsBeforeHeaders: boolean;
  /** Identifiers the service issues: random UUIDs, or counters. */
  ids: 'uuid' | 'sequential';
  /** How a service id (authenticationId, the case id of 4.4 and 4.5) is looked up: as sent (unset), or ignoring letter case (ULID and UUID compare so). */
  serviceIdCase?: 'insensitive';
  /** The decision of a new case (2.2 shows no values). */
  initialDecision: string;
  /** Members of the assessment response beyond 2.2 (a correct server may add some). */
  assessmentExtras?: (context: {
    fetchUrl: string;
    created: boolean;
    correlationId: string | undefined;
  }) => Record<string, unknown>;
  /** Whether the verification session event (6.3) leaves out members holding their proto3 default. */
  omitEventDefaults: boolean;
  /** Whether the answers of 4.2 to 4.7 leave out members holding their proto3 default ("", 0, false, [], {}). */
  omitResponseDefaults: boolean;
  /** The resendStatus of a verification session event (3.2): SENT, or its default when no resend was asked for. */
  sessionResendStatus: 'SENT' | 'UNKNOWN_RESEND_STATUS';
  /**
   * The session of a step-up that carried images (2.6: verification by phone number or email, with optional images):
   * a verification session like any other (docVerification false; a step-up with images alone starts none), or a
   * document verification flow's (6.3: docVerification true; a step-up with images alone reports its session too).
   */
  imagesSession?: 'verification' | 'document';
  /**
   * A request member of another JSON type than stated (2.1 to 2.6 say how a wrong type is refused nowhere): refused,
   * or, for a number or boolean where a string is stated, read as its text (42 → "42", as Jackson and Java's
   * protobuf JSON parser do), and "true"/"false" where a boolean is stated read as the boolean.
   */
  scalarTypes: 'refuse' | 'coerce';
  /** Invalid UTF-8 inside a JSON body: refused, or decoded to U+FFFD (Go's encoding/json, Express body-parser; RFC 8259 §9). */
  invalidUtf8: 'refuse' | 'replace';
  /** Operations with a body: whether a Content-Type other than application/json is refused (RFC 9110 §8.3 lets a server examine the data). */
  checksContentType: boolean;
  /** A case update decision outside 3.3: refused, or ignored (the decision stays as it was, the rest of the update applies). */
  unknownDecision: 'refuse' | 'ignore';
  /** The order endpoint's JSON null body: refused as no object, or read as {} (Go's json.Unmarshal of null into a struct). */
  nullOrderBody: 'refuse' | 'as-empty';
  /**
   * Operations 4.2 to 4.7: the status of a malformed bearer credential (no token, or one with spaces): 401 with
   * invalid_token, or 400 with invalid_request (RFC 6750 §3.1). Unknown and expired tokens stay 401 either way.
   */
  malformedBearerStatus: 401 | 400;
  tokens: {
    /** HMAC-signed claims, or opaque values kept in memory. */
    kind: 'signed' | 'opaque';
    lifetimeSeconds: number;
    /** token_type as written (RFC 6749 compares it case-insensitively). */
    type: string;
    /** RFC 6749 §3.3: a request without scope gets the default one instead of a refusal. */
    defaultScope: boolean;
    /** Members of the token response beyond RFC 6749's. */
    extra: Record<string, unknown>;
  };
  /** Headers of each webhook delivery beyond the media type (part 6 shows none). */
  webhookHeaders: () => Record<string, string>;
  /**
   * Whether a client reaches the cases another client created (fetch, records, update): the document does not state
   * isolation between clients. Unset: every client reaches every case; 'own-client': another client's case answers as
   * unknown.
   */
  caseVisibility?: 'own-client';
  /**
   * How the tags of a case update are kept (2.5 appends them; free text, not identifiers): as sent (unset), or
   * normalised to NFC with their outer whitespace trimmed, two policies that keep the information.
   */
  tagForm?: 'nfc-trimmed';
  /** The longest string value a body of 4.2 to 4.7 may carry, in characters (part 8 shows no size limit); unset: no limit. */
  maxValueCharacters?: number;
}

/** How a flavor refuses input the document is silent about refusing: strictly (reference, alternative) unless it says otherwise. */
export type InputHandling = Pick<
  CoreBehaviour,
  'scalarTypes' | 'invalidUtf8' | 'checksContentType' | 'unknownDecision' | 'nullOrderBody' | 'malformedBearerStatus'
>;

export const strictInput: InputHandling = {
  scalarTypes: 'refuse',
  invalidUtf8: 'refuse',
  checksContentType: true,
  unknownDecision: 'refuse',
  nullOrderBody: 'refuse',
  malformedBearerStatus: 401,
};
