import { expectErrorEnvelope } from '../../kit/checks/order-envelope.ts';
import { newOrder, triggeredOrder } from '../../kit/builders/order-requests.ts';
import { citesWithEnvelope, envelopeRules, test } from '../../fixtures/orders.ts';

/** Rows a correct target answers only when something behind it fails; the configured triggers make it happen. */
const inducedRows = [
  { status: '404', id: 'ORD-404', why: 'a downstream resource that cannot be found' },
  { status: '500', id: 'ORD-500', why: 'an unspecified internal error' },
  { status: '503', id: 'ORD-503', why: 'an offline downstream service' },
] as const;

for (const row of inducedRows) {
  const ids = row.status === '503' ? [row.id, 'ORD-RETRY-OBSERVED'] : [row.id];
  test(
    ...citesWithEnvelope(
      ids,
      `${row.why} is answered with the ${row.status} row, induced by ORDER_TRIGGER_${row.status}`,
    ),
    async ({ api, verdict, config, data }) => {
      const trigger = config.orders.triggers[row.status];
      if (!trigger) {
        const reason = `no trigger is configured for the ${row.status} row (ORDER_TRIGGER_${row.status})`;
        return verdict.notConfigured(reason);
      }
      // A 503 must be seen, not retried away.
      const exchange = await api.call('createOrder', {
        ...triggeredOrder(trigger, newOrder(config, data)),
        note: `trigger for ${row.status}`,
        ...(row.status === '503' ? { retry: false } : {}),
      });
      expectErrorEnvelope(verdict, envelopeRules, exchange, { id: row.id, row: row.status });
      if (row.status === '503') {
        const retryAfter = exchange.headers['retry-after'];
        verdict.observe(
          'ORD-RETRY-OBSERVED',
          `the 503 came with ${retryAfter === undefined ? 'no Retry-After' : `Retry-After: ${retryAfter}`}; this check sends once (retries off)`,
        );
      }
    },
  );
}
