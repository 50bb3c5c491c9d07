import type { Exchange } from './exchange.ts';

/**
 * What an answer amounts to, in one meaning for every check, precondition and procedure of the suite. The document
 * shows no success codes and rarely a refusal's: any 2xx is accepted, any 4xx refused, with one exception. A 429 is
 * not a refusal of the request but the target declining to answer it yet (part 8 shows no limits): counted as refused,
 * a check that expects a refusal would pass on a request the target never judged, and a check the target prevented is
 * a failure of the gate, never a pass. So a 429 is neither accepted nor refused: "rate limited".
 */
export type Consequence = 'accepted' | 'refused' | 'rate limited' | 'a server error' | 'another answer';

type Answer = Pick<Exchange, 'status'>;

/** The request succeeded: any 2xx. */
export const accepted = (answer: Answer): boolean => answer.status >= 200 && answer.status < 300;

/** The request was refused as a client error: any 4xx but 429 (rate limited, which judged nothing). */
export const refused = (answer: Answer): boolean => answer.status >= 400 && answer.status < 500 && !rateLimited(answer);

/** The target declined to answer for now (429): no consequence of the request to judge. */
export const rateLimited = (answer: Answer): boolean => answer.status === 429;

/** The server erred (5xx). */
export const serverError = (answer: Answer): boolean => answer.status >= 500;

/** An error answer (4xx or 5xx), as part 7's envelope rules and the HTTP semantics of an error read it. */
export const errorAnswer = (answer: Answer): boolean => answer.status >= 400;

export function consequenceOf(answer: Answer): Consequence {
  if (accepted(answer)) return 'accepted';
  if (refused(answer)) return 'refused';
  if (rateLimited(answer)) return 'rate limited';
  return serverError(answer) ? 'a server error' : 'another answer';
}
