import { createHash, randomUUID } from 'node:crypto';
import type { SandboxContext } from './context.ts';
import type { DocumentSession, StoredCase } from './cases.ts';
import { enumDefault, member } from './enums.ts';
import type { EnumName } from './enums.ts';
import { withoutProto3Defaults } from './proto3-defaults.ts';
import type { WebhookEvent } from './webhooks.ts';

/** 6.1: the onboarding status of a document verification session changed. */
export function documentOnboardingEvent(ctx: SandboxContext, session: DocumentSession): Record<string, unknown> {
  const status = ctx.faults.has('webhook-onboarding-status-number') ? 1 : 'STARTED';
  return ctx.faults.has('webhook-onboarding-without-session-id')
    ? { status }
    : { sessionId: session.interviewId, status };
}

/** 6.2: the document verification session completed. */
export function documentResultsEvent(
  ctx: SandboxContext,
  c: StoredCase,
  session: DocumentSession,
): Record<string, unknown> {
  const { faults } = ctx;
  return {
    sessionId: session.interviewId,
    inquiryId: faults.has('webhook-results-wrong-inquiry') ? `inq-${randomUUID()}` : c.inquiryId,
    ocr: faults.has('webhook-results-ocr-string') ? JSON.stringify(session.ocr) : session.ocr,
    score: session.score,
    image: session.image,
    form: session.form,
  };
}

export type VerificationChannel = 'phone' | 'email';

/** The values the sandbox sends, checked against schemas/enums.schema.json when the module loads. */
const sent = {
  mfaType: member('MfaType', 'OTP'),
  smsChannel: member('ChannelType', 'SMS_OTP'),
  emailChannel: member('ChannelType', 'EMAIL_OTP'),
  verificationStatus: member('VerificationStatus', 'VERIFIED'),
  resendStatus: {
    SENT: member('ResendStatus', 'SENT'),
    UNKNOWN_RESEND_STATUS: member('ResendStatus', 'UNKNOWN_RESEND_STATUS'),
  },
};

/**
 * 6.3: a step-up verification session completed, written in full or, as proto3 JSON does, without the members that
 * hold their default value (the flavor's choice). A document verification flow's session (`document`) says so in
 * docVerification; one started without a message channel (a step-up with images alone) names no channelType.
 */
export function verificationSessionEvent(
  ctx: SandboxContext,
  channel: VerificationChannel | undefined,
  document = false,
): Record<string, unknown> {
  const { faults } = ctx;
  const sessionId = randomUUID();
  const counter = (n: number): string | number => (faults.has('webhook-int64-as-number') ? n : String(n));
  const event: Record<string, unknown> = {
    sessionId,
    sessionIdHash: createHash('sha256').update(sessionId).digest('hex'),
    mfaType: faults.has('webhook-mfa-outside-enum') ? 'SMS' : sent.mfaType,
    channelType: faults.has('webhook-channel-outside-enum')
      ? 'PHONE'
      : channel === 'phone'
        ? sent.smsChannel
        : channel === 'email'
          ? sent.emailChannel
          : undefined,
    verificationStatus: faults.has('webhook-status-outside-enum') ? 'SUCCESS' : sent.verificationStatus,
    resendStatus: faults.has('webhook-resend-outside-enum')
      ? 'DELIVERED'
      : sent.resendStatus[ctx.behaviour.sessionResendStatus],
    sendAttempts: counter(1),
    verificationAttempts: counter(1),
    remainingSendAttempts: counter(2),
    remainingVerificationAttempts: counter(2),
    autoTrustDevice: false,
    docVerification: document,
    sentTimeStamp: new Date().toISOString(),
  };
  if (faults.has('webhook-session-missing-session-id')) delete event['sessionId'];
  if (event['channelType'] === undefined) delete event['channelType'];
  return ctx.behaviour.omitEventDefaults ? withoutProto3Defaults(event, sessionDefaults()) : event;
}

const staleEvents = new WeakMap<SandboxContext['webhooks'], WebhookEvent>();

/**
 * webhook-session-stale-replayed and webhook-session-first-replayed: one verification session event made once per
 * sandbox (by the first step-up by phone number, or the first assessment) and delivered again and again.
 */
export function staleSessionEvent(ctx: SandboxContext): WebhookEvent {
  const made = staleEvents.get(ctx.webhooks) ?? {
    kind: 'verification-session',
    body: verificationSessionEvent(ctx, 'phone'),
  };
  staleEvents.set(ctx.webhooks, made);
  return made;
}

/** Members of 6.3 whose proto3 default is not an empty value: the enums at their default, the int64 counters at "0". */
function sessionDefaults(): Record<string, unknown> {
  const enums: Record<string, EnumName> = {
    mfaType: 'MfaType',
    channelType: 'ChannelType',
    verificationStatus: 'VerificationStatus',
    resendStatus: 'ResendStatus',
  };
  const counters = ['sendAttempts', 'verificationAttempts', 'remainingSendAttempts', 'remainingVerificationAttempts'];
  return {
    ...Object.fromEntries(Object.entries(enums).map(([name, enumName]) => [name, enumDefault(enumName)])),
    ...Object.fromEntries(counters.map((name) => [name, '0'])),
  };
}
