import { orderErrorRow } from '../../catalog/catalog.ts';
import { expectErrorEnvelope } from '../../kit/checks/order-envelope.ts';
import { newOrder } from '../../kit/builders/order-requests.ts';
import { citesWithEnvelope, envelopeRules, test } from '../../fixtures/orders.ts';
import { requireSuccess } from '../../fixtures/preconditions.ts';

test(
  ...citesWithEnvelope(['ORD-409'], 'creating an order whose identifier already exists is answered 409 client'),
  async ({ api, verdict, config, data }) => {
    const body = newOrder(config, data);
    const first = await api.call('createOrder', { body, note: 'a new order' });
    requireSuccess({ verdict, config }, first, 'a new order is created');
    const again = await api.call('createOrder', { body, note: 'the same order identifier again' });
    expectErrorEnvelope(verdict, envelopeRules, again, {
      id: 'ORD-409',
      row: '409',
      messages: orderErrorRow('409').messages ?? [],
    });
  },
);
