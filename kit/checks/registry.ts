import {
  expectBearerChallenge,
  expectBearerTokenType,
  expectClientChallenge,
  expectNoAccessToken,
  expectNoStore,
  expectOAuthError,
  expectTokenLifetime,
} from './auth.ts';
import { clientChecksByName } from './client/checks.ts';
import { expectCaseDecision, expectNotTheCase, expectRecordsOfCase, expectTagsOnCase } from './identity.ts';
import { expectNothingChanged, expectTagsNotAppended } from './nothing-changed.ts';
import { expectErrorEnvelope, expectNotValidationError } from './order-envelope.ts';
import { checkBodyNotAnObject, checkOptionalMembers, checkRequired, checkWrongTypes } from './request-members.ts';
import { checkRequestVariants, expectAnsweredAlike } from './request-variants.ts';
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
} from './responses.ts';
import { expectAcceptedOrRefused, expectIdentifierBack, expectTagsShown } from './value-round-trip.ts';
import {
  expectFlowEvent,
  expectOnboardingOfSession,
  expectResultsForInquiry,
  expectValidEvents,
  expectWellFormedDeliveries,
} from './webhook-events.ts';

/** The checks of a target, by name: every rule a test asserts is one of them. */
export const serverChecksByName = {
  expectBearerChallenge,
  expectNoAccessToken,
  expectOAuthError,
  expectClientChallenge,
  expectBearerTokenType,
  expectTokenLifetime,
  expectNoStore,
  expectTagsOnCase,
  expectCaseDecision,
  expectRecordsOfCase,
  expectNotTheCase,
  expectNothingChanged,
  expectTagsNotAppended,
  expectErrorEnvelope,
  expectNotValidationError,
  checkWrongTypes,
  checkRequired,
  checkBodyNotAnObject,
  checkOptionalMembers,
  expectAnsweredAlike,
  checkRequestVariants,
  expectRefused,
  expectAccepted,
  expectStatus,
  expectJsonBody,
  expectSchema,
  expectEqual,
  expectNonEmptyString,
  expectNoServerError,
  expectAtMostOneAccepted,
  expectEnumValue,
  expectIdentifierBack,
  expectAcceptedOrRefused,
  expectTagsShown,
  expectWellFormedDeliveries,
  expectValidEvents,
  expectFlowEvent,
  expectResultsForInquiry,
  expectOnboardingOfSession,
} as const;

/** The one registry: every check of the suite, a target's and a client's, by name. */
export const checksByName = { ...serverChecksByName, ...clientChecksByName } as const;

export type CheckName = keyof typeof checksByName;
