import { tokenEndpoint } from '../../catalog/catalog.ts';
import { expectAccepted, expectJsonBody, expectSchema, expectStatus } from '../../kit/checks/responses.ts';
import { expectBearerTokenType, expectNoStore, expectTokenLifetime } from '../../kit/checks/auth.ts';
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

      expectBearerTokenType(verdict, 'TOK-RESPONSE-FIELDS', exchange);
      expectTokenLifetime(verdict, 'TOK-RESPONSE-FIELDS', exchange);
      expectNoStore(verdict, 'TOK-NO-STORE', exchange);
      const lifetime = (exchange.json as { expires_in?: unknown } | undefined)?.expires_in;
      verdict.observe('TOK-LIFETIME', `${service}: expires_in ${JSON.stringify(lifetime)}`);
    },
  );
}
