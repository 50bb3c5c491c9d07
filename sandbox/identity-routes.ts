import { createHash, randomUUID } from 'node:crypto';
import { knownAgents, knownQueues, knownRejectionCodes } from './cases.ts';
import type { StoredCase } from './cases.ts';
import { header } from './context.ts';
import type { Exchange, SandboxContext } from './context.ts';
import { allowedValues } from './enums.ts';
import { refusal, sendRefusal } from './errors.ts';
import { documentOnboardingEvent, documentResultsEvent, staleSessionEvent } from './events.ts';
import { RACE_WINDOW_MS } from './faults.ts';
import { fieldTypeIssue, optionalObject, optionalString, requiredFields, requiredStringIssue } from './field-rules.ts';
import { guardOperation, sendSuccess, unknownCaseRefusal, validationRefusal } from './guards.ts';
import { operationPath } from './layout.ts';
import {
  answeredDocvInquiryId,
  fetchedInquiryId,
  inquiryStoreFailure,
  keptTags,
  longTagRefusedLate,
  storedInquiryId,
  storedTag,
} from './values.ts';
import { operation } from '../catalog/catalog.ts';

/** Part 2.4: the record parts, each selected by the data value spelled like it, compared case-insensitively. */
const recordParts = ['ocrData', 'scoreData', 'imageData', 'formData'] as const;

