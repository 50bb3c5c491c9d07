import { expectErrorEnvelope, expectNotValidationError, isValidationError } from '../../kit/checks/order-envelope.ts';
import { newOrder } from '../../kit/builders/order-requests.ts';
import { cites, citesWithEnvelope, envelopeRules, test } from '../../fixtures/orders.ts';
import { enumValues } from '../../schemas/registry.ts';

const allowedTypes = enumValues('FulfillmentType');

const outsideTheList = [
  { name: 'near miss "SHIPPING"', value: 'SHIPPING' },
  { name: `lower case "${allowedTypes[0]?.toLowerCase()}"`, value: allowedTypes[0]?.toLowerCase() },
  { name: 'empty string', value: '' },
  { name: 'the number 7', value: 7 },
] as const;
for (const variant of outsideTheList) {
  if (allowedTypes.includes(variant.value as string))
    throw new Error(`${variant.name} is an allowed fulfillment type; it cannot test ORD-400-VALIDATION`);
}

for (const variant of outsideTheList) {
  test(
    ...citesWithEnvelope(
      ['ORD-400-VALIDATION'],
      `a fulfillment type outside the allowed list is answered 400 validation: ${variant.name}`,
    ),
    async ({ api, verdict, config, data }) => {
      const exchange = await api.call('createOrder', {
        body: newOrder(config, data, variant.value),
        note: `fulfillment type ${JSON.stringify(variant.value)}`,
      });
      expectErrorEnvelope(verdict, envelopeRules, exchange, { id: 'ORD-400-VALIDATION', row: '400-validation' });
    },
  );
}

// null is an unset field to the proto3 JSON mapping: a server may default it, as it may treat an order without the type.
test(
  ...cites(['ORD-FULFILLMENT-NULL'], 'an order whose fulfillment type is null: the answer is observed'),
  async ({ api, verdict, config, data }) => {
    const exchange = await api.call('createOrder', {
      body: newOrder(config, data, null),
      note: 'fulfillment type null',
    });
    verdict.observe(
      'ORD-FULFILLMENT-NULL',
      `answered ${exchange.status}${isValidationError(exchange) ? ' (400 validation)' : ''}`,
    );
  },
);

for (const type of allowedTypes) {
  test(
    ...cites(['ORD-FULFILLMENT-ALLOWED'], `an allowed fulfillment type is not a validation error: ${type}`),
    async ({ api, verdict, config, data }) => {
      const exchange = await api.call('createOrder', {
        body: newOrder(config, data, type),
        note: `fulfillment type ${type}`,
      });
      expectNotValidationError(verdict, 'ORD-FULFILLMENT-ALLOWED', exchange, `the allowed type ${type}`);
    },
  );
}
