import type { Exchange } from '../http/exchange.ts';
import { issuedToken } from '../tokens.ts';
import type { Verdict } from '../verdict.ts';

/**
 * The checks of the token endpoint (4.1, RFC 6749) and of bearer requests (RFC 6750): what a token answer carries,
 * and how a refused token or bearer request is answered.
 */

/**
 * RFC 6750 section 3: a refused bearer request is answered 401 with a challenge of the Bearer scheme. A malformed
 * Authorization header is invalid_request, which section 3.1 answers 400, so 400 with the challenge holds there too.
 */
export function expectBearerChallenge(
  verdict: Verdict,
  id: string,
  exchange: Exchange,
  options: { malformed?: boolean } = {},
): boolean {
  const challenge = exchange.headers['www-authenticate'];
  const statuses = options.malformed ? [401, 400] : [401];
  const ok = statuses.includes(exchange.status) && /(^|,)\s*bearer(\s|,|$)/i.test(challenge ?? '');
  return verdict.check(id, ok, () => ({
    sent: verdict.sent(exchange),
    expected: `${statuses.join(' or ')} with a WWW-Authenticate challenge of the Bearer scheme`,
    actual: `${exchange.status}, WWW-Authenticate: ${challenge ?? '(absent)'}`,
  }));
}

/** A refused token request issues no token: the answer carries no access_token. */
export function expectNoAccessToken(verdict: Verdict, id: string, exchange: Exchange): boolean {
  return verdict.check(id, issuedToken(exchange) === undefined, () => ({
    sent: verdict.sent(exchange),
    expected: 'no access_token in the answer',
    actual: verdict.answer(exchange),
  }));
}

/** The `error` member of an OAuth error answer (RFC 6749 section 5.2). */
export function oauthErrorOf(exchange: Exchange): unknown {
  return (exchange.json as { error?: unknown } | undefined)?.error;
}

/** An error answer of RFC 6749 section 5.2: the status (any of `statuses`) and the error code. */
export function expectOAuthError(
  verdict: Verdict,
  id: string,
  exchange: Exchange,
  expected: { statuses: readonly number[]; error: string },
): boolean {
  const ok = expected.statuses.includes(exchange.status) && oauthErrorOf(exchange) === expected.error;
  return verdict.check(id, ok, () => ({
    sent: verdict.sent(exchange),
    expected: `status ${expected.statuses.join(' or ')} with error "${expected.error}"`,
    actual: verdict.answer(exchange),
  }));
}

/** A WWW-Authenticate challenge of any scheme, which RFC 6749 section 5.2 asks for with a 401. */
export function expectClientChallenge(verdict: Verdict, id: string, exchange: Exchange): boolean {
  const challenge = exchange.headers['www-authenticate'];
  return verdict.check(id, exchange.status === 401 && (challenge ?? '').trim() !== '', () => ({
    sent: verdict.sent(exchange),
    expected: '401 with a WWW-Authenticate challenge (the client sent an Authorization header)',
    actual: `${exchange.status}, WWW-Authenticate: ${challenge ?? '(absent)'}`,
  }));
}

const tokenAnswer = (exchange: Exchange) => (exchange.json ?? {}) as { token_type?: unknown; expires_in?: unknown };

/** The token answer's token_type is Bearer, in any case (RFC 6749 section 5.1, RFC 6750 section 4). */
export function expectBearerTokenType(verdict: Verdict, id: string, exchange: Exchange): boolean {
  const type = tokenAnswer(exchange).token_type;
  return verdict.check(id, typeof type === 'string' && type.toLowerCase() === 'bearer', () => ({
    sent: verdict.sent(exchange),
    expected: 'token_type "Bearer" (any case)',
    actual: `token_type ${JSON.stringify(type)}`,
  }));
}

/** The token answer's expires_in is a positive integer (a lifetime in seconds, RFC 6749 section 5.1). */
export function expectTokenLifetime(verdict: Verdict, id: string, exchange: Exchange): boolean {
  const lifetime = tokenAnswer(exchange).expires_in;
  return verdict.check(id, Number.isInteger(lifetime) && (lifetime as number) > 0, () => ({
    sent: verdict.sent(exchange),
    expected: 'expires_in, a positive integer',
    actual: `expires_in ${JSON.stringify(lifetime)}`,
  }));
}

/** An answer carrying a token is not to be stored: Cache-Control: no-store (RFC 6749 section 5.1). */
export function expectNoStore(verdict: Verdict, id: string, exchange: Exchange): boolean {
  const cacheControl = exchange.headers['cache-control'];
  return verdict.check(id, /(^|,)\s*no-store\s*(,|$)/i.test(cacheControl ?? ''), () => ({
    sent: verdict.sent(exchange),
    expected: 'Cache-Control: no-store',
    actual: `Cache-Control: ${cacheControl ?? '(absent)'}`,
  }));
}
