import { operation, type OperationId } from '../../catalog/catalog.ts';
import type { Api, CallOptions } from '../api.ts';
import { unparsableBodies, variantsOf } from '../builders/request-variants.ts';
import type { Exchange } from '../http/exchange.ts';
import { issuedToken } from '../tokens.ts';
import type { Verdict } from '../verdict.ts';
import { expectNoServerError } from './responses.ts';

/**
 * What an answer amounts to, the consequence two spellings of one request are compared on (not the bytes: ids, bodies
 * and success codes may differ between two answers to the same request).
 */
export type Consequence = 'accepted' | 'refused' | 'a server error' | 'another answer';

export function consequenceOf(exchange: Pick<Exchange, 'status'>): Consequence {
  if (exchange.status >= 200 && exchange.status < 300) return 'accepted';
  if (exchange.status >= 400 && exchange.status < 500) return 'refused';
  return exchange.status >= 500 ? 'a server error' : 'another answer';
}

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

/** The parts of a valid request of the operation, fresh for each call (a new inquiryId for an assessment). */
export type FreshRequest = () => Promise<Pick<CallOptions, 'body' | 'pathParams'>>;

/**
 * Sends the operation's canonical request, then each variant of it once (variantsOf), each with fresh valid parts,
 * and judges each against the canonical answer; with `unparsable`, also each body no parser can read, judged on its
 * own (never a 5xx). Calls on one existing case go one after the other (`oneAtATime`: 2.5 does not say a target
 * takes overlapping updates of a case); the others go at once, so that against a slow target the check costs two
 * round trips.
 */
export async function checkRequestVariants(
  { api, verdict }: { api: Api; verdict: Verdict },
  id: OperationId,
  fresh: FreshRequest,
  options: { unparsable: boolean; oneAtATime: boolean },
): Promise<void> {
  const canonical = await api.call(id, {
    ...(await fresh()),
    note: 'the canonical request: lower-case header names, application/json',
  });
  const consequence = consequenceOf(canonical);
  verdict.precondition(
    consequence === 'accepted' || consequence === 'refused',
    `the canonical ${id} request is accepted or refused, so that its variants have an answer to be compared with`,
    () => ({ sent: verdict.sent(canonical), expected: 'a 2xx or a 4xx', actual: verdict.answer(canonical) }),
  );
  const answer: CanonicalAnswer = { consequence, shown: `answered ${canonical.status}` };
  const calls: Array<{ options: CallOptions; judge: (exchange: Exchange) => void }> = [];
  for (const variant of variantsOf(id))
    calls.push({
      options: { ...(await fresh()), ...variant.change, note: variant.name },
      judge: (exchange) => expectAnsweredAlike(verdict, variant.requirement, exchange, answer),
    });
  if (options.unparsable && operation(id).hasBody)
    for (const body of unparsableBodies) {
      const { body: valid, ...parts } = await fresh();
      calls.push({
        options: { ...parts, rawBody: body.text(valid as Record<string, unknown>), note: body.name },
        judge: (exchange) => expectNoServerError(verdict, 'GEN-MALFORMED-BODY', exchange),
      });
    }
  const exchanges: Exchange[] = [];
  if (options.oneAtATime) for (const call of calls) exchanges.push(await api.call(id, call.options));
  else exchanges.push(...(await Promise.all(calls.map((call) => api.call(id, call.options)))));
  calls.forEach((call, index) => call.judge(exchanges[index] as Exchange));
}
