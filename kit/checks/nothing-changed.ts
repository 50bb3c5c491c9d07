import { isDeepStrictEqual } from 'node:util';
import type { BodyContext, CaseRef } from '../builders/identity-bodies.ts';
import { freshName } from '../builders/fresh-names.ts';
import type { Exchange } from '../http/exchange.ts';
import type { Verdict } from '../verdict.ts';
import { enumValues } from '../../schemas/registry.ts';
import { tagNames } from './case-state.ts';
import { sameEnumValue } from './responses.ts';

/**
 * After a refusal, the request leaves nothing behind (principle: judge what the target keeps). A refused case update
 * carries markers, fresh tags and a decision other than the case's, so that a change it made anyway shows in the case
 * as 4.5 fetches it; the check cites the requirement whose refusal it was.
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
  tags?: string[];
  decision?: string;
}

export function refusalMarkers(data: BodyContext, before: CaseState, leaveOut: readonly string[] = []): RefusalMarkers {
  const decision = enumValues('CaseDecision').find((d) => !sameEnumValue(before.decision, d));
  return {
    ...(leaveOut.includes('tags') ? {} : { tags: [freshName('tag', data), freshName('tag', data)] }),
    ...(leaveOut.includes('decision') || decision === undefined ? {} : { decision }),
  };
}

const isRefusal = (exchange: Exchange) => exchange.status >= 400 && exchange.status < 500 && exchange.status !== 429;

/**
 * Each refused update (4xx) of `sent` left the case as it was: none of its marker tags was appended, and, when every
 * update of the batch was refused, the decision is the one fetched before. Updates that were accepted (a lenient
 * target, judged by the refusal's own check) are not judged here: the consequence rules of the accepted request apply.
 */
export function expectNothingChanged(
  verdict: Verdict,
  id: string,
  sent: ReadonlyArray<{ exchange: Exchange; markers: RefusalMarkers }>,
  before: CaseState,
  after: { body: Record<string, unknown>; exchange: Exchange },
): void {
  const refused = sent.filter((s) => isRefusal(s.exchange));
  if (refused.length === 0) return;
  const now = caseStateOf(after.body);
  for (const { exchange, markers } of refused)
    expectTagsNotAppended(verdict, id, exchange, markers.tags ?? [], after.body, before.tags);
  const decisionSent = refused.some(({ markers }) => markers.decision !== undefined);
  if (refused.length === sent.length && decisionSent) {
    const first = refused[0] as (typeof refused)[number];
    verdict.check(id, isDeepStrictEqual(now.decision, before.decision), () => ({
      sent: verdict.sent(first.exchange),
      expected: `after the refusal, the case's decision as it was: ${JSON.stringify(before.decision)}`,
      actual: `decision ${JSON.stringify(now.decision)}, set by a refused update`,
    }));
  }
}

/**
 * None of the tags of a refused update (`refused`) is among the case's as fetched afterwards (`fetched`), but those
 * it had before (`before`): a refused update appended nothing.
 */
export function expectTagsNotAppended(
  verdict: Verdict,
  id: string,
  refused: Exchange,
  tags: readonly string[],
  fetched: Record<string, unknown>,
  before: readonly string[] = [],
): boolean {
  const now = tagNames(fetched['tags']);
  const appended = tags.filter((tag) => now.includes(tag) && !before.includes(tag));
  return verdict.check(id, appended.length === 0, () => ({
    sent: verdict.sent(refused),
    expected: `after the refusal (${refused.status}), the case fetched by 4.5 without the refused update's tags ${JSON.stringify(tags)}`,
    actual: `tags ${verdict.redacted(fetched['tags'])}: ${JSON.stringify(appended)} appended by a refused update`,
  }));
}

type FetchCase = (ref: CaseRef) => Promise<{ exchange: Exchange; body: Record<string, unknown> }>;

/** A case watched across refusals: its state fetched before them, markers for each refused update, the judgement after. */
export interface WatchedCase {
  markers: (leaveOut?: readonly string[]) => RefusalMarkers;
  /** Fetches the case again and judges every refused update of `sent` under the requirement whose refusal it was. */
  judge: (
    verdict: Verdict,
    id: string,
    sent: ReadonlyArray<{ exchange: Exchange; markers: RefusalMarkers }>,
  ) => Promise<void>;
}

export async function watchCase(fetchCase: FetchCase, ref: CaseRef, data: BodyContext): Promise<WatchedCase> {
  const before = caseStateOf((await fetchCase(ref)).body);
  return {
    markers: (leaveOut = []) => refusalMarkers(data, before, leaveOut),
    judge: async (verdict, id, sent) => {
      if (!sent.some((s) => isRefusal(s.exchange))) return;
      expectNothingChanged(verdict, id, sent, before, await fetchCase(ref));
    },
  };
}
