import type { Faker } from '@faker-js/faker';
import type { RequestTemplates, RoutedOperationId } from '../config/suite-config.ts';
import { clientTags, clientValues as real } from './client-values.ts';

/** The two ids that name a case: the customer's inquiry and the service's case identifier. */
export interface CaseRef {
  inquiryId: string;
  authenticationId: string;
}

export interface BodyContext {
  faker: Faker;
  /** Unique per run, so that a persistent target never sees the same inquiry twice across runs. */
  runTag: string;
  /** The user's members for the object-valued fields the document does not detail (*_TEMPLATE variables). */
  templates: RequestTemplates;
}

/**
 * The value of an object-valued field whose inner fields the document does not show (applicant, images, a step-up
 * strategy...): the user's template member when one is configured, else an empty one. Nothing is invented, so that a
 * strict parser of the real message accepts it.
 */
export function undetailedMember(
  ctx: BodyContext,
  operation: RoutedOperationId,
  field: string,
  empty: unknown = {},
): unknown {
  return ctx.templates[operation]?.[field] ?? empty;
}

export function inquiryId({ faker, runTag }: BodyContext): string {
  return `inq-${runTag}-${faker.string.alphanumeric({ length: 12, casing: 'lower' })}`;
}

/** A case identifier no assessment returned: tagged with the run, so it cannot name a real case. */
export function unknownCaseId({ faker, runTag }: BodyContext): string {
  return `unknown-${runTag}-${faker.string.alphanumeric({ length: 12, casing: 'lower' })}`;
}

/** An assessment request with only the fields 2.1 requires. */
export function minimalAssessment(ctx: BodyContext, strategy: string) {
  return { strategy, inquiryId: inquiryId(ctx) };
}

/**
 * A document verification request (2.3) naming only the strategy and the inquiry. Checks of other operations stand on
 * it rather than on the full request, so that a server refusing one optional field blocks only the checks about it.
 */
export function minimalDocumentVerification(ctx: BodyContext, strategy: string, forInquiry?: string) {
  return { strategy, inquiryId: forInquiry ?? inquiryId(ctx) };
}

/**
 * The members of an operation whose value domain the document does not show (memberId, entryUser, requestType: a
 * string, nothing more), taken from the user's template: a value the suite invented could be one a correct deployment
 * does not know. Without a template they are left out.
 */
function templatedMembers(
  ctx: BodyContext,
  operation: RoutedOperationId,
  fields: readonly string[],
): Record<string, unknown> {
  const template = ctx.templates[operation] ?? {};
  return Object.fromEntries(
    fields.filter((field) => template[field] !== undefined).map((field) => [field, template[field]]),
  );
}

/**
 * An assessment request with every member of 2.1 but the reseller's sharedContext, each in its stated type; the
 * members whose value domain is not shown only from ASSESSMENT_TEMPLATE.
 */
export function fullAssessment(ctx: BodyContext, strategy: string) {
  return {
    strategy,
    inquiryId: inquiryId(ctx),
    channel: real.channel(ctx),
    deviceSessionId: real.deviceSessionId(ctx),
    creationDateTime: real.creationDateTime(),
    userIp: real.userIp(ctx),
    account: undetailedMember(ctx, 'assessment', 'account'),
    applicant: undetailedMember(ctx, 'assessment', 'applicant'),
    coApplicant: undetailedMember(ctx, 'assessment', 'coApplicant'),
    product: undetailedMember(ctx, 'assessment', 'product'),
    customFields: undetailedMember(ctx, 'assessment', 'customFields'),
    ...templatedMembers(ctx, 'assessment', ['memberId', 'entryUser', 'requestType']),
  };
}

/** A document verification request (2.3) with every member but the reseller's sharedContext; every one is optional. */
export function fullDocumentVerification(ctx: BodyContext, strategy: string, forInquiry?: string) {
  return {
    inquiryId: forInquiry ?? inquiryId(ctx),
    strategy,
    phoneNumber: real.phoneNumber(ctx),
    images: undetailedMember(ctx, 'documentVerification', 'images'),
    applicant: undetailedMember(ctx, 'documentVerification', 'applicant'),
    customFields: undetailedMember(ctx, 'documentVerification', 'customFields'),
  };
}

/** A case update (2.5) for an existing case, with the given optional fields. */
export function caseUpdate(ref: CaseRef, fields: Record<string, unknown> = {}) {
  return { inquiryId: ref.inquiryId, authenticationId: ref.authenticationId, ...fields };
}

/** A case update carrying every member of 2.5 but the reseller's sharedContext, each in its stated type. */
export function fullCaseUpdate(ctx: BodyContext, ref: CaseRef, strategy: string) {
  const { faker } = ctx;
  return caseUpdate(ref, {
    decision: 'REVIEW',
    tags: clientTags(ctx),
    notes: real.notes(ctx),
    externalAgent: real.externalAgent(ctx),
    queue: `queue-${faker.string.alphanumeric(6)}`,
    verifiedFraud: false,
    rejectionCode: `RC-${faker.string.alphanumeric(5)}`,
    strategy,
    customFields: undetailedMember(ctx, 'caseUpdate', 'customFields'),
    documents: undetailedMember(ctx, 'caseUpdate', 'documents', [{}]),
  });
}

export type StepUpChannel = 'phone' | 'email' | 'images';

/**
 * A step-up request (2.6) with every member but the reseller's sharedContext, on one channel (part 1: verification by
 * phone number or email): that channel, images and a strategy.
 */
export function fullStepUp(ctx: BodyContext, ref: CaseRef, channel: Exclude<StepUpChannel, 'images'> = 'phone') {
  return { ...stepUp(ctx, ref, channel, true), images: undetailedMember(ctx, 'stepUp', 'images') };
}

/**
 * A step-up request (2.6) for an existing case through one channel. The strategy object (v1RequestStrategy, inner
 * fields not shown) is sent when STEP_UP_TEMPLATE holds one, or, empty, when `withStrategy` asks for it.
 */
export function stepUp(ctx: BodyContext, ref: CaseRef, channel: StepUpChannel, withStrategy = false) {
  const byChannel = {
    phone: { phoneNumber: real.phoneNumber(ctx) },
    email: { email: real.email(ctx) },
    images: { images: undetailedMember(ctx, 'stepUp', 'images') },
  }[channel];
  const strategy = ctx.templates.stepUp?.strategy ?? (withStrategy ? {} : undefined);
  return {
    inquiryId: ref.inquiryId,
    authenticationId: ref.authenticationId,
    ...(strategy !== undefined ? { strategy } : {}),
    ...byChannel,
  };
}
