import type { Credit, FlowOutcome } from './run-events.ts';

/** A step-up whose verification session event a check judges, once its outcome is final. */
export interface CreditedStepUp<Sent> {
  sent: Sent;
  outcome: FlowOutcome;
  /** Why the step-up was sent again alone on its channel, when it was. */
  sentAgainBecause?: string;
}

/**
 * A step-up for a webhook check (runner/webhooks/step-up-flows.ts): sent beside every other step-up of the run and
 * credited by counting; when the count proves nothing (a step-up beside it ended without an event, or they were not all
 * answered within its window), sent again alone on its channel, whose outcome is then the one judged.
 * `send` takes the step-up's place among the run's step-ups with the credit given and sends it; `outcomeOf` waits for
 * its final outcome.
 */
export async function creditedStepUp<Sent>(
  send: (credit: Credit) => Promise<Sent>,
  outcomeOf: (sent: Sent) => Promise<FlowOutcome>,
): Promise<CreditedStepUp<Sent>> {
  const counted = await send('counted');
  const outcome = await outcomeOf(counted);
  if (outcome.state !== 'ambiguous') return { sent: counted, outcome };
  const sentAgainBecause = `${outcome.overlap ?? 0} step-ups of the run were live beside it, and its count proved nothing: ${outcome.why ?? 'one of them ended without an event, or not all had one within its window'}`;
  const alone = await send('alone');
  return { sent: alone, outcome: await outcomeOf(alone), sentAgainBecause };
}
