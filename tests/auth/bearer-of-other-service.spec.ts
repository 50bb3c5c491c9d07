// Its file sorts first in tests/auth: its step-up, when accepted, causes an event the end of the run waits for (tests/auth/protected-calls.ts).
import { operation } from '../../catalog/catalog.ts';
import type { RoutedOperationId } from '../../kit/config/suite-config.ts';
import { cites, test } from '../../fixtures/test.ts';
import { accepted } from '../../kit/http/consequence.ts';

/** Each service's operation, called with a token of the other service's token endpoint. */
const crossings: ReadonlyArray<{ id: RoutedOperationId; tokenOf: RoutedOperationId }> = [
  { id: 'stepUp', tokenOf: 'assessment' },
  { id: 'fetchAssessment', tokenOf: 'stepUp' },
];

for (const { id, tokenOf } of crossings) {
  const service = operation(id).service;
  const other = operation(tokenOf).service;
  test(
    ...cites(
      ['TOK-PER-SERVICE'],
      `whether ${id} (${service}) accepts a token of the ${other} token endpoint is observed`,
    ),
    async ({ api, config, verdict, validRequest }) => {
      const request = await validRequest(id);
      const token = await api.tokenFor(tokenOf);
      const exchange = await api.call(id, {
        ...request,
        set: { authorization: `Bearer ${token}` },
        note: `a token of the ${other} token endpoint`,
      });
      const shared =
        config.services[service].tokenUrl === config.services[other].tokenUrl
          ? ' (both services use the same token URL)'
          : '';
      verdict.observe(
        'TOK-PER-SERVICE',
        `${id} with a token of the ${other} token endpoint: ${exchange.status}, ${accepted(exchange) ? 'accepted' : 'refused'}${shared}`,
      );
    },
  );
}
