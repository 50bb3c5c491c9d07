import { consequenceOf, type Consequence } from '../http/consequence.ts';
import type { Exchange } from '../http/exchange.ts';
import { issuedToken } from '../tokens.ts';
import type { Verdict } from '../verdict.ts';

/**
 * Two spellings of one request are compared on their consequence (kit/http/consequence.ts), not the bytes: ids,
 * bodies and success codes may differ between two answers to the same request.
 */

/** A token request's consequence: accepted only when a token was issued (4.1: the response contains access_token). */
export function tokenConsequence(exchange: Exchange): Consequence {
  const consequence = consequenceOf(exchange);
  return consequence === 'accepted' && issuedToken(exchange) === undefined ? 'another answer' : consequence;
}

/** The canonical request's consequence, and what shows it, for the evidence. */
export interface CanonicalAnswer {
  consequence: Consequence;
  shown: string;
}

/**
 * A variant HTTP says is the same request (another case of header names, a media type parameter, another case of
 * the auth-scheme) is answered as the canonical request was: accepted when it was accepted, refused when it was
 * refused.
 */
export function expectAnsweredAlike(
  verdict: Verdict,
  id: string,
  variant: Exchange,
  canonical: CanonicalAnswer,
  consequence: (exchange: Exchange) => Consequence = consequenceOf,
): boolean {
  const got = consequence(variant);
  return verdict.check(id, got === canonical.consequence, () => ({
    sent: verdict.sent(variant),
    expected: `${canonical.consequence}, as the same request in its canonical spelling was (${canonical.shown})`,
    actual: `${got}: ${verdict.answer(variant)}`,
  }));
}
