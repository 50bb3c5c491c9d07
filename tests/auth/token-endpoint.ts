import type { ServiceName } from '../../catalog/catalog.ts';
import type { ServiceTarget, SuiteConfig } from '../../kit/config/suite-config.ts';
import { expectThat } from '../../kit/checks/responses.ts';
import type { Sender } from '../../kit/http/sender.ts';
import type { Exchange } from '../../kit/http/exchange.ts';
import type { Redactor } from '../../kit/redact.ts';
import { issuedToken, tokenRequest, type TokenRequestOptions } from '../../kit/tokens.ts';
import type { Verdict } from '../../kit/verdict.ts';

/**
 * The services whose token endpoints part 4.1 describes (5.5: the two services each have one). The orders endpoint's
 * token URL is configurable: when it is one of these it is checked here, and otherwise 4.1 says nothing about it.
 */
export const tokenServices = ['identity', 'stepup'] as const satisfies readonly ServiceName[];
export type TokenService = (typeof tokenServices)[number];

/**
 * The service's token endpoint; the test is skipped when an earlier service uses the same URL, since that is
 * the same endpoint, checked there (a configuration in which both services share one token URL).
 */
export function distinctTokenTarget(config: SuiteConfig, verdict: Verdict, service: TokenService): ServiceTarget {
  const target = config.services[service];
  const sameAs = tokenServices
    .slice(0, tokenServices.indexOf(service))
    .find((other) => config.services[other].tokenUrl === target.tokenUrl);
  if (sameAs) verdict.notConfigured(`${target.variables.tokenUrl} is the ${sameAs} token URL, checked there`);
  return target;
}

export interface TokenContext {
  http: Sender;
  redactor: Redactor;
  record: (exchange: Exchange) => Promise<void>;
}

/** Sends a token request; any token in the answer is registered as a secret before anything can show it. */
export async function sendTokenRequest(
  { http, redactor, record }: TokenContext,
  target: ServiceTarget,
  options: TokenRequestOptions = {},
): Promise<Exchange> {
  const exchange = await http.send(tokenRequest(target, options));
  redactor.add(issuedToken(exchange));
  await record(exchange);
  return exchange;
}

export function expectNoAccessToken(verdict: Verdict, id: string, exchange: Exchange): boolean {
  return expectThat(
    verdict,
    id,
    issuedToken(exchange) === undefined,
    'no access_token in the answer',
    () => verdict.answer(exchange),
    exchange,
  );
}

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
  return expectThat(
    verdict,
    id,
    ok,
    `status ${expected.statuses.join(' or ')} with error "${expected.error}"`,
    () => verdict.answer(exchange),
    exchange,
  );
}

/** A WWW-Authenticate challenge of any scheme, which RFC 6749 section 5.2 asks for with a 401. */
export function expectClientChallenge(verdict: Verdict, id: string, exchange: Exchange): boolean {
  const challenge = exchange.headers['www-authenticate'];
  return expectThat(
    verdict,
    id,
    exchange.status === 401 && (challenge ?? '').trim() !== '',
    '401 with a WWW-Authenticate challenge (the client sent an Authorization header)',
    () => `${exchange.status}, WWW-Authenticate: ${challenge ?? '(absent)'}`,
    exchange,
  );
}
