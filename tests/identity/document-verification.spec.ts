import { operation } from '../../catalog/catalog.ts';
import { fullDocumentVerification, minimalDocumentVerification } from '../../kit/builders/identity-bodies.ts';
import { expectAccepted, expectEqual, expectJsonBody, expectSchema } from '../../kit/checks/responses.ts';
import { bodyOf } from '../../fixtures/preconditions.ts';
import { cites, test } from '../../fixtures/test.ts';

const docv = operation('documentVerification');

const requests = [
  { name: 'every field of 2.3', build: fullDocumentVerification },
  { name: 'strategy and inquiryId only', build: minimalDocumentVerification },
] as const;

for (const variant of requests) {
  test(
    ...cites(
      ['DOCV-ACCEPTED', 'GEN-JSON-RESPONSE', 'DOCV-RES-SCHEMA', 'DOCV-RES-INQUIRY', 'OBS-SUCCESS-STATUS'],
      `a document verification is started: ${variant.name}`,
      { on: 'documentVerification' },
    ),
    async ({ api, verdict, config, data }) => {
      const body = variant.build(data, config.strategies.documentVerification);
      const exchange = await api.call('documentVerification', { body });
      expectAccepted(verdict, 'DOCV-ACCEPTED', exchange);
      verdict.observe('OBS-SUCCESS-STATUS', `${docv.id} answered ${exchange.status}`);
      expectJsonBody(verdict, 'GEN-JSON-RESPONSE', exchange);
      expectSchema(verdict, 'DOCV-RES-SCHEMA', docv.responseSchema as string, exchange.json, exchange);
      expectEqual(verdict, 'DOCV-RES-INQUIRY', 'inquiryId', bodyOf(exchange).inquiryId, body.inquiryId, exchange);
    },
  );
}
