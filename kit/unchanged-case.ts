import type { Api } from './api.ts';
import { caseUpdate, type BodyContext, type CaseRef } from './builders/identity-bodies.ts';
import { freshName } from './builders/fresh-names.ts';
import { tagNames } from './case/case-state.ts';
import {
  caseStateOf,
  expectNothingChanged,
  refusalMarkers,
  type CaseState,
  type MarkedRequest,
  type RefusalMarkers,
} from './checks/nothing-changed.ts';
import type { FetchedCase } from './checks/identity.ts';
import { accepted, refused } from './http/consequence.ts';
import type { Verdict } from './verdict.ts';

/**
 * A state is judged only once the write in question is visible (reads may trail writes: kit/reads-after-writes.ts). A
 * read that shows the old state proves nothing about a write not replicated yet, so a check that something stayed as
 * it was first waits for a mark: a tag the same accepted update carried, or, after a refusal, a tag of a later accepted
 * write of the check's own. It judges the state that comes with the mark. A mark that never shows within
 * READ_AFTER_WRITE_TIMEOUT_MS blocks the row, a broken precondition: never a pass.
 */

/** The case as 4.5 fetches it; with `shows`, read again until it shows the mark's tags (or the bound passed). */
export type FetchCase = (ref: CaseRef, shows?: { mark: readonly string[]; note: string }) => Promise<FetchedCase>;

export interface CaseWatch {
  api: Api;
  verdict: Verdict;
  data: BodyContext;
  fetchCase: FetchCase;
}

/** The case as fetched once it shows every tag of `mark` (`what` names them); undefined, `id` blocked, when it never did. */
export async function caseWithMark(
  ctx: Pick<CaseWatch, 'verdict' | 'fetchCase'>,
  id: string,
  ref: CaseRef,
  mark: readonly string[],
  what: string,
): Promise<FetchedCase | undefined> {
  const fetched = await ctx.fetchCase(ref, { mark, note: `read once it shows ${what}` });
  const tags = tagNames(fetched.body['tags']);
  const missing = mark.filter((tag) => !tags.includes(tag));
  if (missing.length === 0) return fetched;
  ctx.verdict.blockedWithoutStopping(
    [id],
    `the case never showed ${what} (tags ${JSON.stringify(missing)}) within READ_AFTER_WRITE_TIMEOUT_MS, so its state ` +
      `cannot be judged: ${ctx.verdict.sent(fetched.exchange)} answered ${ctx.verdict.answer(fetched.exchange)}`,
  );
  return undefined;
}

/**
 * A write of the check's own after the requests judged (a case update with a fresh tag, accepted), and the case as it
 * comes with its tag; undefined, `id` blocked, when the write was refused or its tag never showed.
 */
export async function caseAfterMark(ctx: CaseWatch, id: string, ref: CaseRef): Promise<FetchedCase | undefined> {
  const mark = [freshName('mark', ctx.data)];
  const exchange = await ctx.api.call('caseUpdate', {
    body: caseUpdate(ref, { tags: mark }),
    note: "a mark of the check's own: the case is judged once it shows this tag",
  });
  if (accepted(exchange)) return caseWithMark(ctx, id, ref, mark, "the check's mark");
  ctx.verdict.blockedWithoutStopping(
    [id],
    `the case update that marks the state to judge was not accepted: ${ctx.verdict.sent(exchange)} answered ${ctx.verdict.answer(exchange)}`,
  );
  return undefined;
}

/**
 * Judges under `id` that every refused request of `sent` left the case `ref` as it was (`before`, when known): once a
 * mark of the check's own shows. Nothing is sent when no request was refused, or none carried a marker to find.
 */
export async function judgeUnchanged(
  ctx: CaseWatch,
  id: string,
  ref: CaseRef,
  sent: readonly MarkedRequest[],
  before?: CaseState,
): Promise<boolean> {
  const marked = sent.filter(
    ({ exchange, markers }) => refused(exchange) && (markers.tags?.length || markers.decision),
  );
  if (marked.length === 0) return true;
  const after = await caseAfterMark(ctx, id, ref);
  return after ? expectNothingChanged(ctx.verdict, id, after, sent, before) : false;
}

/** A case watched across refusals: its state fetched before them, markers for each request, the judgement after. */
export interface WatchedCase {
  before: CaseState;
  markers: (leaveOut?: readonly string[]) => RefusalMarkers;
  /** Judges every refused request of `sent` under the requirement whose refusal it was (judgeUnchanged). */
  judge: (id: string, sent: readonly MarkedRequest[]) => Promise<boolean>;
}

export async function watchCase(ctx: CaseWatch, ref: CaseRef): Promise<WatchedCase> {
  const before = caseStateOf((await ctx.fetchCase(ref)).body);
  return {
    before,
    markers: (leaveOut = []) => refusalMarkers(ctx.data, before, leaveOut),
    judge: (id, sent) => judgeUnchanged(ctx, id, ref, sent, before),
  };
}
