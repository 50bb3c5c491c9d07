import { randomBytes, randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { isRequirementId, operation, orderErrorRow } from '../catalog/catalog.ts';
import type { OperationId, Place } from '../catalog/catalog.ts';
import { schemaIdFor, schemaIssues } from '../schemas/registry.ts';
import { faults, type Fault, type FaultId } from '../sandbox/faults.ts';
import type { Flavor } from '../sandbox/types.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { capitalisedHeaderName } from '../kit/builders/request-variants.ts';
import { SandboxClient, validOrder, withSandbox, bothFlavors, validCall, toReply } from './sandbox/client.ts';
import type { Body, Reply, Delivery } from './sandbox/client.ts';

type Conforms = (api: SandboxClient) => Promise<boolean>;

const stepUpOf = async (api: SandboxClient, extra: Body = {}): Promise<Reply> => {
  const c = await api.newCase();
  return api.op('stepUp', { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, ...extra } });
};
const updateOf = async (
  api: SandboxClient,
  extra: Body = {},
  headers: Record<string, string | undefined> = {},
): Promise<Reply> => {
  const c = await api.newCase();
  return api.op('caseUpdate', {
    body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, ...extra },
    headers,
  });
};
const recordsOf = async (
  api: SandboxClient,
  query = '',
  headers: Record<string, string | undefined> = {},
): Promise<Reply> => {
  const c = await api.newCase();
  return api.op('documentRecords', { params: { authenticationId: c.authenticationId }, query, headers });
};
const eventsOf = async (
  api: SandboxClient,
  kind: string,
  trigger: (api: SandboxClient) => Promise<unknown>,
): Promise<Delivery[]> => {
  await trigger(api);
  await api.sandbox.webhooksIdle();
  return api.receiver.deliveries.filter((d) => d.headers['x-sandbox-event'] === kind);
};
const docvEvents = (api: SandboxClient, kind: string) =>
  eventsOf(api, kind, (a) => a.op('documentVerification', { body: { inquiryId: `inq-${randomUUID()}` } }));
const sessionEventValid = async (api: SandboxClient): Promise<boolean> => {
  const [event] = await eventsOf(api, 'verification-session', (a) => stepUpOf(a, { phoneNumber: '+15555550100' }));
  return event !== undefined && schemaIssues(schemaIdFor('webhook-verification-session'), event.body).length === 0;
};
const isRow = (reply: Reply, row: string): boolean => {
  const r = orderErrorRow(row);
  const typeOk =
    r.errorTypes === null
      ? typeof reply.body['errorType'] === 'string'
      : r.errorTypes.includes(String(reply.body['errorType']));
  return reply.status === r.status && reply.body['code'] === r.status && typeOk && Object.keys(reply.body).length === 3;
};
/** Whether the tags of one update are the case's tags afterwards, each as it was sent. */
const tagsKept = async (api: SandboxClient, tags: string[]): Promise<boolean> =>
  JSON.stringify(((await decisionAfter(api, [{ tags }])) as Body)['tags']) === JSON.stringify(tags);
const decisionAfter = async (api: SandboxClient, updates: Body[]): Promise<unknown> => {
  const c = await api.newCase();
  for (const update of updates)
    await api.op('caseUpdate', { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, ...update } });
  return (await api.fetchCase(c.authenticationId)).body;
};

/** A valid call of the operation with some headers changed (undefined removes one). */
const callWith = async (
  api: SandboxClient,
  id: OperationId,
  headers: Record<string, string | undefined>,
  extra: Body = {},
): Promise<Reply> => {
  const call = await validCall(api, id);
  return api.op(id, { ...call, ...(call.body ? { body: { ...(call.body as Body), ...extra } } : {}), headers });
};
const tokenFor = (api: SandboxClient, id: OperationId) =>
  api.token(operation(id).service === 'stepup' ? 'stepup' : 'identity');
const deliveryKind = {
  onboarding: 'document-onboarding',
  results: 'document-results',
  session: 'verification-session',
} as const;
const refused = (reply: Reply) => reply.status >= 400 && reply.status < 500;
const accepted = (reply: Reply) => reply.status >= 200 && reply.status < 300;

