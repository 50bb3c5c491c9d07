import type { Exchange, SandboxContext } from './context.ts';
import { refusal, sendRefusal } from './errors.ts';
import { staleSessionEvent, verificationSessionEvent } from './events.ts';
import { fieldTypeIssue, optionalObject, optionalString, requiredFields, requiredStringIssue } from './field-rules.ts';
import { guardOperation, sendSuccess, unknownCaseRefusal, validationRefusal } from './guards.ts';

export function stepUpHandler(ctx: SandboxContext, ex: Exchange): void {
  const call = guardOperation(ctx, ex, 'stepUp');
  if (!call) return;
  const { body } = call;
  const { faults } = ctx;
  const nullCaseTaken = faults.has('step-up-null-authentication-id-accepted') && body['authenticationId'] === null;
  if (nullCaseTaken) delete body['authenticationId'];
  const required = requiredFields('stepUp').filter(
    (name) => !(name === 'authenticationId' && (faults.has('step-up-authentication-id-optional') || nullCaseTaken)),
  );
  const issue = requiredStringIssue(body, required) ?? fieldTypeIssue(body, 'stepUp');
  if (issue) return sendRefusal(ex.res, validationRefusal(ctx, issue));
  if (faults.has('step-up-email-refused') && 'email' in body) {
    return sendRefusal(ex.res, refusal(400, 'validation_failed', 'verification by email is not supported'));
  }
  if (faults.has('step-up-images-need-phone') && 'images' in body && !('phoneNumber' in body)) {
    return sendRefusal(ex.res, refusal(400, 'validation_failed', 'images need a phoneNumber'));
  }

  const inquiryId = body['inquiryId'] as string;
  const authenticationId = optionalString(body, 'authenticationId');
  const found =
    authenticationId !== undefined
      ? (ctx.cases.get(authenticationId) ??
        (faults.has('step-up-case-id-prefix') ? ctx.cases.nearMiss(authenticationId, 'prefix-of-case') : undefined))
      : ctx.cases.byInquiry(inquiryId);
  let ids: { inquiryId: string; authenticationId: string; strategyName: string };
  if (found) {
    const truncatedMaps = faults.has('step-up-inquiry-truncated') && inquiryId.startsWith(found.inquiryId);
    if (found.inquiryId !== inquiryId && !truncatedMaps && !faults.has('step-up-inquiry-unchecked')) {
      return sendRefusal(ex.res, validationRefusal(ctx, 'inquiryId is not the inquiry of this case'));
    }
    ids = { inquiryId: found.inquiryId, authenticationId: found.authenticationId, strategyName: found.strategyName };
  } else if (faults.has('step-up-unknown-case-accepted')) {
    ids = { inquiryId, authenticationId: authenticationId ?? '', strategyName: 'default' };
  } else {
    return sendRefusal(ex.res, unknownCaseRefusal(authenticationId ?? `(inquiry ${inquiryId})`));
  }

  const strategy = optionalObject(body, 'strategy') ?? { name: ids.strategyName };
  if (faults.has('step-up-answers-latest-case')) {
    const latest = ctx.cases.latestCase();
    if (latest)
      ids = { inquiryId: latest.inquiryId, authenticationId: latest.authenticationId, strategyName: ids.strategyName };
  }
  const swapped = faults.has('step-up-ids-swapped');
  sendSuccess(ctx, ex, 'stepUp', 200, {
    inquiryId: swapped ? ids.authenticationId : ids.inquiryId,
    authenticationId: swapped ? ids.inquiryId : ids.authenticationId,
    decision: 'CHALLENGE',
    strategy: faults.has('step-up-strategy-as-string') ? String(strategy['name'] ?? ids.strategyName) : strategy,
  });
  const channel =
    typeof body['phoneNumber'] === 'string' ? 'phone' : typeof body['email'] === 'string' ? 'email' : undefined;
  // A step-up with images is a document verification flow where the flavor says so, with or without a message channel.
  const document =
    ctx.behaviour.imagesSession === 'document' && body['images'] !== undefined && body['images'] !== null;
  if (!channel && !document) return;
  const redelivered =
    channel === 'email' && faults.has('webhook-session-redelivered-not-sent')
      ? ctx.webhooks.lastOf('verification-session')
      : undefined;
  const stale =
    channel === 'phone' &&
    (faults.has('webhook-session-stale-replayed') || faults.has('webhook-session-first-replayed'))
      ? staleSessionEvent(ctx)
      : undefined;
  ctx.webhooks.send(
    redelivered ?? stale ?? { kind: 'verification-session', body: verificationSessionEvent(ctx, channel, document) },
  );
}
