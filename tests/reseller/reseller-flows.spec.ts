import { expectAccepted } from '../../kit/checks/responses.ts';
import {
  caseUpdate,
  fullDocumentVerification,
  minimalAssessment,
  stepUp,
  type BodyContext,
} from '../../kit/builders/identity-bodies.ts';
import type { Api } from '../../kit/api.ts';
import type { SuiteConfig } from '../../kit/config/suite-config.ts';
import type { Reseller } from '../../fixtures/test.ts';
import type { Exchange } from '../../kit/http/exchange.ts';
import type { Place } from '../../catalog/catalog.ts';
import type { Preconditions } from '../../fixtures/preconditions.ts';
import type { Verdict } from '../../kit/verdict.ts';
import { cites, test } from '../../fixtures/test.ts';

interface FlowContext {
  api: Api;
  newCase: Preconditions['newCase'];
  recordsToRead: Preconditions['recordsToRead'];
  verdict: Verdict;
  config: SuiteConfig;
  data: BodyContext;
  reseller: Reseller;
}

const resellerCase = ({ newCase, reseller }: FlowContext) =>
  newCase({ asReseller: true, extra: { sharedContext: reseller.sharedContext } });

const flows: ReadonlyArray<{ name: string; id: string; on: Place; run: (ctx: FlowContext) => Promise<Exchange> }> = [
  {
    name: 'assessment with sharedContext',
    id: 'RES-SHARED-CONTEXT',
    on: 'assessment',
    run: ({ api, config, data, reseller }) =>
      api.call('assessment', {
        asReseller: true,
        body: { ...minimalAssessment(data, config.strategies.assessment), sharedContext: reseller.sharedContext },
      }),
  },
  {
    name: 'document verification with sharedContext',
    id: 'RES-SHARED-CONTEXT',
    on: 'documentVerification',
    run: async (ctx) => {
      const ref = await resellerCase(ctx);
      const body = {
        ...fullDocumentVerification(ctx.data, ctx.config.strategies.documentVerification, ref.inquiryId),
        sharedContext: ctx.reseller.sharedContext,
      };
      return ctx.api.call('documentVerification', { asReseller: true, body });
    },
  },
  {
    name: 'case update with sharedContext',
    id: 'RES-SHARED-CONTEXT',
    on: 'caseUpdate',
    run: async (ctx) => {
      const ref = await resellerCase(ctx);
      return ctx.api.call('caseUpdate', {
        asReseller: true,
        body: caseUpdate(ref, { notes: ctx.data.faker.lorem.sentence(), sharedContext: ctx.reseller.sharedContext }),
      });
    },
  },
  {
    name: 'step-up with sharedContext',
    id: 'RES-SHARED-CONTEXT',
    on: 'stepUp',
    run: async (ctx) => {
      const ref = await resellerCase(ctx);
      return ctx.api.call('stepUp', {
        asReseller: true,
        body: { ...stepUp(ctx.data, ref, 'phone'), sharedContext: ctx.reseller.sharedContext },
      });
    },
  },
  {
    name: 'document records fetch with x-source-client-id',
    id: 'DOCR-SOURCE-CLIENT-ID',
    on: 'documentRecords',
    run: async (ctx) => {
      const { recordsPathId } = await ctx.recordsToRead({ asReseller: true });
      return ctx.api.call('documentRecords', {
        asReseller: true,
        pathParams: { authenticationId: recordsPathId },
        set: { 'x-source-client-id': ctx.reseller.sourceClientId },
      });
    },
  },
];

for (const flow of flows) {
  test(
    ...cites([flow.id], `a reseller acting for a child organisation succeeds: ${flow.name}`, { on: flow.on }),
    async ({ api, newCase, recordsToRead, verdict, config, data, reseller }) => {
      const exchange = await flow.run({ api, newCase, recordsToRead, verdict, config, data, reseller });
      expectAccepted(verdict, flow.id, exchange);
    },
  );
}