/** The probe of each family of faults, for the place a fault of it breaks: clean, the place conforms. */
const familyProbes: Record<string, (place: Place) => Conforms> = {
  'json-as-text-plain': (id) => async (api) =>
    (await callWith(api, id as OperationId, {})).headers.get('content-type')?.startsWith('application/json') === true,
  'bearer-optional': (id) => async (api) =>
    (await callWith(api, id as OperationId, { authorization: undefined })).status === 401,
  'bearer-any-scheme': (id) => async (api) =>
    (await callWith(api, id as OperationId, { authorization: `Token ${await tokenFor(api, id as OperationId)}` }))
      .status === 401,
  'bearer-signature-unchecked': (id) => async (api) => {
    const good = await tokenFor(api, id as OperationId);
    const forged =
      api.flavor === 'alternative' ? randomBytes(20).toString('hex') : `${good.split('.')[0]}.${'A'.repeat(43)}`;
    return (await callWith(api, id as OperationId, { authorization: `Bearer ${forged}` })).status === 401;
  },
  'bearer-expiry-unchecked': (id) => async (api) => {
    const expired =
      api.env[operation(id as OperationId).service === 'stepup' ? 'STEPUP_EXPIRED_TOKEN' : 'IDENTITY_EXPIRED_TOKEN'];
    return (await callWith(api, id as OperationId, { authorization: `Bearer ${expired}` })).status === 401;
  },
  'bearer-no-challenge': (id) => async (api) =>
    (await callWith(api, id as OperationId, { authorization: undefined })).headers.get('www-authenticate') !== null,
  'bearer-scheme-case-sensitive': (id) => async (api) =>
    accepted(
      await callWith(api, id as OperationId, { authorization: `bearer ${await tokenFor(api, id as OperationId)}` }),
    ),
  'client-id-optional': (id) => async (api) =>
    refused(await callWith(api, id as OperationId, { 'x-client-id': undefined })),
  'correlation-id-optional': (id) => async (api) =>
    refused(await callWith(api, id as OperationId, { 'x-correlation-id': undefined })),
  'assessment-tags-as-string': (id) => async (api) => {
    const c = await api.newCase();
    return Array.isArray((id === 'assessment' ? c.reply : await api.fetchCase(c.authenticationId)).body['tags']);
  },
  'shared-context-refused': (id) => async (api) =>
    accepted(await callWith(api, id as OperationId, {}, { sharedContext: { resellerId: 'r' } })),
  'webhook-text-plain': (kind) => async (api) => {
    const trigger =
      kind === 'session'
        ? (a: SandboxClient) => stepUpOf(a, { phoneNumber: '+15555550100' })
        : (a: SandboxClient) => a.op('documentVerification', { body: { inquiryId: `inq-${randomUUID()}` } });
    const [event] = await eventsOf(api, deliveryKind[kind as keyof typeof deliveryKind], trigger);
    return event?.headers['content-type'] === 'application/json';
  },
};

