import type { ServiceName } from '../../catalog/catalog.ts';
import type { ServiceTarget, SuiteConfig } from '../../kit/config/suite-config.ts';
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
