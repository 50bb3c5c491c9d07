import { isDeepStrictEqual } from 'node:util';
import type { BodyContext } from '../builders/identity-bodies.ts';
import { freshName } from '../builders/fresh-names.ts';
import type { Exchange } from '../http/exchange.ts';
import { refused } from '../http/consequence.ts';
import type { FetchedCase } from './identity.ts';
import type { Verdict } from '../verdict.ts';
import { enumValues } from '../../schemas/registry.ts';
import { tagNames } from '../case/case-state.ts';
import { sameEnumValue } from './responses.ts';

/**
 * After a refusal, the request leaves nothing behind (principle: judge what the target keeps). A refused case update
 * carries markers, fresh tags and a decision other than the case's, so that a change it made anyway shows in the case
 * as 4.5 fetches it; the check cites the requirement whose refusal it was. The case it judges is read once a mark of a
 * later write shows (kit/unchanged-case.ts): a read that trails the writes proves nothing.
 */

/** What 4.5 shows of a case that an update can change: its tag names and its decision, as answered. */
export interface CaseState {
  tags: string[];
  decision: unknown;
}

export function caseStateOf(fetched: Record<string, unknown>): CaseState {
  return { tags: tagNames(fetched['tags']), decision: fetched['decision'] };
}

/** Members that make a refused update's change visible. `leaveOut` names members the variant itself is about. */
export interface RefusalMarkers {
  tags?: readonly string[];
  decision?: string;
}

/** A request sent against the case, with the markers it carried. */
export interface MarkedRequest {
  exchange: Exchange;
  markers: RefusalMarkers;
}

export function refusalMarkers(data: BodyContext, before: CaseState, leaveOut: readonly string[] = []): RefusalMarkers {
  const decision = enumValues('CaseDecision').find((d) => !sameEnumValue(before.decision, d));
  return {
    ...(leaveOut.includes('tags') ? {} : { tags: [freshName('tag', data), freshName('tag', data)] }),
    ...(leaveOut.includes('decision') || decision === undefined ? {} : { decision }),
  };
}

/**
 * Each refused request of `sent` left the case (`after`, as fetched once a later write showed) as it was: none of its
 * marker tags is among the case's but those it had `before`, and, when every request of `sent` was refused and one
 * carried a decision, the decision is the one fetched before. Accepted requests are not judged here (the consequence
 * rules of the accepted request apply). Without `before`, no tag of a refused request is on the case at all, and the
 * decision is not judged.
 */
export function expectNothingChanged(
  findings: Verdict,
  id: string,
  after: FetchedCase,
  sent: readonly MarkedRequest[],
  before?: CaseState,
): boolean {
  const refusals = sent.filter((s) => refused(s.exchange));
  const now = caseStateOf(after.body);
  let ok = true;
  for (const { exchange, markers } of refusals) {
    const tags = markers.tags ?? [];
    const appended = tags.filter((tag) => now.tags.includes(tag) && !before?.tags.includes(tag));
    const kept = findings.check(id, appended.length === 0, () => ({
      sent: findings.sent(exchange),
      expected: `after the refusal (${exchange.status}), the case fetched by 4.5 without the refused request's tags ${JSON.stringify(tags)}`,
      actual: `tags ${findings.redacted(after.body['tags'])}: ${JSON.stringify(appended)} appended by a refused request`,
    }));
    ok = kept && ok;
  }
  const first = refusals[0];
  const decisionSent = refusals.some(({ markers }) => markers.decision !== undefined);
  if (before && first && refusals.length === sent.length && decisionSent)
    ok =
      findings.check(id, isDeepStrictEqual(now.decision, before.decision), () => ({
        sent: findings.sent(first.exchange),
        expected: `after the refusal, the case's decision as it was: ${JSON.stringify(before.decision)}`,
        actual: `decision ${JSON.stringify(now.decision)}, set by a refused request`,
      })) && ok;
  return ok;
}