const faultChecks: Record<FaultId, Conforms> = {
  'token-response-not-json': async (api) =>
    typeof (await api.requestToken('identity')).body['access_token'] === 'string',
  'token-answered-201': async (api) => (await api.requestToken('identity')).status === 200,
  'token-never-answers': async (api) => {
    // Answered, or held: the sandbox's health says when a request's handling ended without an answer.
    let answered: boolean | undefined;
    void api.requestToken('identity').then(
      (reply) => (answered = reply.status > 0),
      () => (answered = false),
    );
    for (;;) {
      const health = await fetch(`${api.sandbox.url}/__sandbox/health`).then(toReply);
      if (answered !== undefined) return answered;
      if (Number(health.body['unanswered']) > 0) return false;
    }
  },
  'token-any-scope': async (api) =>
    (await api.requestToken('identity', { form: { grant_type: 'client_credentials', scope: 'admin' } })).status === 400,
  'token-any-grant': async (api) =>
    (await api.requestToken('identity', { form: { grant_type: 'password', scope: 'k1_integration_api' } })).status ===
    400,
  'token-no-client-auth': async (api) =>
    (await api.requestToken('identity', { apiKey: 'd3Jvbmc6d3Jvbmc=' })).status === 401,
  'token-no-cache-control': async (api) =>
    (await api.requestToken('identity')).headers.get('cache-control') === 'no-store',
  'correlation-id-required-on-step-up': async (api) =>
    (await api.op('stepUp', { ...(await validCall(api, 'stepUp')), headers: { 'x-correlation-id': undefined } }))
      .status === 200,
  'assessment-number-kept-as-number': async (api) => {
    const reply = await api.op('assessment', { body: { strategy: 'default', inquiryId: 42 } });
    return reply.status >= 400 || typeof reply.body['inquiryId'] === 'string';
  },
  'assessment-device-session-unique': async (api) => {
    const body = () => ({ strategy: 'default', inquiryId: `inq-${randomUUID()}`, deviceSessionId: 'device-session-1' });
    await api.op('assessment', { body: body() });
    return (await api.op('assessment', { body: body() })).status === 200;
  },
  'assessment-strategy-optional': async (api) =>
    (await api.op('assessment', { body: { inquiryId: 'inq-1' } })).status === 400,
  'assessment-null-body-crashes': async (api) => refused(await api.op('assessment', { raw: 'null' })),
  'assessment-co-applicant-refused': async (api) =>
    (await api.op('assessment', { body: { strategy: 'default', inquiryId: 'inq-1', coApplicant: { firstName: 'A' } } }))
      .status === 200,
  'assessment-inquiry-not-echoed': async (api) => {
    const c = await api.newCase();
    return c.reply.body['inquiryId'] === c.inquiryId;
  },
  'fetch-returns-latest-case': async (api) => {
    const first = await api.newCase();
    await api.newCase();
    return (await api.fetchCase(first.authenticationId)).body['authenticationId'] === first.authenticationId;
  },
  'docv-images-refused': async (api) =>
    (await api.op('documentVerification', { body: { images: { front: 'x' } } })).status === 200,
  'docv-inquiry-not-echoed': async (api) =>
    (await api.op('documentVerification', { body: { inquiryId: 'inq-echo-1' } })).body['inquiryId'] === 'inq-echo-1',
  'docv-interview-id-number': async (api) =>
    typeof (await api.op('documentVerification', { body: {} })).body['interviewId'] === 'string',
  'records-all-refused': async (api) => (await recordsOf(api, 'data=all')).status === 200,
  'records-never-ready': async (api) => (await recordsOf(api)).status === 200,
  'records-ocr-as-string': async (api) => typeof (await recordsOf(api)).body['ocrData'] === 'object',
  'records-source-client-refused': async (api) =>
    (await recordsOf(api, '', { 'x-source-client-id': 'child-org-001' })).status === 200,
  'update-string-tags-kept': async (api) => {
    const c = await api.newCase();
    const reply = await api.op('caseUpdate', {
      body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, tags: 'one-tag' },
    });
    return reply.status >= 400 || Array.isArray((await api.fetchCase(c.authenticationId)).body['tags']);
  },
  'update-inquiry-optional': async (api) => {
    const c = await api.newCase();
    return (await api.op('caseUpdate', { body: { authenticationId: c.authenticationId } })).status === 400;
  },
  'update-unknown-case-accepted': async (api) =>
    (await api.op('caseUpdate', { body: { inquiryId: 'inq-x', authenticationId: 'no-such-case' } })).status === 404,
  'update-inquiry-unchecked': async (api) => {
    const [a, b] = [await api.newCase(), await api.newCase()];
    return (
      (await api.op('caseUpdate', { body: { inquiryId: b.inquiryId, authenticationId: a.authenticationId } }))
        .status === 400
    );
  },
  'update-valid-refused': async (api) => (await updateOf(api, {})).status === 200,
  'update-documents-refused': async (api) =>
    (await updateOf(api, { documents: [{ type: 'passport' }] })).status === 200,
  'update-decision-any': async (api) => (await updateOf(api, { decision: 'MAYBE' })).status === 400,
  'update-unknown-decision-drops-update': async (api) => {
    const c = await api.newCase();
    const reply = await api.op('caseUpdate', {
      body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, decision: 'ESCALATE', tags: ['kept-tag'] },
    });
    const tags = (await api.fetchCase(c.authenticationId)).body['tags'];
    return reply.status >= 400 || (Array.isArray(tags) && tags.includes('kept-tag'));
  },
  'update-decision-ignored': async (api) =>
    ((await decisionAfter(api, [{ decision: 'DENY' }])) as Body)['decision'] === 'DENY',
  'update-decision-reset': async (api) =>
    ((await decisionAfter(api, [{ decision: 'DENY' }, { tags: ['t'] }])) as Body)['decision'] === 'DENY',
  'update-body-array-unwrapped': async (api) => {
    const c = await api.newCase();
    return refused(
      await api.op('caseUpdate', { body: [{ inquiryId: c.inquiryId, authenticationId: c.authenticationId }] }),
    );
  },
  'update-tags-replaced': async (api) =>
    JSON.stringify(((await decisionAfter(api, [{ tags: ['a'] }, { tags: ['b'] }])) as Body)['tags']) === '["a","b"]',
  'update-agent-validated': async (api) => (await updateOf(api, { externalAgent: 'someone-else' })).status === 200,
  'update-unknown-queue-fails': async (api) => (await updateOf(api, { queue: 'no-such-queue' })).status === 200,
  'update-unknown-rejection-fails': async (api) => (await updateOf(api, { rejectionCode: 'R99' })).status === 200,
  'update-error-as-string': async (api) =>
    schemaIssues(schemaIdFor('case-update-response'), (await updateOf(api)).json).length === 0,
  'update-response-without-ids': async (api) => typeof (await updateOf(api)).body['authenticationId'] === 'string',
  'step-up-email-refused': async (api) => (await stepUpOf(api, { email: 'a@example.com' })).status === 200,
  'step-up-authentication-id-optional': async (api) => {
    const c = await api.newCase();
    return (await api.op('stepUp', { body: { inquiryId: c.inquiryId, phoneNumber: '+1555' } })).status === 400;
  },
  'step-up-unknown-case-accepted': async (api) =>
    (await api.op('stepUp', { body: { inquiryId: 'inq-x', authenticationId: 'no-such-case', phoneNumber: '+1555' } }))
      .status === 404,
  'step-up-inquiry-unchecked': async (api) =>
    (await stepUpOf(api, { inquiryId: 'inq-other', phoneNumber: '+1555' })).status === 400,
  'step-up-strategy-as-string': async (api) =>
    typeof (await stepUpOf(api, { phoneNumber: '+1555' })).body['strategy'] === 'object',
  'step-up-ids-swapped': async (api) => {
    const c = await api.newCase();
    const reply = await api.op('stepUp', {
      body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, phoneNumber: '+1555' },
    });
    return reply.body['inquiryId'] === c.inquiryId && reply.body['authenticationId'] === c.authenticationId;
  },
  'webhooks-never-sent': async (api) => (await docvEvents(api, 'document-onboarding')).length > 0,
  'webhook-onboarding-status-number': async (api) =>
    typeof (await docvEvents(api, 'document-onboarding'))[0]?.body['status'] === 'string',
  'webhook-results-ocr-string': async (api) =>
    typeof (await docvEvents(api, 'document-results'))[0]?.body['ocr'] === 'object',
  'webhook-results-wrong-inquiry': async (api) => {
    const inquiryId = `inq-${randomUUID()}`;
    const [event] = await eventsOf(api, 'document-results', (a) =>
      a.op('documentVerification', { body: { inquiryId } }),
    );
    return event?.body['inquiryId'] === inquiryId;
  },
  'webhook-session-missing-session-id': sessionEventValid,
  'webhook-int64-as-number': sessionEventValid,
  'webhook-status-outside-enum': sessionEventValid,
  'webhook-resend-outside-enum': sessionEventValid,
  'webhook-mfa-outside-enum': sessionEventValid,
  'webhook-channel-outside-enum': sessionEventValid,
  'order-code-as-string': async (api) =>
    typeof (await api.order({ headers: { 'x-client-id': undefined } })).body['code'] === 'number',
  'order-code-differs': async (api) => {
    const body = validOrder();
    await api.order({ body });
    return isRow(await api.order({ body }), '409');
  },
  'order-401-unauthenticated': async (api) => isRow(await api.order({ headers: { authorization: undefined } }), '401'),
  'order-validation-without-prefix': async (api) =>
    String((await api.order({ body: validOrder({ fulfillment: [{ type: 'TELEPORT' }] }) })).body['message']).startsWith(
      orderErrorRow('400-validation').messagePrefix ?? '?',
    ),
  'order-fulfillment-unchecked': async (api) =>
    isRow(await api.order({ body: validOrder({ fulfillment: [{ type: 'TELEPORT' }] }) }), '400-validation'),
  'order-in-person-refused': async (api) =>
    (await api.order({ body: validOrder({ fulfillment: [{ type: 'IN_PERSON' }] }) })).status === 200,
  'order-correlation-optional': async (api) =>
    isRow(await api.order({ headers: { 'x-correlation-id': undefined } }), '400-other'),
  'order-client-id-optional': async (api) =>
    isRow(await api.order({ headers: { 'x-client-id': undefined } }), '400-other'),
  'order-malformed-500': async (api) => isRow(await api.order({ raw: '{"merchantOrderId"' }), '400-other'),
  'order-expired-accepted': async (api) =>
    isRow(await api.order({ headers: { authorization: `Bearer ${api.env['ORDERS_EXPIRED_TOKEN']}` } }), '401'),
  'order-entitlements-unchecked': async (api) =>
    isRow(await api.order({ apiKey: api.env['ORDERS_NO_ENTITLEMENT_API_KEY'] ?? '' }), '403'),
  'order-404-not-found-type': async (api) => isRow(await api.order({ headers: { 'x-sandbox-respond': '404' } }), '404'),
  'order-duplicate-400': async (api) => {
    const body = validOrder();
    await api.order({ body });
    return (await api.order({ body })).status === 409;
  },
  'order-500-server-error-type': async (api) =>
    isRow(await api.order({ headers: { 'x-sandbox-respond': '500' } }), '500'),
  'order-503-service-unavailable-type': async (api) =>
    isRow(await api.order({ headers: { 'x-sandbox-respond': '503' } }), '503'),
  'token-secret-unchecked': async (api) =>
    (await api.requestToken('identity', { apiKey: Buffer.from('sandbox-client:not-its-secret').toString('base64') }))
      .status === 401,
  'bearer-bare-token-accepted': async (api) =>
    (await callWith(api, 'assessment', { authorization: await api.token('identity') })).status === 401,
  'update-null-inquiry-accepted': async (api) => {
    const c = await api.newCase();
    return refused(await api.op('caseUpdate', { body: { inquiryId: null, authenticationId: c.authenticationId } }));
  },
  'step-up-null-authentication-id-accepted': async (api) => {
    const c = await api.newCase();
    return refused(
      await api.op('stepUp', { body: { inquiryId: c.inquiryId, authenticationId: null, phoneNumber: '+15555550100' } }),
    );
  },
  'assessment-co-applicant-needs-applicant': async (api) =>
    accepted(
      await api.op('assessment', { body: { strategy: 'default', inquiryId: `inq-${randomUUID()}`, coApplicant: {} } }),
    ),
  'docv-images-need-applicant': async (api) => accepted(await api.op('documentVerification', { body: { images: {} } })),
  'update-rejection-needs-decision': async (api) => accepted(await updateOf(api, { rejectionCode: 'R01' })),
  'step-up-images-need-phone': async (api) => accepted(await stepUpOf(api, { images: {} })),
  'update-notes-resets-decision': async (api) =>
    ((await decisionAfter(api, [{ decision: 'DENY' }, { notes: 'n' }])) as Body)['decision'] === 'DENY',
  'update-tags-dropped-with-decision': async (api) =>
    JSON.stringify(((await decisionAfter(api, [{ decision: 'DENY', tags: ['a'] }])) as Body)['tags']) === '["a"]',
  'update-decision-clears-tags': async (api) =>
    JSON.stringify(((await decisionAfter(api, [{ tags: ['a'] }, { decision: 'DENY' }])) as Body)['tags']) === '["a"]',
  'fetch-tags-never-caught-up': async (api) =>
    JSON.stringify(((await decisionAfter(api, [{ tags: ['a'] }])) as Body)['tags']) === '["a"]',
  // Values of one class (docs/traffic.md): each comes back as it was sent.
  'assessment-inquiry-nfc': async (api) => {
    const inquiryId = `inq-Nguyễn-${randomUUID()}`.normalize('NFD');
    return (await api.op('assessment', { body: { strategy: 'default', inquiryId } })).body['inquiryId'] === inquiryId;
  },
  'fetch-inquiry-lower-cased': async (api) => {
    const inquiryId = `Inq-MiXed-${randomUUID()}`;
    const created = await api.op('assessment', { body: { strategy: 'default', inquiryId } });
    return (await api.fetchCase(String(created.body['authenticationId']))).body['inquiryId'] === inquiryId;
  },
  'docv-inquiry-cut-at-255': async (api) => {
    const inquiryId = `inq-${randomUUID()}-`.padEnd(300, 'x');
    return (await api.op('documentVerification', { body: { inquiryId } })).body['inquiryId'] === inquiryId;
  },
  'assessment-astral-inquiry-500': async (api) =>
    accepted(await api.op('assessment', { body: { strategy: 'default', inquiryId: `inq-\u{1F600}-${randomUUID()}` } })),
  'update-tags-cut-at-255': async (api) => tagsKept(api, ['t'.repeat(300)]),
  'update-tags-astral-replaced': async (api) => tagsKept(api, ['tag-\u{1F600}-\u{20BB7}']),
  'update-tags-unescaped-twice': async (api) => tagsKept(api, ['C:\\new\\u0041']),
  'update-tags-lower-cased': async (api) => tagsKept(api, ['Tag-MiXed']),
  'update-tags-spaces-collapsed': async (api) => tagsKept(api, ['two  spaces']),
  'case-tags-capped-at-100': async (api) =>
    tagsKept(
      api,
      Array.from({ length: 101 }, (_, i) => `tag-${i}`),
    ),
  'update-long-tag-refused-after-append': async (api) => {
    const c = await api.newCase();
    const tags = ['x'.repeat(1100), 'short-tag'];
    const reply = await api.op('caseUpdate', {
      body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, tags },
    });
    const shown = (await api.fetchCase(c.authenticationId)).body['tags'] as string[];
    return accepted(reply) || !shown.includes('short-tag');
  },
  'records-of-latest-session': async (api) => {
    const first = await api.newCase();
    await api.op('documentVerification', { body: { inquiryId: first.inquiryId } });
    await api.op('documentVerification', { body: { inquiryId: `inq-${randomUUID()}` } });
    return (
      (await api.op('documentRecords', { params: { authenticationId: first.authenticationId } })).body[
        'authenticationId'
      ] === first.authenticationId
    );
  },
  'update-answers-latest-case': async (api) => {
    const first = await api.newCase();
    await api.newCase();
    return (
      (await api.op('caseUpdate', { body: { inquiryId: first.inquiryId, authenticationId: first.authenticationId } }))
        .body['authenticationId'] === first.authenticationId
    );
  },
  'step-up-answers-latest-case': async (api) => {
    const first = await api.newCase();
    await api.newCase();
    return (
      (
        await api.op('stepUp', {
          body: { inquiryId: first.inquiryId, authenticationId: first.authenticationId, phoneNumber: '+15555550100' },
        })
      ).body['authenticationId'] === first.authenticationId
    );
  },
  'decision-dotless-i': async (api) =>
    ((await decisionAfter(api, [{ decision: 'REVIEW' }])) as Body)['decision'] === 'REVIEW',
  'decision-mixed-case': async (api) =>
    ((await decisionAfter(api, [{ decision: 'DENY' }])) as Body)['decision'] === 'DENY',
  'webhook-onboarding-without-session-id': async (api) =>
    typeof (await docvEvents(api, 'document-onboarding'))[0]?.body['sessionId'] === 'string',
  'webhook-form-encoded-onboarding': async (api) =>
    (await docvEvents(api, 'document-onboarding'))[0]?.headers['content-type'] === 'application/json',
  'webhook-session-redelivered-not-sent': async (api) => {
    const events = await eventsOf(api, 'verification-session', async (a) => {
      await stepUpOf(a, { phoneNumber: '+15555550100' });
      await stepUpOf(a, { email: 'a@example.com' });
    });
    return events.length === 2 && events[0]?.body['sessionId'] !== events[1]?.body['sessionId'];
  },
  'webhook-session-stale-replayed': async (api) => {
    const events = await eventsOf(api, 'verification-session', async (a) => {
      await stepUpOf(a, { phoneNumber: '+15555550100' });
      await stepUpOf(a, { email: 'a@example.com' });
    });
    const sessionIds = events.map((e) => e.body['sessionId']);
    return events.length === 2 && new Set(sessionIds).size === 2;
  },
  'webhook-results-never-sent': async (api) => (await docvEvents(api, 'document-results')).length > 0,
  'webhook-session-never-sent': async (api) =>
    (await eventsOf(api, 'verification-session', (a) => stepUpOf(a, { phoneNumber: '+15555550100' }))).length > 0,
  'update-foreign-inquiry-tags-kept': async (api) => {
    const [a, b] = [await api.newCase(), await api.newCase()];
    await api.op('caseUpdate', {
      body: { inquiryId: b.inquiryId, authenticationId: a.authenticationId, tags: ['refused'] },
    });
    return JSON.stringify((await api.fetchCase(a.authenticationId)).body['tags']) === '[]';
  },
  'update-required-missing-applied': async (api) => {
    const c = await api.newCase();
    await api.op('caseUpdate', { body: { authenticationId: c.authenticationId, decision: 'DENY', tags: ['refused'] } });
    const fetched = (await api.fetchCase(c.authenticationId)).body;
    return fetched['decision'] !== 'DENY' && JSON.stringify(fetched['tags']) === '[]';
  },
  'update-tags-lost-concurrent': async (api) => {
    const c = await api.newCase();
    await Promise.all(
      ['a', 'b'].map((tag) =>
        api.op('caseUpdate', { body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, tags: [tag] } }),
      ),
    );
    return (
      JSON.stringify([...((await api.fetchCase(c.authenticationId)).body['tags'] as string[])].sort()) === '["a","b"]'
    );
  },
  'order-duplicate-race': async (api) => {
    const body = validOrder();
    const answers = await Promise.all([api.order({ body }), api.order({ body })]);
    return answers.filter(accepted).length === 1;
  },
  'order-refused-id-reserved': async (api) => {
    const body = validOrder();
    await api.order({ body: { ...body, fulfillment: [{ type: 'SHIPPING' }] } });
    return accepted(await api.order({ body }));
  },

  'header-names-case-sensitive': async (api) =>
    accepted(
      await api.op('assessment', { ...(await validCall(api, 'assessment')), headerCase: capitalisedHeaderName }),
    ),
  'json-charset-refused': async (api) =>
    accepted(
      await api.op('assessment', {
        ...(await validCall(api, 'assessment')),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      }),
    ),
  'token-basic-scheme-case-sensitive': async (api) =>
    (await api.requestToken('identity', { authorization: `basic ${api.env['API_KEY']}` })).status === 200,
  'unparsable-body-500': async (api) =>
    (await api.op('assessment', { raw: '{"strategy": "default", "inq' })).status === 400,
};

