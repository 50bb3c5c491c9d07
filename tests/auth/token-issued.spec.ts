import { tokenEndpoint } from '../../catalog/catalog.ts';
import { expectAccepted, expectJsonBody, expectSchema, expectStatus, expectThat } from '../../kit/checks/responses.ts';
import { schemaIdFor } from '../../schemas/registry.ts';
import { cites, test } from '../../fixtures/test.ts';
import { distinctTokenTarget, sendTokenRequest, tokenServices } from './token-endpoint.ts';

const TOKEN_SCHEMA = schemaIdFor('token-response');

for (const service of tokenServices) {
  test(
    ...cites(
      ['TOK-ISSUED', 'TOK-STATUS-200', 'TOK-PATH', 'TOK-RESPONSE-FIELDS', 'TOK-NO-STORE', 'TOK-LIFETIME'],
      `the ${service} token endpoint issues a token for the valid request of 4.1`,
    ),
    async ({ config, http, record, verdict, redactor }) => {
      const target = distinctTokenTarget(config, verdict, service);
      const path = new URL(target.tokenUrl).pathname;
      verdict.observe(
        'TOK-PATH',
        `${service}: the configured token URL's path is ${path}${path.endsWith(tokenEndpoint.pathSuffix) ? '' : ` (it does not end in ${tokenEndpoint.pathSuffix})`}`,
      );

      const exchange = await sendTokenRequest({ http, redactor, record }, target);
      expectAccepted(verdict, 'TOK-ISSUED', exchange);
      expectStatus(verdict, 'TOK-STATUS-200', exchange, [200]);
      expectJsonBody(verdict, 'TOK-ISSUED', exchange);
      expectSchema(verdict, 'TOK-ISSUED', TOKEN_SCHEMA, exchange.json, exchange);

      const body = (exchange.json ?? {}) as { token_type?: unknown; expires_in?: unknown };
      expectThat(
        verdict,
        'TOK-RESPONSE-FIELDS',
        typeof body.token_type === 'string' && body.token_type.toLowerCase() === 'bearer',
        'token_type "Bearer" (any case)',
        () => JSON.stringify(body.token_type),
        exchange,
      );
      expectThat(
        verdict,
        'TOK-RESPONSE-FIELDS',
        Number.isInteger(body.expires_in) && (body.expires_in as number) > 0,
        'expires_in, a positive integer',
        () => JSON.stringify(body.expires_in),
        exchange,
      );
      expectThat(
        verdict,
        'TOK-NO-STORE',
        /(^|,)\s*no-store\s*(,|$)/i.test(exchange.headers['cache-control'] ?? ''),
        'Cache-Control: no-store',
        () => `Cache-Control: ${exchange.headers['cache-control'] ?? '(absent)'}`,
        exchange,
      );
      verdict.observe('TOK-LIFETIME', `${service}: expires_in ${JSON.stringify(body.expires_in)}`);
    },
  );
}
