import { operation } from '../../catalog/catalog.ts';
import { documentVerification, minimalDocumentVerification } from '../../harness/builders/identity-bodies.ts';
import { expectAccepted, expectEqual, expectJsonBody, expectRefused, expectSchema } from '../../harness/checks/responses.ts';
import { bodyOf } from '../../fixtures/preconditions.ts';
import { cites, test } from '../../fixtures/test.ts';

const docv = operation('documentVerification');

const requests = [
  { name: 'every field of 2.3', build: documentVerification },
  { name: 'strategy and inquiryId only', build: minimalDocumentVerification },
] as const;

for (const variant of requests) {
  test(
    ...cites(['DOCV-ACCEPTED', 'GEN-JSON-RESPONSE', 'DOCV-RES-SCHEMA', 'DOCV-RES-INQUIRY', 'OBS-SUCCESS-STATUS'], `a document verification is started: ${variant.name}`),
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

/** One field of 2.3 in a JSON type other than the one it states; the rest of the request is valid. */
const wrongTypes: Array<{ field: string; type: string; value: unknown }> = [
  { field: 'inquiryId', type: 'a number', value: 1234567 },
  { field: 'strategy', type: 'a number', value: 42 },
  { field: 'phoneNumber', type: 'a number', value: 15_551_234_567 },
  { field: 'images', type: 'a string', value: 'aW1hZ2U=' },
  { field: 'applicant', type: 'a string', value: 'Jane Sample' },
  { field: 'customFields', type: 'an array', value: ['source'] },
  { field: 'sharedContext', type: 'a string', value: 'child-organization' },
];

for (const variant of wrongTypes) {
  test(...cites(['DOCV-REQ-TYPES'], `a document verification with ${variant.field} as ${variant.type} is refused`), async ({ api, verdict, config, data }) => {
    const body = { ...documentVerification(data, config.strategies.documentVerification), [variant.field]: variant.value };
    const exchange = await api.call('documentVerification', { body, note: `${variant.field} as ${variant.type}` });
    expectRefused(verdict, 'DOCV-REQ-TYPES', exchange);
  });
}
