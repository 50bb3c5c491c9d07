import type { OperationId } from '../../catalog/catalog.ts';
import type { Api, CallOptions } from '../../fixtures/api.ts';
import { caseUpdate, inquiryId, minimalAssessment, type BodyContext, type CaseRef } from '../../fixtures/builders/identity-bodies.ts';
import type { SuiteConfig } from '../../fixtures/config/load-config.ts';
import { bodyOf, createCase } from '../../fixtures/flows.ts';
import type { Exchange } from '../../fixtures/http/exchange.ts';
import type { Verdict } from '../../fixtures/verdict.ts';

export interface CheckContext {
  api: Api;
  verdict: Verdict;
  config: SuiteConfig;
  data: BodyContext;
}

const succeeded = (exchange: Exchange) => exchange.status >= 200 && exchange.status < 300;

/**
 * A document verification request (2.3) naming only the strategy and the inquiry. Checks of other operations stand on
 * it rather than on the full request, so that a server refusing one optional field blocks only the checks about it.
 */
export function minimalDocumentVerification(ctx: BodyContext, strategy: string, forInquiry?: string) {
  return { strategy, inquiryId: forInquiry ?? inquiryId(ctx) };
}

async function startVerification(ctx: CheckContext, body: Record<string, unknown>, asReseller: boolean): Promise<Exchange> {
  const { api, verdict, config } = ctx;
  const sent = asReseller && config.reseller ? { ...body, sharedContext: config.reseller.sharedContext } : body;
  const exchange = await api.call('documentVerification', { body: sent, ...(asReseller ? { asReseller: true } : {}) });
  verdict.precondition(succeeded(exchange), 'a document verification can be started (4.3)', () => ({
    sent: verdict.sent(exchange),
    expected: 'success (2xx)',
    actual: verdict.answer(exchange),
  }));
  return exchange;
}

/**
 * Starts a document verification (4.3) and names the case whose records 4.4 fetches. The response of 2.3 need not
 * carry an authenticationId; without one, the verification is started again for a case created by an assessment
 * (linked through its inquiryId, the only link 2.3 offers) and that case's identifier is used.
 */
export async function startDocumentSession(ctx: CheckContext, options: { asReseller?: boolean } = {}): Promise<CaseRef> {
  const { config, data } = ctx;
  const asReseller = options.asReseller ?? false;
  const body = minimalDocumentVerification(data, config.strategies.documentVerification);
  const started = await startVerification(ctx, body, asReseller);
  const authenticationId = bodyOf(started).authenticationId;
  if (typeof authenticationId === 'string' && authenticationId !== '') return { inquiryId: body.inquiryId, authenticationId };
  const ref = await createCase(ctx.api, ctx.verdict, config, data, { asReseller });
  await startVerification(ctx, minimalDocumentVerification(data, config.strategies.documentVerification, ref.inquiryId), asReseller);
  return { inquiryId: ref.inquiryId, authenticationId: ref.authenticationId };
}

/** The identity operations whose mandatory headers these checks cover (4.2, 4.3, 4.4, 4.6). */
export type HeaderCheckedOperation = Extract<OperationId, 'assessment' | 'documentVerification' | 'documentRecords' | 'caseUpdate'>;

/** A request to the operation that is valid in every part but its headers, with what it stands on already created. */
export const validRequest: Record<HeaderCheckedOperation, (ctx: CheckContext) => Promise<Pick<CallOptions, 'body' | 'pathParams'>>> = {
  assessment: async ({ config, data }) => ({ body: minimalAssessment(data, config.strategies.assessment) }),
  documentVerification: async ({ config, data }) => ({ body: minimalDocumentVerification(data, config.strategies.documentVerification) }),
  documentRecords: async (ctx) => ({ pathParams: { authenticationId: (await startDocumentSession(ctx)).authenticationId } }),
  caseUpdate: async (ctx) => ({ body: caseUpdate(await createCase(ctx.api, ctx.verdict, ctx.config, ctx.data)) }),
};
