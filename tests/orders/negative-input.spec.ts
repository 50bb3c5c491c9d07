import { expectNoServerError, expectRefused } from '../../kit/checks/responses.ts';
import { negativeGroups, type NegativeGroup } from '../../kit/builders/negative-order-bodies.ts';
import { expectErrorEnvelope, observeLimit } from '../../kit/checks/order-envelope.ts';
import { citesWithEnvelope, envelopeRules, test } from '../../fixtures/orders.ts';
import { errorAnswer } from '../../kit/http/consequence.ts';

for (const group of Object.keys(negativeGroups) as NegativeGroup[]) {
  test(
    ...citesWithEnvelope(
      ['ORD-NEGATIVE'],
      `seeded malformed order bodies are refused with a part-7 envelope, never a 5xx: ${group}`,
    ),
    async ({ api, verdict, config, data }, testInfo) => {
      const replay = `SEED=${config.seed} npx playwright test --project ${testInfo.project.name} -g "${group}"`;
      testInfo.annotations.push({ type: 'replay', description: replay });
      for (const body of negativeGroups[group](data, config.orders)) {
        const payload = 'json' in body.payload ? { body: body.payload.json } : { rawBody: body.payload.raw };
        const exchange = await api.call('createOrder', {
          ...payload,
          note: `${body.name}; replay with SEED=${config.seed}`,
        });
        expectNoServerError(verdict, 'ORD-NEGATIVE', exchange);
        if (body.refusalExpected) expectRefused(verdict, 'ORD-NEGATIVE', exchange);
        if (observeLimit(verdict, 'LIM-NOT-SHOWN', exchange, body.name)) continue;
        if (errorAnswer(exchange)) expectErrorEnvelope(verdict, envelopeRules, exchange);
      }
    },
  );
}
