import type { Verdict } from '../verdict.ts';
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
import { expectNothingChanged } from './nothing-changed.ts';
import { expectErrorEnvelope, expectNotValidationError, observeLimit, type EnvelopeRules } from './order-envelope.ts';
import { expectAnsweredAlike } from './request-variants.ts';
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
} from './responses.ts';
import {
  expectAcceptedOrRefused,
  expectIdentifierBack,
  expectTagsShown,
  observeClassOutcomes,
  observeValueClass,
} from './value-round-trip.ts';
import {
  expectFlowEvent,
  expectOnboardingOfSession,
  expectResultsForInquiry,
  expectValidEvents,
  expectWellFormedDeliveries,
  observeSessionChannel,
} from './webhook-events.ts';

/**
 * The one shape of a check: a function of the findings it records into (a test's Verdict is one), the requirement
 * its caller passes (or, for a check that judges a family of rules at once, the requirement of each), and what it
 * judges; it returns whether what it judged held. No check names a requirement of its own.
 */
export type Check =
  | ((findings: Verdict, id: string, ...subject: never[]) => boolean)
  | ((findings: Verdict, ids: readonly string[], ...subject: never[]) => boolean)
  | ((findings: Verdict, rules: EnvelopeRules, ...subject: never[]) => boolean);

/**
 * Every check of a target, by name (`checks`): the one list docs/writing-checks.md is generated from, and which
 * selftest/layering.spec.ts holds against the exports of kit/checks/. Tests import a check from its module.
 */
const shaped = {
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
  expectErrorEnvelope,
  expectNotValidationError,
  observeLimit,
  expectAnsweredAlike,
  expectRefused,
  expectAccepted,
  observeAnswer,
  observeRetries,
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
  observeValueClass,
  observeClassOutcomes,
  expectWellFormedDeliveries,
  expectValidEvents,
  expectFlowEvent,
  expectResultsForInquiry,
  expectOnboardingOfSession,
  observeSessionChannel,
} as const satisfies Readonly<Record<string, Check>>;

export const checks = shaped;

/** The one registry: every check of the suite, a target's (`checks`) and a client's, by name. */
export const registry = { ...checks, ...clientChecksByName };

export type CheckName = keyof typeof registry;