function looseString(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

function customerIdentifier(c: StoredCase, role: 'applicant' | 'co-applicant'): string {
  return `cust-${createHash('sha256').update(`${role}:${c.authenticationId}`).digest('hex').slice(0, 12)}`;
}

/** The assessment response of part 2.2 for a stored case. */
function assessmentView(
  ctx: SandboxContext,
  c: StoredCase,
  extras: { created: boolean; correlationId: string | undefined },
): Record<string, unknown> {
  const view: Record<string, unknown> = {
    inquiryId: c.inquiryId,
    authenticationId: c.authenticationId,
    decision: decisionAsAnswered(ctx, c.decision),
    userSegment: 'standard',
    tags:
      c.tagsAsSent ??
      (ctx.faults.on('assessment-tags-as-string', extras.created ? 'assessment' : 'fetchAssessment')
        ? c.tags.join(',')
        : [...c.tags]),
    scoreCards: [],
    insights: {},
    strategy: { name: c.strategyName },
    thirdPartyCalls: {},
    errorResponses: {},
    status: 'COMPLETED',
    message: 'assessment completed',
  };
  if (c.deviceSessionId !== undefined) {
    view['deviceSessionId'] = c.deviceSessionId;
    view['deviceId'] = `dev-${createHash('sha256').update(c.deviceSessionId).digest('hex').slice(0, 16)}`;
  }
  if (c.hasApplicant) view['applicantCustomerIdentifier'] = customerIdentifier(c, 'applicant');
  if (c.hasCoApplicant) view['coApplicantCustomerIdentifier'] = customerIdentifier(c, 'co-applicant');
  if (c.entryUser !== undefined) view['entryUser'] = c.entryUser;
  if (ctx.behaviour.assessmentExtras) {
    const fetchPath = operationPath(ctx.behaviour.layout, operation('fetchAssessment')).replace(
      '{caseId}',
      encodeURIComponent(c.authenticationId),
    );
    Object.assign(view, ctx.behaviour.assessmentExtras({ fetchUrl: ctx.origin + fetchPath, ...extras }));
  }
  return view;
}

/** The decision as a response spells it; the decision-* faults spell it in a way no response may. */
function decisionAsAnswered(ctx: SandboxContext, decision: string): string {
  if (ctx.faults.has('decision-dotless-i')) return decision.toLowerCase().replace(/i/g, '\u0131');
  if (ctx.faults.has('decision-mixed-case'))
    return [...decision].map((ch, i) => (i % 2 === 0 ? ch.toLowerCase() : ch.toUpperCase())).join('');
  return decision;
}

/** Changes the case of an inquiry identifier so that it no longer matches (assessment-inquiry-not-echoed). */
function alteredInquiryId(id: string): string {
  if (id.toUpperCase() !== id) return id.toUpperCase();
  if (id.toLowerCase() !== id) return id.toLowerCase();
  return `${id}-0`;
}

export function assessmentHandler(ctx: SandboxContext, ex: Exchange): void {
  const call = guardOperation(ctx, ex, 'assessment');
  if (!call) return;
  const { faults } = ctx;
  // assessment-number-kept-as-number: a number where a string is stated passes as its string, and is answered as sent.
  const numbersKept = faults.has('assessment-number-kept-as-number');
  const body = numbersKept
    ? Object.fromEntries(
        Object.entries(call.body).map(([name, value]) => [name, typeof value === 'number' ? String(value) : value]),
      )
    : call.body;
  const required = requiredFields('assessment').filter(
    (name) => !(name === 'strategy' && faults.has('assessment-strategy-optional')),
  );
  const issue = requiredStringIssue(body, required) ?? fieldTypeIssue(body, 'assessment');
  if (issue) return sendRefusal(ex.res, validationRefusal(ctx, issue));
  if (faults.has('assessment-co-applicant-refused') && 'coApplicant' in body) {
    return sendRefusal(ex.res, refusal(400, 'validation_failed', 'coApplicant is not supported'));
  }
  if (faults.has('assessment-co-applicant-needs-applicant') && 'coApplicant' in body && !('applicant' in body)) {
    return sendRefusal(ex.res, refusal(400, 'validation_failed', 'coApplicant needs an applicant'));
  }
  const written = body['creationDateTime'];
  if (
    faults.has('assessment-offset-date-time-refused') &&
    typeof written === 'string' &&
    /[+-]\d\d:\d\d$/.test(written)
  ) {
    return sendRefusal(ex.res, refusal(400, 'validation_failed', 'creationDateTime must be in UTC (Z)'));
  }

  const deviceSessionId = optionalString(body, 'deviceSessionId');
  if (
    faults.has('assessment-device-session-unique') &&
    deviceSessionId !== undefined &&
    ctx.cases.hasDeviceSession(deviceSessionId)
  ) {
    return sendRefusal(ex.res, refusal(409, 'conflict', 'deviceSessionId is already in use'));
  }
  const storeFailure = inquiryStoreFailure(ctx, body['inquiryId']);
  if (storeFailure) return sendRefusal(ex.res, storeFailure);
  const entryUser = optionalString(body, 'entryUser');
  const sharedContext = optionalObject(body, 'sharedContext');
  const customFields = optionalObject(body, 'customFields');
  const stored = ctx.cases.create({
    ownerClientId: call.clientId,
    inquiryId: storedInquiryId(ctx, looseString(body['inquiryId'])),
    strategyName: body['strategy'] === undefined ? 'default' : looseString(body['strategy']),
    hasApplicant: body['applicant'] !== undefined,
    hasCoApplicant: body['coApplicant'] !== undefined,
    ...(deviceSessionId !== undefined ? { deviceSessionId } : {}),
    ...(entryUser !== undefined ? { entryUser } : {}),
    ...(sharedContext !== undefined ? { sharedContext } : {}),
    ...(customFields !== undefined ? { customFields } : {}),
  });

  const view = assessmentView(ctx, stored, { created: true, correlationId: header(ex, 'x-correlation-id') });
  if (faults.has('assessment-inquiry-not-echoed')) view['inquiryId'] = alteredInquiryId(stored.inquiryId);
  if (numbersKept)
    for (const [name, value] of Object.entries(call.body))
      if (typeof value === 'number' && name in view) view[name] = value;
  if (faults.has('webhook-session-stale-replayed')) {
    // The stale event reaches the receiver before the assessment is answered: before any step-up of the new case.
    void ctx.webhooks
      .deliverNow(staleSessionEvent(ctx))
      .then(() => sendSuccess(ctx, ex, 'assessment', ctx.behaviour.createdStatus, view));
    return;
  }
  sendSuccess(ctx, ex, 'assessment', ctx.behaviour.createdStatus, view);
}

/** A case as the calling client reaches it: none when it is another client's and the flavor keeps clients apart. */
function reachable(ctx: SandboxContext, found: StoredCase | undefined, clientId: string): StoredCase | undefined {
  if (
    found &&
    ctx.behaviour.caseVisibility === 'own-client' &&
    found.ownerClientId !== undefined &&
    found.ownerClientId !== clientId
  )
    return undefined;
  return found;
}

export function fetchAssessmentHandler(ctx: SandboxContext, ex: Exchange): void {
  const call = guardOperation(ctx, ex, 'fetchAssessment');
  if (!call) return;
  const caseId = ex.params['caseId'] ?? '';
  const looked =
    ctx.cases.get(caseId) ??
    (ctx.faults.has('fetch-case-id-prefix') ? ctx.cases.nearMiss(caseId, 'prefix-of-case') : undefined);
  const found = reachable(ctx, looked, call.clientId);
  if (!found) return sendRefusal(ex.res, unknownCaseRefusal(caseId));
  const latest = ctx.faults.has('fetch-returns-latest-case') ? (ctx.cases.latestCase() ?? found) : found;
  // A replica that never caught up on tags: the case as created, with its later decision.
  const shown = ctx.faults.has('fetch-tags-never-caught-up') ? { ...latest, tags: [] } : latest;
  const view = assessmentView(ctx, shown, { created: false, correlationId: undefined });
  sendSuccess(ctx, ex, 'fetchAssessment', 200, { ...view, inquiryId: fetchedInquiryId(ctx, shown.inquiryId) });
}

export function documentVerificationHandler(ctx: SandboxContext, ex: Exchange): void {
  const call = guardOperation(ctx, ex, 'documentVerification');
  if (!call) return;
  const { body } = call;
  const { faults } = ctx;
  const issue = fieldTypeIssue(body, 'documentVerification');
  if (issue) return sendRefusal(ex.res, validationRefusal(ctx, issue));
  if (faults.has('docv-images-refused') && 'images' in body) {
    return sendRefusal(ex.res, refusal(400, 'validation_failed', 'images are not supported'));
  }
  if (faults.has('docv-images-need-applicant') && 'images' in body && !('applicant' in body)) {
    return sendRefusal(ex.res, refusal(400, 'validation_failed', 'images need an applicant'));
  }

  const givenInquiry = body['inquiryId'] === undefined ? undefined : looseString(body['inquiryId']);
  const inquiryId = givenInquiry ?? `inq-${randomUUID()}`;
  const sharedContext = optionalObject(body, 'sharedContext');
  const customFields = optionalObject(body, 'customFields');
  const stored =
    (givenInquiry !== undefined ? ctx.cases.byInquiry(givenInquiry) : undefined) ??
    ctx.cases.create({
      ownerClientId: call.clientId,
      inquiryId,
      strategyName: body['strategy'] === undefined ? 'docv-default' : looseString(body['strategy']),
      hasApplicant: body['applicant'] !== undefined,
      ...(sharedContext !== undefined ? { sharedContext } : {}),
      ...(customFields !== undefined ? { customFields } : {}),
    });
  const session = ctx.cases.startDocumentSession(stored);
  const interviewId = faults.has('docv-interview-id-number')
    ? Number(session.interviewId.replace(/\D/g, '').slice(0, 15) || '0')
    : session.interviewId;
  sendSuccess(ctx, ex, 'documentVerification', ctx.behaviour.createdStatus, {
    inquiryId: faults.has('docv-inquiry-not-echoed')
      ? alteredInquiryId(inquiryId)
      : answeredDocvInquiryId(ctx, inquiryId),
    authenticationId: stored.authenticationId,
    status: 'PENDING',
    message: 'document verification session started',
    interviewId,
    token: session.token,
  });
  ctx.webhooks.send(
    { kind: 'document-onboarding', body: documentOnboardingEvent(ctx, session) },
    { kind: 'document-results', body: documentResultsEvent(ctx, stored, session) },
  );
}

export function documentRecordsHandler(ctx: SandboxContext, ex: Exchange): void {
  const call = guardOperation(ctx, ex, 'documentRecords');
  if (!call) return;
  const { faults } = ctx;
  if (faults.has('records-source-client-refused') && header(ex, 'x-source-client-id') !== undefined) {
    return sendRefusal(ex.res, refusal(403, 'forbidden', 'x-source-client-id is not allowed for this client'));
  }
  const accepted = allowedValues('DocumentRecordsData').filter(
    (value) => !(value === 'all' && faults.has('records-all-refused')),
  );
  const values = ex.query.getAll('data');
  const data = values[0];
  if (values.length > 1 || (data !== undefined && !accepted.includes(data))) {
    return sendRefusal(ex.res, refusal(400, 'invalid_parameter', `data must be one of ${accepted.join(', ')}`));
  }
  const authenticationId = ex.params['authenticationId'] ?? '';
  const looked =
    ctx.cases.get(authenticationId) ??
    (faults.has('records-case-id-truncated') ? ctx.cases.nearMiss(authenticationId, 'case-is-prefix') : undefined);
  const found = reachable(ctx, looked, call.clientId);
  if (!found || faults.has('records-never-ready')) return sendRefusal(ex.res, unknownCaseRefusal(authenticationId));

  const shown = faults.has('records-of-latest-session') ? (ctx.cases.latestDocumentCase() ?? found) : found;
  const session = ctx.cases.documentSessionOf(shown);
  const parts: Record<(typeof recordParts)[number], unknown> = {
    ocrData: faults.has('records-ocr-as-string') ? JSON.stringify(session.ocr) : session.ocr,
    scoreData: session.score,
    imageData: session.image,
    formData: session.form,
  };
  const selected =
    data === undefined || data === 'all'
      ? recordParts
      : recordParts.filter((p) => p.toLowerCase() === data.toLowerCase());
  const records: Record<string, unknown> = { authenticationId: shown.authenticationId };
  for (const part of selected) records[part] = parts[part];
  sendSuccess(ctx, ex, 'documentRecords', 200, records);
}

/** A case update whose form held: its body, the decision it applies, and what its faults make of it. */
interface CaseUpdate {
  body: Record<string, unknown>;
  /** The listed decision it sets; an unlisted one that is ignored sets none. */
  decision: string | undefined;
  /** update-unknown-decision-drops-update: an unlisted decision makes the update do nothing, answered as done. */
  dropped: boolean;
  /** update-string-tags-kept: tags sent as one string are kept as sent. */
  stringTagsKept: boolean;
}

type RespondWith = (ids: { inquiryId: string; authenticationId: string }) => void;

export function caseUpdateHandler(ctx: SandboxContext, ex: Exchange): void {
  const call = guardOperation(ctx, ex, 'caseUpdate');
  if (!call) return;
  const update = readCaseUpdate(ctx, ex, call.body);
  if (!update || refusedByFault(ctx, ex, update)) return;
  const { body } = update;
  const { faults } = ctx;
  const authenticationId = body['authenticationId'] as string;
  const inquiryId = optionalString(body, 'inquiryId');
  const correlationId = header(ex, 'x-correlation-id') ?? randomUUID();
  const respond: RespondWith = (ids) => {
    const answer: Record<string, unknown> = faults.has('update-response-without-ids') ? {} : { ...ids };
    answer['correlationId'] = correlationId;
    answer['message'] = 'case updated';
    if (faults.has('update-error-as-string')) answer['error'] = '';
    sendSuccess(ctx, ex, 'caseUpdate', 200, answer);
  };

  const looked =
    ctx.cases.get(authenticationId) ??
    (faults.has('update-case-id-truncated') ? ctx.cases.nearMiss(authenticationId, 'case-is-prefix') : undefined);
  const found = reachable(ctx, looked, call.clientId);
  if (!found) {
    if (faults.has('update-unknown-case-accepted')) return respond({ inquiryId: inquiryId ?? '', authenticationId });
    return sendRefusal(ex.res, unknownCaseRefusal(authenticationId));
  }
  const prefixMaps =
    faults.has('update-inquiry-prefix-maps') &&
    inquiryId !== undefined &&
    inquiryId !== '' &&
    found.inquiryId.startsWith(inquiryId);
  if (
    inquiryId !== undefined &&
    inquiryId !== found.inquiryId &&
    !prefixMaps &&
    !faults.has('update-inquiry-unchecked')
  ) {
    if (faults.has('update-foreign-inquiry-tags-kept') && Array.isArray(body['tags']))
      found.tags = [...found.tags, ...body['tags'].filter((t): t is string => typeof t === 'string')];
    return sendRefusal(ex.res, validationRefusal(ctx, 'inquiryId is not the inquiry of this case'));
  }
  if (update.dropped) return respond({ inquiryId: found.inquiryId, authenticationId: found.authenticationId });
  // update-long-tag-refused-after-append: the update is stored, then refused.
  const refusedLate = longTagRefusedLate(ctx, update.body['tags'])
    ? () => sendRefusal(ex.res, refusal(400, 'validation_failed', 'a tag is longer than 1024 characters'))
    : undefined;
  applyCaseUpdate(ctx, found, update, refusedLate ?? respond);
}

/** The update's required members, member types and decision (2.5, 3.3): refused when they do not hold. */
function readCaseUpdate(ctx: SandboxContext, ex: Exchange, body: Record<string, unknown>): CaseUpdate | undefined {
  const { faults } = ctx;
  const nullInquiryTaken = faults.has('update-null-inquiry-accepted') && body['inquiryId'] === null;
  if (nullInquiryTaken) delete body['inquiryId'];
  const required = requiredFields('caseUpdate').filter(
    (name) => !(name === 'inquiryId' && (faults.has('update-inquiry-optional') || nullInquiryTaken)),
  );
  const stringTagsKept = faults.has('update-string-tags-kept') && typeof body['tags'] === 'string';
  const requiredIssue = requiredStringIssue(body, required);
  const issue =
    requiredIssue ?? fieldTypeIssue(stringTagsKept ? { ...body, tags: [body['tags']] } : body, 'caseUpdate');
  if (issue) {
    if (requiredIssue && faults.has('update-required-missing-applied')) applyBeforeRefusing(ctx, body);
    sendRefusal(ex.res, validationRefusal(ctx, issue));
    return undefined;
  }
  const given = optionalString(body, 'decision');
  const decisions = allowedValues('CaseDecision');
  const outOfList = given !== undefined && !decisions.includes(given) && !faults.has('update-decision-any');
  const dropped = faults.has('update-unknown-decision-drops-update') && outOfList;
  if (outOfList && !dropped && ctx.behaviour.unknownDecision === 'refuse') {
    sendRefusal(ex.res, validationRefusal(ctx, `decision must be one of ${decisions.join(', ')}`));
    return undefined;
  }
  // An ignored decision leaves the case's decision as it was, as 2.5 does for an unknown queue or rejection code.
  return { body, decision: outOfList ? undefined : given, dropped, stringTagsKept };
}

/** The refusals of a well-formed update that only faults make: validating what 2.5 says is not validated, and more. */
function refusedByFault(ctx: SandboxContext, ex: Exchange, { body, decision }: CaseUpdate): boolean {
  const { faults } = ctx;
  const agent = optionalString(body, 'externalAgent');
  const queue = optionalString(body, 'queue');
  const rejectionCode = optionalString(body, 'rejectionCode');
  const refusals: ReadonlyArray<readonly [boolean, string]> = [
    [faults.has('update-valid-refused'), 'case updates are not accepted'],
    [faults.has('update-documents-refused') && 'documents' in body, 'documents are not supported'],
    [
      faults.has('update-agent-validated') && agent !== undefined && !knownAgents.includes(agent),
      'externalAgent is not a portal user',
    ],
    [
      faults.has('update-unknown-queue-fails') && queue !== undefined && !knownQueues.includes(queue),
      'queue does not exist',
    ],
    [
      faults.has('update-unknown-rejection-fails') &&
        rejectionCode !== undefined &&
        !knownRejectionCodes.includes(rejectionCode),
      'rejectionCode does not exist',
    ],
    [
      faults.has('update-rejection-needs-decision') && rejectionCode !== undefined && decision === undefined,
      'rejectionCode needs a decision',
    ],
  ];
  const message = refusals.find(([refused]) => refused)?.[1];
  if (message !== undefined) sendRefusal(ex.res, refusal(400, 'validation_failed', message));
  return message !== undefined;
}

/** Stores what the update carries in the case (2.5: tags appended, the rest set), then answers. */
function applyCaseUpdate(ctx: SandboxContext, found: StoredCase, update: CaseUpdate, respond: RespondWith): void {
  const { faults } = ctx;
  const { body, decision, stringTagsKept } = update;
  const notes = optionalString(body, 'notes');
  if (decision !== undefined) {
    if (faults.has('update-decision-clears-tags') && decision !== found.decision) found.tags = [];
    if (!faults.has('update-decision-ignored')) found.decision = decision;
  } else if (
    faults.has('update-decision-reset') ||
    (faults.has('update-notes-resets-decision') && notes !== undefined)
  ) {
    found.decision = ctx.behaviour.initialDecision;
  }
  if (stringTagsKept) found.tagsAsSent = body['tags'] as string;
  const tags =
    stringTagsKept || (faults.has('update-tags-dropped-with-decision') && decision !== undefined)
      ? undefined
      : (body['tags'] as string[] | undefined)?.map((tag) => storedTag(ctx, tag));
  const racy = tags !== undefined && faults.has('update-tags-lost-concurrent');
  const tagsRead = [...found.tags];
  if (tags && !racy)
    found.tags = keptTags(ctx, faults.has('update-tags-replaced') ? [...tags] : [...found.tags, ...tags]);
  applyMembers(found, body, notes);
  const answered = faults.has('update-answers-latest-case') ? (ctx.cases.latestCase() ?? found) : found;
  const ids = { inquiryId: answered.inquiryId, authenticationId: answered.authenticationId };
  if (!racy) return respond(ids);
  // update-tags-lost-concurrent: the tags read before a while are written back after it, losing those of others.
  setTimeout(() => {
    found.tags = [...tagsRead, ...tags];
    respond(ids);
  }, RACE_WINDOW_MS);
}

/** The members of an update other than its decision and tags, each stored as sent (a known queue or rejection code). */
function applyMembers(found: StoredCase, body: Record<string, unknown>, notes: string | undefined): void {
  const queue = optionalString(body, 'queue');
  if (queue !== undefined && knownQueues.includes(queue)) found.queue = queue;
  const rejectionCode = optionalString(body, 'rejectionCode');
  if (rejectionCode !== undefined && knownRejectionCodes.includes(rejectionCode)) found.rejectionCode = rejectionCode;
  if (typeof body['verifiedFraud'] === 'boolean') found.verifiedFraud = body['verifiedFraud'];
  if (notes !== undefined) found.notes = notes;
  const externalAgent = optionalString(body, 'externalAgent');
  if (externalAgent !== undefined) found.externalAgent = externalAgent;
  const strategy = optionalString(body, 'strategy');
  if (strategy !== undefined) found.updateStrategy = strategy;
  const customFields = optionalObject(body, 'customFields');
  if (customFields) found.customFields = { ...found.customFields, ...customFields };
  if (Array.isArray(body['documents'])) found.documents = found.documents.concat(body['documents'] as unknown[]);
  const sharedContext = optionalObject(body, 'sharedContext');
  if (sharedContext) found.sharedContext = sharedContext;
}

/** update-required-missing-applied: the decision and tags of an update about to be refused are stored first, where they are usable. */
function applyBeforeRefusing(ctx: SandboxContext, body: Record<string, unknown>): void {
  const found = typeof body['authenticationId'] === 'string' ? ctx.cases.get(body['authenticationId']) : undefined;
  if (!found) return;
  const decision = body['decision'];
  if (typeof decision === 'string' && allowedValues('CaseDecision').includes(decision)) found.decision = decision;
  if (Array.isArray(body['tags']))
    found.tags = [...found.tags, ...body['tags'].filter((t): t is string => typeof t === 'string')];
}
