import { operation } from '../../catalog/catalog.ts';
import {
  fullDocumentVerification,
  minimalDocumentVerification,
  type BodyContext,
} from '../../kit/builders/identity-bodies.ts';
import { expectAccepted, expectEqual, expectJsonBody, expectSchema } from '../../kit/checks/responses.ts';
import { populate, populateContact } from '../../kit/builders/value-population.ts';
import { callPopulated } from '../../kit/populated-call.ts';
import { bodyOf } from '../../fixtures/preconditions.ts';
import { cites, test } from '../../fixtures/test.ts';

const docv = operation('documentVerification');

// The full request carries an unusual but valid phone number, the other an inquiryId of a class drawn by the seed.
const requests = [
  {
    name: 'every field of 2.3',
    build: fullDocumentVerification,
    populate: (data: BodyContext, body: Record<string, unknown>) => populateContact(data, body, 'phoneNumber'),
  },
  {
    name: 'strategy and inquiryId only',
    build: minimalDocumentVerification,
    populate: (data: BodyContext, body: Record<string, unknown>) => populate(data, body, ['inquiryId']),
  },
] as const;

for (const variant of requests) {
  test(
    ...cites(
      [
        'DOCV-ACCEPTED',
        'GEN-JSON-RESPONSE',
        'DOCV-RES-SCHEMA',
        'DOCV-RES-INQUIRY',
        'OBS-SUCCESS-STATUS',
        'OBS-VALUE-CLASSES',
      ],
      `a document verification is started: ${variant.name}`,
      { on: 'documentVerification' },
    ),
    async ({ api, verdict, config, data }) => {
      const populated = variant.populate(data, variant.build(data, config.strategies.documentVerification));
      const { exchange, body } = await callPopulated({ api, verdict }, 'documentVerification', populated);
      expectAccepted(verdict, 'DOCV-ACCEPTED', exchange);
      verdict.observe('OBS-SUCCESS-STATUS', `${docv.id} answered ${exchange.status}`);
      expectJsonBody(verdict, 'GEN-JSON-RESPONSE', exchange);
      expectSchema(verdict, 'DOCV-RES-SCHEMA', docv.responseSchema as string, exchange.json, exchange);
      expectEqual(verdict, 'DOCV-RES-INQUIRY', 'inquiryId', bodyOf(exchange).inquiryId, body.inquiryId, exchange);
    },
  );
}
