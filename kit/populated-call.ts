import type { Api, CallOptions } from './api.ts';
import type { RoutedOperationId } from './config/suite-config.ts';
import type { Exchange } from './http/exchange.ts';
import type { Populated } from './builders/value-population.ts';
import { observeValueClass } from './checks/value-round-trip.ts';
import type { Verdict } from './verdict.ts';
import { refused } from './http/consequence.ts';

/**
 * A request that carries unusual values where the run already sends one (docs/traffic.md). Refusing a value the
 * document gives no syntax or size for is the target's right: the refusal is recorded per class (OBS-VALUE-CLASSES),
 * `afterRefusal` judges that it changed nothing (kit/unchanged-case.ts), and the same request is sent again with plain values, on which the
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
  options: Pick<CallOptions, 'note'> & { afterRefusal?: (refused: Exchange) => Promise<unknown> } = {},
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
