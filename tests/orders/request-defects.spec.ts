import { orderErrorTable } from '../../catalog/catalog.ts';
import { expectErrorEnvelope, messageNamingHeader } from '../../kit/checks/order-envelope.ts';
import { newOrder } from '../../kit/builders/order-requests.ts';
import { cites, citesWithEnvelope, envelopeRules, test } from '../../fixtures/orders.ts';

const missingHeaders = [
  { header: 'x-correlation-id', id: 'ORD-400-CORRELATION' },
  { header: 'x-client-id', id: 'ORD-400-CLIENT-ID' },
] as const;

for (const { header, id } of missingHeaders) {
  test(
    ...citesWithEnvelope([id], `an order request without ${header} is answered 400 with the table's message for it`),
    async ({ api, verdict, config, data }) => {
      const exchange = await api.call('createOrder', { body: newOrder(config, data), omit: [header] });
      expectErrorEnvelope(verdict, envelopeRules, exchange, {
        id,
        row: '400-other',
        messages: [messageNamingHeader('400-other', header)],
      });
    },
  );
}

const badRequestRows = orderErrorTable.filter((row) => row.status === 400).map((row) => row.row);

const malformedBodies = [
  { name: 'cut off halfway', text: (json: string) => json.slice(0, Math.floor(json.length / 2)) },
  { name: 'a trailing comma', text: (json: string) => `${json.slice(0, -1)},}` },
  { name: 'single-quoted strings', text: (json: string) => json.replace(/"/g, "'") },
] as const;

for (const variant of malformedBodies) {
  test(
    ...citesWithEnvelope(
      ['ORD-400-MALFORMED'],
      `an order body that is not well-formed JSON is answered with a 400 of the table: ${variant.name}`,
    ),
    async ({ api, verdict, config, data }) => {
      const exchange = await api.call('createOrder', {
        rawBody: variant.text(JSON.stringify(newOrder(config, data))),
        note: `body with ${variant.name}`,
      });
      expectErrorEnvelope(verdict, envelopeRules, exchange, { id: 'ORD-400-MALFORMED', row: badRequestRows });
    },
  );
}

test(
  ...cites(['ORD-400-UPDATE-ORDER-ID'], 'the message for an order update without its identifier'),
  async ({ verdict }) => {
    const reason =
      'part 4.8 shows only POST /v2/orders; the order update operation (method and path) is not shown, so it cannot be sent';
    verdict.observe('ORD-400-UPDATE-ORDER-ID', reason);
  },
);
