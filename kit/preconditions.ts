import type { Exchange } from './http/exchange.ts';
import { sameEnumValue } from './checks/responses.ts';
import type { SuiteConfig } from './config/suite-config.ts';
import type { Verdict } from './verdict.ts';
import { silentReceiverCause } from './webhooks/receiver-path.ts';
import type { RunEvents } from './webhooks/run-events.ts';
import { accepted } from './http/consequence.ts';

/**
 * What a check stands on without verifying it, stated by the test: when it does not hold, the test stops as blocked
 * (Verdict.blocked), naming it. The preconditions every test takes as fixtures are in fixtures/preconditions.ts.
 */

/** An update (`set`) set the case's decision: it was accepted, and the case as fetched afterwards has that decision. */
export function requireDecisionSet(
  verdict: Verdict,
  set: Exchange,
  fetched: { body: Record<string, unknown> },
  decision: string,
): void {
  const ok = accepted(set) && sameEnumValue(fetched.body['decision'], decision);
  verdict.precondition(ok, `an update sets the decision ${decision}`, () => ({
    sent: verdict.sent(set),
    expected: `success (2xx), then the fetched decision ${decision}`,
    actual: `${verdict.answer(set)}; fetched decision ${JSON.stringify(fetched.body['decision'])}`,
  }));
}

/** The request went out without the header: the check is about its absence (the suite's own sending, not the target). */
export function requireHeaderNotSent(verdict: Verdict, exchange: Exchange, name: string): void {
  const sent = exchange.request.headers.some(([header]) => header.toLowerCase() === name);
  verdict.precondition(!sent, `the ${exchange.label} request carries no ${name}`, () => ({
    sent: verdict.sent(exchange),
    expected: `no ${name} header sent`,
    actual: `an ${name} header was sent`,
  }));
}

/**
 * A flow's event is missing: the run's receiver got something, or the way from the target to it is proven, else the
 * missing event is not the target's to answer for, and the check stops blocked naming both suspects, the target and
 * WEBHOOK_PUBLIC_URL (kit/webhooks/receiver-path.ts).
 */
export async function requireReceiverReached(
  verdict: Verdict,
  events: RunEvents,
  config: SuiteConfig,
  evidence: { sent: string; expected: string },
): Promise<void> {
  const silent = await silentReceiverCause(events, config);
  if (silent) verdict.blocked(silent, { ...evidence, actual: 'no delivery at all' });
}
