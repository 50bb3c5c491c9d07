import { expectAccepted } from '../../kit/checks/responses.ts';
import { expectErrorEnvelope } from '../../kit/checks/order-envelope.ts';
import { order, orderId } from '../../kit/builders/order-bodies.ts';
import { newOrder } from '../../kit/builders/order-requests.ts';
import { citesWithEnvelope, envelopeRules, test } from '../../fixtures/orders.ts';
import { requireSuccess } from '../../fixtures/preconditions.ts';
import { enumValues } from '../../schemas/registry.ts';
import { refused as isRefused } from '../../kit/http/consequence.ts';

const outsideTheList = 'SHIPPING';
if (enumValues('FulfillmentType').includes(outsideTheList))
  throw new Error(`${outsideTheList} is an allowed fulfillment type; it cannot be refused for validation`);

test(
  ...citesWithEnvelope(
    ['ORD-400-VALIDATION', 'ORD-REFUSED-ID-FREE'],
    'an order refused for validation leaves its identifier free: a valid order with that identifier afterwards is created, not answered 409',
  ),
  async ({ api, verdict, config, data }) => {
    const id = orderId(data.faker, data.runTag);
    const [control, refused] = await Promise.all([
      api.call('createOrder', { body: newOrder(config, data), note: 'control: a valid order with a fresh identifier' }),
      api.call('createOrder', {
        body: order(config.orders, id, outsideTheList),
        note: `fulfillment type ${outsideTheList}, outside the list`,
      }),
    ]);
    requireSuccess({ verdict, config }, control, 'a valid order is created');
    expectErrorEnvelope(verdict, envelopeRules, refused, { id: 'ORD-400-VALIDATION', row: '400-validation' });
    if (!isRefused(refused)) {
      // Accepted, the order exists and its identifier is taken: ORD-400-VALIDATION has judged the acceptance.
      return verdict.nothingToJudge(
        ['ORD-REFUSED-ID-FREE'],
        `the order with a fulfillment type outside the list was answered ${refused.status}, not refused`,
      );
    }
    const valid = await api.call('createOrder', {
      body: order(config.orders, id),
      note: 'the refused identifier, now in a valid order',
    });
    expectAccepted(verdict, 'ORD-REFUSED-ID-FREE', valid);
  },
);