/** Faults whose behaviour differs by flavor are checked in both. */
const checkedInBothFlavors: readonly string[] = [
  'bearer-signature-unchecked',
  'bearer-expiry-unchecked',
  'webhook-mfa-outside-enum',
  'order-expired-accepted',
];

/** The probe of a fault: its own, or its family's for its place. */
function probeOf(f: Fault): Conforms {
  const probe = f.family && f.place ? familyProbes[f.family]?.(f.place) : faultChecks[f.id as FaultId];
  if (!probe) throw new Error(`No probe for the fault ${f.id}`);
  return probe;
}

test.describe('sandbox: faults', () => {
  test('every fault names an existing requirement, once, and is checked in sandbox code', () => {
    const source = readdirSync(new URL('../sandbox/', import.meta.url))
      .filter((f) => f.endsWith('.ts') && f !== 'faults.ts')
      .map((f) => readFileSync(new URL(`../sandbox/${f}`, import.meta.url), 'utf8'))
      .join('\n');
    expect(new Set(faults.map((f) => f.id)).size).toBe(faults.length);
    for (const f of faults) {
      expect(isRequirementId(f.requirement), `${f.id} -> ${f.requirement}`).toBe(true);
      expect(
        source.includes(`'${f.family ?? f.id}'`),
        `${f.family ?? f.id} is named in sandbox code, where it changes a behaviour`,
      ).toBe(true);
    }
    expect(Object.keys(faultChecks).sort()).toEqual(
      faults
        .filter((f) => !f.family)
        .map((f) => f.id)
        .sort(),
    );
    expect(Object.keys(familyProbes).sort()).toEqual(
      [...new Set(faults.flatMap((f) => (f.family ? [f.family] : [])))].sort(),
    );
  });

  for (const f of faults) {
    const flavorsToCheck: readonly Flavor[] = checkedInBothFlavors.includes(f.family ?? f.id)
      ? bothFlavors
      : ['reference'];
    test(`${f.id} breaks ${f.requirement}${f.place ? ` on ${f.place}` : ''}`, async () => {
      const check = probeOf(f);
      for (const flavor of flavorsToCheck) {
        const clean = await withSandbox({ flavor }, check);
        expect(clean, `${flavor}: the clean sandbox conforms to ${f.requirement}`).toBe(true);
        const broken = await withSandbox({ flavor, faults: [f.id] }, check);
        expect(broken, `${flavor}: with ${f.id} the sandbox no longer conforms to ${f.requirement}`).toBe(false);
      }
    });
  }
});
