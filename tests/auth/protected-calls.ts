import { operations } from '../../catalog/catalog.ts';
import type { CallOptions } from '../../fixtures/api.ts';
import { caseUpdate, documentVerification, minimalAssessment, stepUp, type CaseRef } from '../../fixtures/builders/identity-bodies.ts';
import type { RoutedOperationId } from '../../fixtures/config/load-config.ts';
import { bodyOf, createCase } from '../../fixtures/flows.ts';
import type { Exchange } from '../../fixtures/http/exchange.ts';
import { test as base, type TestFixtures, type WorkerFixtures } from '../../fixtures/test.ts';

/** The operations of 4.2 to 4.7: every operation of the two services. */
export const protectedOperations = operations.filter((op) => op.service !== 'orders').map((op) => op.id as RoutedOperationId);

type RequestParts = Pick<CallOptions, 'body' | 'pathParams'>;
type Context = Pick<TestFixtures, 'api' | 'verdict' | 'data'> & Pick<WorkerFixtures, 'config'>;

const succeeded = (exchange: Exchange) => exchange.status >= 200 && exchange.status < 300;

/** What the checks of one worker share: created once, reused by every test the worker runs (tests of a worker run one at a time). */
interface WorkerCases {
  existing?: CaseRef;
  withDocuments?: CaseRef;
  accepted: Set<RoutedOperationId>;
}

async function existingCase(ctx: Context, shared: WorkerCases): Promise<CaseRef> {
  if (!shared.existing) {
    const { inquiryId, authenticationId } = await createCase(ctx.api, ctx.verdict, ctx.config, ctx.data);
    shared.existing = { inquiryId, authenticationId };
  }
  return shared.existing;
}

/** A case with a document verification started for its inquiry, so that it has records (4.4) to fetch. */
async function caseWithDocuments(ctx: Context, shared: WorkerCases): Promise<CaseRef> {
  if (!shared.withDocuments) {
    const ref = await existingCase(ctx, shared);
    const started = await ctx.api.call('documentVerification', { body: documentVerification(ctx.data, ctx.config.strategies.documentVerification, ref.inquiryId) });
    ctx.verdict.precondition(succeeded(started), 'a document verification can be started for the case (4.3)', () => ({
      sent: ctx.verdict.sent(started),
      expected: 'success (2xx)',
      actual: ctx.verdict.answer(started),
    }));
    const answered = bodyOf(started).authenticationId;
    shared.withDocuments = typeof answered === 'string' && answered !== '' ? { inquiryId: ref.inquiryId, authenticationId: answered } : ref;
  }
  return shared.withDocuments;
}

const validParts: Record<RoutedOperationId, (ctx: Context, shared: WorkerCases) => Promise<RequestParts>> = {
  assessment: async ({ config, data }) => ({ body: minimalAssessment(data, config.strategies.assessment) }),
  documentVerification: async ({ config, data }) => ({ body: documentVerification(data, config.strategies.documentVerification) }),
  documentRecords: async (ctx, shared) => ({ pathParams: { authenticationId: (await caseWithDocuments(ctx, shared)).authenticationId } }),
  fetchAssessment: async (ctx, shared) => ({ pathParams: { caseId: (await existingCase(ctx, shared)).authenticationId } }),
  caseUpdate: async (ctx, shared) => ({ body: caseUpdate(await existingCase(ctx, shared)) }),
  stepUp: async (ctx, shared) => ({ body: stepUp(ctx.data, await existingCase(ctx, shared), 'phone', ctx.config.strategies.stepUp) }),
};

export const test = base.extend<
  {
    /**
     * The parts of a request to the operation that is valid in every respect but its Authorization header. The
     * first time in a worker, the same kind of request with a valid token is sent and must succeed, so that a
     * refusal can only come from the bearer defect (otherwise the checks are blocked, not passed).
     */
    validRequest: (id: RoutedOperationId) => Promise<RequestParts>;
  },
  { workerCases: WorkerCases }
>({
   
  workerCases: [async ({}, use) => use({ accepted: new Set() }), { scope: 'worker' }],
  validRequest: async ({ api, verdict, data, config, workerCases }, use) => {
    const ctx = { api, verdict, data, config };
    await use(async (id) => {
      if (!workerCases.accepted.has(id)) {
        const control = await api.call(id, { ...(await validParts[id](ctx, workerCases)), note: 'control: a valid bearer token' });
        verdict.precondition(succeeded(control), `${id} accepts the request with a valid bearer token`, () => ({
          sent: verdict.sent(control),
          expected: 'success (2xx)',
          actual: verdict.answer(control),
        }));
        workerCases.accepted.add(id);
      }
      return validParts[id](ctx, workerCases);
    });
  },
});
