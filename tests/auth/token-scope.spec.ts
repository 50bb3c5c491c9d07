import { tokenEndpoint } from '../../catalog/catalog.ts';
import { expectRefused } from '../../kit/checks/responses.ts';
import { cites, test } from '../../fixtures/test.ts';
import { issuedToken } from '../../kit/tokens.ts';
import { distinctTokenTarget, sendTokenRequest, tokenServices } from './token-endpoint.ts';
import { expectNoAccessToken, expectOAuthError, oauthErrorOf } from '../../kit/checks/auth.ts';

const otherScopes = [
  { name: 'another scope name', scope: 'k1_admin_api' },
  { name: 'the scope in upper case', scope: tokenEndpoint.scope.toUpperCase() },
  { name: 'the scope with an extra one', scope: `${tokenEndpoint.scope} openid` },
] as const;

/** RFC 6749 §3.1: a parameter sent without a value is treated as omitted, so an empty scope is a missing one. */
const noScope = [
  { name: 'without a scope parameter', form: { grant_type: tokenEndpoint.grantType } },
  {
    name: 'with an empty scope (an omitted parameter, RFC 6749 §3.1)',
    form: { grant_type: tokenEndpoint.grantType, scope: '' },
  },
] as const;

for (const service of tokenServices) {
  for (const variant of otherScopes) {
    test(
      ...cites(
        ['TOK-SCOPE-ONLY', 'TOK-SCOPE-ERROR'],
        `the ${service} token endpoint refuses ${variant.name} (${JSON.stringify(variant.scope)})`,
      ),
      async ({ config, http, record, redactor, verdict }) => {
        const target = distinctTokenTarget(config, verdict, service);
        const exchange = await sendTokenRequest({ http, record, redactor }, target, {
          form: { grant_type: tokenEndpoint.grantType, scope: variant.scope },
          note: `scope=${JSON.stringify(variant.scope)}`,
        });
        expectRefused(verdict, 'TOK-SCOPE-ONLY', exchange);
        expectNoAccessToken(verdict, 'TOK-SCOPE-ONLY', exchange);
        expectOAuthError(verdict, 'TOK-SCOPE-ERROR', exchange, { statuses: [400], error: 'invalid_scope' });
      },
    );
  }

  for (const variant of noScope) {
    test(
      ...cites(
        ['TOK-SCOPE-MISSING'],
        `the ${service} token endpoint's answer to a request ${variant.name} is observed`,
      ),
      async ({ config, http, record, redactor, verdict }) => {
        const target = distinctTokenTarget(config, verdict, service);
        const exchange = await sendTokenRequest({ http, record, redactor }, target, {
          form: variant.form,
          note: variant.name,
        });
        const error = oauthErrorOf(exchange);
        const outcome = issuedToken(exchange)
          ? 'a token was issued'
          : `no token${error === undefined ? '' : `, error ${JSON.stringify(error)}`}`;
        verdict.observe('TOK-SCOPE-MISSING', `${service} ${variant.name}: ${exchange.status}, ${outcome}`);
      },
    );
  }
}
