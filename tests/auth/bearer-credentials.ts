import { expectThat } from '../../fixtures/checks.ts';
import type { Exchange } from '../../fixtures/http/exchange.ts';
import type { Verdict } from '../../fixtures/verdict.ts';

/** RFC 6750 section 3: a refused bearer request is answered 401 with a challenge of the Bearer scheme. */
export function expectBearerChallenge(verdict: Verdict, exchange: Exchange): boolean {
  const challenge = exchange.headers['www-authenticate'];
  return expectThat(
    verdict,
    'BEARER-CHALLENGE',
    exchange.status === 401 && /(^|,)\s*bearer(\s|,|$)/i.test(challenge ?? ''),
    '401 with a WWW-Authenticate challenge of the Bearer scheme',
    () => `${exchange.status}, WWW-Authenticate: ${challenge ?? '(absent)'}`,
    exchange,
  );
}
