import type { ServiceTarget } from '../../kit/config/suite-config.ts';
import { expectRefused } from '../../kit/checks/responses.ts';
import { cites, test } from '../../fixtures/test.ts';
import { distinctTokenTarget, sendTokenRequest, tokenServices } from './token-endpoint.ts';
import { expectClientChallenge, expectNoAccessToken, expectOAuthError } from '../../kit/checks/auth.ts';

const basic = (credentials: string) => `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;

/** The client id of an API key of the usual form base64("id:secret") (RFC 6749 §2.3.1), or undefined. */
function clientIdOf(apiKey: string): string | undefined {
  const decoded = Buffer.from(apiKey, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 && Buffer.from(decoded, 'utf8').toString('base64') === apiKey ? decoded.slice(0, colon) : undefined;
}

type Credentials = string | null | { unavailable: string };

const badCredentials: ReadonlyArray<{ name: string; authorization: (target: ServiceTarget) => Credentials }> = [
  { name: 'no Authorization header', authorization: () => null },
  {
    name: 'Basic with an unknown client id and secret',
    authorization: () => basic('conformance-unknown-client:not-the-secret'),
  },
  {
    name: 'Basic with the right client id and a wrong secret',
    authorization: (target) => {
      const clientId = clientIdOf(target.apiKey);
      return clientId
        ? basic(`${clientId}:not-the-secret-of-${clientId}`)
        : {
            unavailable: `${target.variables.apiKey} is not base64("id:secret"), so no wrong secret of its client can be made`,
          };
    },
  },
  { name: 'Basic with a value that is not base64', authorization: () => 'Basic %%not-base64%%' },
  { name: 'the API key under the Bearer scheme', authorization: (target) => `Bearer ${target.apiKey}` },
  { name: 'the API key under the Digest scheme', authorization: (target) => `Digest ${target.apiKey}` },
];

for (const service of tokenServices) {
  for (const variant of badCredentials) {
    test(
      ...cites(['TOK-CLIENT-AUTH', 'TOK-CLIENT-ERROR'], `the ${service} token endpoint refuses ${variant.name}`),
      async ({ config, http, record, redactor, verdict }) => {
        const target = distinctTokenTarget(config, verdict, service);
        const authorization = variant.authorization(target);
        if (authorization !== null && typeof authorization === 'object')
          return verdict.notConfigured(authorization.unavailable);
        const exchange = await sendTokenRequest({ http, record, redactor }, target, {
          authorization,
          note: variant.name,
        });
        expectRefused(verdict, 'TOK-CLIENT-AUTH', exchange);
        expectNoAccessToken(verdict, 'TOK-CLIENT-AUTH', exchange);
        if (authorization === null) {
          expectOAuthError(verdict, 'TOK-CLIENT-ERROR', exchange, { statuses: [400, 401], error: 'invalid_client' });
        } else {
          expectOAuthError(verdict, 'TOK-CLIENT-ERROR', exchange, { statuses: [401], error: 'invalid_client' });
          expectClientChallenge(verdict, 'TOK-CLIENT-ERROR', exchange);
        }
      },
    );
  }
}
