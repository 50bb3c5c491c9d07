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
  /** The decision of a new case (2.2 shows no values). */
  initialDecision: string;
  /** Members of the assessment response beyond 2.2 (a correct server may add some). */
  assessmentExtras?: (context: { fetchUrl: string; created: boolean; correlationId: string | undefined }) => Record<string, unknown>;
  /** Whether the verification session event (6.3) leaves out members holding their proto3 default. */
  omitEventDefaults: boolean;
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
}
