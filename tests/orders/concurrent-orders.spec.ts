import { orderErrorRow } from '../../catalog/catalog.ts';
import { expectAtMostOneAccepted } from '../../kit/checks/responses.ts';
import { expectErrorEnvelope } from '../../kit/checks/order-envelope.ts';
import { order, orderId } from '../../kit/builders/order-bodies.ts';
import { concurrentRounds, roundsText } from '../../kit/concurrency.ts';
import { citesWithEnvelope, envelopeRules, test } from '../../fixtures/orders.ts';
import { accepted, refused } from '../../kit/http/consequence.ts';

test(
  ...citesWithEnvelope(
    ['ORD-409'],
    'of orders with one identifier sent at once, each on its own connection, at most one is created and the others are answered 409 client',
  ),
  async ({ api, verdict, config, data }) => {
    const { rounds, calls } = config.concurrency;
    if (rounds === 0) verdict.notConfigured('CONCURRENCY_ROUNDS is 0: no calls are sent at once');
    const report = await concurrentRounds({
      rounds,
      play: async () => {
        const id = orderId(data.faker, data.runTag);
        const answers = await api.callAtOnce(
          Array.from({ length: calls }, () => ({
            id: 'createOrder' as const,
            options: {
              body: order(config.orders, id),
              note: `one of ${calls} orders with the identifier ${id} sent at once`,
            },
          })),
        );
        return { answers, context: id };
      },
      judge: async (exchanges, id) => {
        expectAtMostOneAccepted(verdict, 'ORD-409', exchanges, `orders with the identifier ${id}`);
        const created = exchanges.filter(accepted);
        // Once one was created, every other order with its identifier names a resource that already exists. 5xx
        // answers are judged by the envelope rules alone (fixtures/orders.ts).
        if (created.length !== 1) return;
        for (const exchange of exchanges.filter(refused))
          expectErrorEnvelope(verdict, envelopeRules, exchange, {
            id: 'ORD-409',
            row: '409',
            messages: orderErrorRow('409').messages ?? [],
          });
      },
    });
    test.info().annotations.push({ type: 'concurrency', description: roundsText(report, calls) });
    if (report.judged === 0)
      verdict.nothingToJudge(['ORD-409'], `no round could be judged: ${roundsText(report, calls)}`);
  },
);
