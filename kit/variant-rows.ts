import { operation, type OperationId } from '../catalog/catalog.ts';
import type { Api, CallOptions } from './api.ts';
import { unparsableBodies, variantsOf } from './builders/request-variants.ts';
import { consequenceOf } from './http/consequence.ts';
import type { Exchange } from './http/exchange.ts';
import type { Verdict } from './verdict.ts';
import { expectAnsweredAlike, type CanonicalAnswer } from './checks/request-variants.ts';
import { expectNoServerError } from './checks/responses.ts';

/** The parts of a valid request of the operation, fresh for each call (a new inquiryId for an assessment). */
export type FreshRequest = () => Promise<Pick<CallOptions, 'body' | 'pathParams'>>;

/**
 * Sends the operation's canonical request, then each variant of it once (variantsOf), each with fresh valid parts,
 * and judges each against the canonical answer; with `unparsable`, also each body no parser can read, judged on its
 * own (never a 5xx). Calls on one existing case go one after the other (`oneAtATime`: 2.5 does not say a target
 * takes overlapping updates of a case); the others go at once, so that against a slow target the check costs two
 * round trips.
 */
export async function sendRequestVariants(
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
