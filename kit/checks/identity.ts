import type { Exchange } from '../http/exchange.ts';
import type { Verdict } from '../verdict.ts';
import { tagNames } from '../case/case-state.ts';
import { expectEnumValue } from './responses.ts';
import { accepted } from '../http/consequence.ts';

/** What the identity service keeps and answers about a case (2.2 to 2.6): its tags as fetched, its document records. */

/** A case as 4.5 fetched it: the exchange, and its body as an object. */
export interface FetchedCase {
  exchange: Exchange;
  body: Record<string, unknown>;
}

/**
 * Every one of `tags` is among the tag names of the case as fetched (2.5: the tags of an update are appended, the
 * earlier ones kept). Tag names come back as they were sent: compared as JSON strings, nothing else about the tags.
 * `after` says which updates the tags come from; `sent` is the update judged, when it is not the fetch.
 */
export function expectTagsOnCase(
  verdict: Verdict,
  id: string,
  fetched: FetchedCase,
  tags: readonly string[],
  options: { after?: string; sent?: Exchange } = {},
): boolean {
  const names = tagNames(fetched.body['tags']);
  const missing = tags.filter((tag) => !names.includes(tag));
  return verdict.check(id, missing.length === 0, () => ({
    sent: verdict.sent(options.sent ?? fetched.exchange),
    expected: `${options.after ? `after ${options.after}, ` : ''}the fetched case's tags containing ${JSON.stringify(tags)}`,
    actual: `tags ${verdict.redacted(fetched.body['tags'])}, missing ${JSON.stringify(missing)}`,
  }));
}

/**
 * The case as fetched has the decision (or one of the decisions) expected, in one of its allowed spellings (3.3; the
 * spelling of answers is not shown). `after` says which update it is judged after.
 */
export function expectCaseDecision(
  verdict: Verdict,
  id: string,
  fetched: FetchedCase,
  decision: string | readonly string[],
  options: { after?: string } = {},
): boolean {
  const what = `decision of the fetched case${options.after ? ` after ${options.after}` : ''}`;
  return expectEnumValue(verdict, id, what, fetched.body['decision'], decision, fetched.exchange);
}

/** What the records of a document session are fetched by (fixtures' DocumentSessionRef). */
export interface RecordsOfCase {
  authenticationId: string;
  inquiryId: string;
  /** The value of 4.4's path parameter the records were fetched with. */
  recordsPathId: string;
}

/**
 * The records (4.4) name the case fetched: its case identifier, or the inquiry identifier they were fetched by
 * (ERRATUM-DOCR-PATH-PARAM: the parameter is named authenticationId but described as the inquiry's identifier).
 */
export function expectRecordsOfCase(
  verdict: Verdict,
  id: string,
  exchange: Exchange,
  session: RecordsOfCase,
  which = 'the case fetched',
): boolean {
  const answered = (exchange.json as { authenticationId?: unknown } | undefined)?.authenticationId;
  const byInquiry = session.recordsPathId === session.inquiryId && answered === session.inquiryId;
  return verdict.check(id, answered === session.authenticationId || byInquiry, () => ({
    sent: verdict.sent(exchange),
    expected: `authenticationId ${JSON.stringify(session.authenticationId)}, ${which}`,
    actual: `authenticationId ${JSON.stringify(answered)}`,
  }));
}

/**
 * A request that named a near miss of a real case's identifier (kit/builders/near-misses.ts) was not answered as that
 * case: a success names another case or none. Where ids are sequential a near miss may be another real case, so the
 * consequence is judged, not the status.
 */
export function expectNotTheCase(verdict: Verdict, id: string, exchange: Exchange, original: string): boolean {
  const answered =
    accepted(exchange) && typeof exchange.json === 'object' && exchange.json !== null
      ? (exchange.json as Record<string, unknown>)['authenticationId']
      : undefined;
  return verdict.check(id, answered !== original, () => ({
    sent: verdict.sent(exchange),
    expected: `no answer naming the case ${JSON.stringify(original)} whose identifier was nearly sent`,
    actual: `${exchange.status} naming authenticationId ${JSON.stringify(answered)}`,
  }));
}
