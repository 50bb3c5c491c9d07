import { tokenEndpoint } from '../catalog/catalog.ts';
import { mediaType, utf8Text } from './body.ts';
import { clientByApiKey, clientById, mainClient } from './credentials.ts';
import type { SandboxClient } from './credentials.ts';
import { header } from './context.ts';
import type { Exchange, SandboxContext } from './context.ts';
import { sendJson, sendText } from './errors.ts';
import type { HeaderMap } from './errors.ts';
import type { TokenAudience } from './layout.ts';

const noStore: HeaderMap = { 'cache-control': 'no-store', pragma: 'no-cache' };
const basicChallenge = 'Basic realm="sandbox"';

type OAuthError = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope';

function sendOAuthError(
  ex: Exchange,
  status: number,
  error: OAuthError,
  description: string,
  headers: HeaderMap = {},
): void {
  sendJson(ex.res, status, { error, error_description: description }, { ...noStore, ...headers });
}

/**
 * The client named by `Authorization: Basic <API_KEY>` (scheme compared case-insensitively, unless the fault
 * token-basic-scheme-case-sensitive compares it exactly); with idOnly (the fault token-secret-unchecked), the client of
 * the id in base64("id:secret"), whatever the secret.
 */
function authenticateClient(ex: Exchange, idOnly: boolean, exactScheme: boolean): SandboxClient | undefined {
  const match = /^([A-Za-z]+) +(\S+) *$/.exec(header(ex, 'authorization') ?? '');
  const scheme = exactScheme ? match?.[1] : match?.[1]?.toLowerCase();
  if (!match || scheme !== (exactScheme ? 'Basic' : 'basic') || !match[2]) return undefined;
  if (!idOnly) return clientByApiKey(match[2]);
  return clientById(Buffer.from(match[2], 'base64').toString('utf8').split(':')[0] ?? '');
}

/** Token endpoint of part 4.1, answered as RFC 6749 sections 4.4 and 5 describe. */
export function tokenHandler(audience: TokenAudience) {
  return (ctx: SandboxContext, ex: Exchange): void => {
    const { faults } = ctx;
    // Held until the client hangs up or the sandbox closes (server.closeAllConnections).
    if (faults.has('token-never-answers')) return;
    if (ex.method !== 'POST') {
      sendOAuthError(ex, 405, 'invalid_request', 'the token endpoint accepts POST only', { allow: 'POST' });
      return;
    }
    if (ex.body.kind !== 'ok') {
      sendOAuthError(ex, 413, 'invalid_request', 'the request body is too large');
      return;
    }
    if (mediaType(header(ex, 'content-type')) !== tokenEndpoint.contentType) {
      sendOAuthError(ex, 400, 'invalid_request', `the parameters must be sent as ${tokenEndpoint.contentType}`);
      return;
    }
    const text = utf8Text(ex.body.bytes);
    if (text === undefined) {
      sendOAuthError(ex, 400, 'invalid_request', 'the body is not valid UTF-8');
      return;
    }
    const form = new URLSearchParams(text);
    for (const name of ['grant_type', 'scope']) {
      if (form.getAll(name).length > 1) {
        sendOAuthError(ex, 400, 'invalid_request', `the parameter ${name} is repeated`);
        return;
      }
    }

    const client = faults.has('token-no-client-auth')
      ? mainClient
      : authenticateClient(ex, faults.has('token-secret-unchecked'), faults.has('token-basic-scheme-case-sensitive'));
    if (!client) {
      sendOAuthError(ex, 401, 'invalid_client', 'client authentication failed', { 'www-authenticate': basicChallenge });
      return;
    }

    const grantType = form.get('grant_type');
    if (!faults.has('token-any-grant')) {
      if (grantType === null || grantType === '') {
        sendOAuthError(ex, 400, 'invalid_request', 'the grant_type parameter is missing');
        return;
      }
      if (grantType !== tokenEndpoint.grantType) {
        sendOAuthError(ex, 400, 'unsupported_grant_type', `only ${tokenEndpoint.grantType} is supported`);
        return;
      }
    }

    // RFC 6749 section 3.3 lets a server apply a default scope to a request without one, or refuse it: the flavor's choice.
    const requested = form.get('scope');
    const scope = requested === null && ctx.behaviour.tokens.defaultScope ? tokenEndpoint.scope : requested;
    if (scope === null || (scope !== tokenEndpoint.scope && !faults.has('token-any-scope'))) {
      sendOAuthError(ex, 400, 'invalid_scope', `the only scope is ${tokenEndpoint.scope}`);
      return;
    }

    const issued = ctx.tokens.issue(client.clientId, audience, scope);
    const cacheHeaders = faults.has('token-no-cache-control') ? {} : noStore;
    const tokenType = ctx.behaviour.tokens.type;
    if (faults.has('token-response-not-json')) {
      const form = new URLSearchParams({
        access_token: issued.accessToken,
        token_type: tokenType,
        expires_in: String(issued.expiresIn),
        scope,
      });
      sendText(ex.res, 200, 'application/x-www-form-urlencoded', form.toString(), cacheHeaders);
      return;
    }
    const body: Record<string, unknown> = {
      access_token: issued.accessToken,
      token_type: tokenType,
      expires_in: issued.expiresIn,
      scope,
      ...ctx.behaviour.tokens.extra,
    };
    sendJson(ex.res, faults.has('token-answered-201') ? 201 : 200, body, cacheHeaders);
  };
}
