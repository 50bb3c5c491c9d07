import type { Api, CallOptions } from './api.ts';
import type { RoutedOperationId } from './config/suite-config.ts';
import type { Exchange } from './http/exchange.ts';
import type { CaseRef } from './builders/identity-bodies.ts';
import type { Populated } from './builders/value-population.ts';
import { expectNothingChanged } from './checks/nothing-changed.ts';
import { observeValueClass } from './checks/value-round-trip.ts';
import type { Verdict } from './verdict.ts';
import { refused } from './http/consequence.ts';

/**
 * A request that carries unusual values where the run already sends one (docs/traffic.md). Refusing a value the
 * document gives no syntax or size for is the target's right: the refusal is recorded per class (OBS-VALUE-CLASSES),
 * `afterRefusal` judges that it changed nothing, and the same request is sent again with plain values, on which the
 * rows the request exists for are judged. A success or a 5xx is the answer those rows judge.
 */
export interface PopulatedCall<B> {
  /** The answer the test's rows are judged on: to the populated request, or to its plain re-send after a refusal. */
  exchange: Exchange;
  /** The body of that request. */
  body: B;
  /** The populated request's answer, when it was refused. */
  refused?: Exchange;
}

export async function callPopulated<B extends Record<string, unknown>>(
  { api, verdict }: { api: Api; verdict: Verdict },
  operation: RoutedOperationId,
  request: Populated<B>,
  options: Pick<CallOptions, 'note'> & { afterRefusal?: (refused: Exchange) => Promise<void> } = {},
): Promise<PopulatedCall<B>> {
  const note = [options.note, `values: ${request.valueClass.id}`].filter(Boolean).join('; ');
  const first = await api.call(operation, { rawBody: request.text, note });
  const wasRefused = refused(first);
  observeValueClass(verdict, 'OBS-VALUE-CLASSES', operation, request, first, wasRefused);
  if (!wasRefused) return { exchange: first, body: request.body };
  await options.afterRefusal?.(first);
  const again = await api.call(operation, {
    body: request.plain,
    note: [options.note, `sent again with plain values after a refusal of ${request.valueClass.id}`]
      .filter(Boolean)
      .join('; '),
  });
  return { exchange: again, body: request.plain, refused: first };
}

/**
 * The nothing-changed check after a refused case update (kit/checks/nothing-changed.ts), judged under `id`: the case
 * fetched by 4.5 shows none of the tags of `update` (the plain request, whose tags the populated one carries too), which
 * are fresh. Without tags the refusal has no marker to find.
 */
export function refusedUpdateLeftNoTags(
  verdict: Verdict,
  id: string,
  fetchCase: (ref: CaseRef) => Promise<{ exchange: Exchange; body: Record<string, unknown> }>,
  ref: CaseRef,
  update: Record<string, unknown>,
): (refused: Exchange) => Promise<void> {
  return async (refused) => {
    const tags = update['tags'];
    if (!Array.isArray(tags) || tags.length === 0) return;
    const markers = { tags: tags.map(String) };
    expectNothingChanged(
      verdict,
      id,
      [{ exchange: refused, markers }],
      { tags: [], decision: undefined },
      await fetchCase(ref),
    );
  };
}
