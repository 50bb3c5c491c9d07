import { tokenEndpoint } from '../../catalog/catalog.ts';
import { expectRefused } from '../../kit/checks/responses.ts';
import { cites, test } from '../../fixtures/test.ts';
import { distinctTokenTarget, sendTokenRequest, tokenServices } from './token-endpoint.ts';
import { expectNoAccessToken, expectOAuthError } from '../../kit/checks/auth.ts';

const capitalized = (words: string) =>
  words
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('_');

// RFC 6749 section 3.2: a parameter sent without a value is treated as omitted, so an empty grant_type is a missing one.
const otherGrants = [
  { name: 'the password grant', grantType: 'password', error: 'unsupported_grant_type' },
  { name: 'the authorization code grant', grantType: 'authorization_code', error: 'unsupported_grant_type' },
  { name: 'a near miss in case', grantType: capitalized(tokenEndpoint.grantType), error: 'unsupported_grant_type' },
  { name: 'no grant_type', grantType: undefined, error: 'invalid_request' },
  { name: 'an empty grant_type', grantType: '', error: 'invalid_request' },
] as const;

for (const service of tokenServices) {
  for (const variant of otherGrants) {
    const shown = variant.grantType === undefined ? 'absent' : JSON.stringify(variant.grantType);
    test(
      ...cites(
        ['TOK-GRANT-TYPE', 'TOK-GRANT-ERROR'],
        `the ${service} token endpoint refuses ${variant.name} (grant_type ${shown})`,
      ),
      async ({ config, http, record, redactor, verdict }) => {
        const target = distinctTokenTarget(config, verdict, service);
        const exchange = await sendTokenRequest({ http, record, redactor }, target, {
          form: { grant_type: variant.grantType, scope: tokenEndpoint.scope },
          note: `grant_type ${shown}`,
        });
        expectRefused(verdict, 'TOK-GRANT-TYPE', exchange);
        expectNoAccessToken(verdict, 'TOK-GRANT-TYPE', exchange);
        expectOAuthError(verdict, 'TOK-GRANT-ERROR', exchange, { statuses: [400], error: variant.error });
      },
    );
  }
}
