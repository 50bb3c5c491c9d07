import { stepUp } from '../../kit/builders/identity-bodies.ts';
import type { MessageChannel } from '../../kit/webhooks/session-channel.ts';
import {
  expectFlowEvent,
  expectValidEvents,
  expectWellFormedDeliveries,
  observeSessionChannel,
} from '../../kit/checks/webhook-events.ts';
import { ofKind } from '../../kit/webhooks/ties.ts';
import { deliveryRequirements, eventRequirements } from '../../kit/webhooks/events.ts';
import type { Credit, StepUpTicket } from '../../kit/webhooks/run-events.ts';
import type { Exchange } from '../../kit/http/exchange.ts';
import { creditedStepUp } from '../../kit/webhooks/credited-step-up.ts';
import { cites, skipUnlessFlowsRun, test } from '../../fixtures/webhooks.ts';
import { requireSuccess } from '../../fixtures/preconditions.ts';
import { requireReceiverReached } from '../../kit/preconditions.ts';

const channels: ReadonlyArray<{ channel: MessageChannel; name: string }> = [
  { channel: 'phone', name: 'by phone number' },
  { channel: 'email', name: 'by email' },
];
/**
 * Two step-ups on each channel, each on a case of its own: whatever order the run's tests take, one of them is not its
 * channel's first, and so a target that delivers an earlier session's event again for every step-up after the first
 * fails it (its session reached the receiver before the request, or an earlier flow took it).
 */
const flows = ['a', 'a second'].flatMap((which) =>
  channels.map((flow) => ({ ...flow, title: `${which} step-up ${flow.name}` })),
);

const isSession = ofKind('session');

// 6.3 carries no id of the case or inquiry: the run's receiver (runner/webhooks/step-up-flows.ts) ties events to
// step-ups by channel and time. This step-up runs beside every other of the run ("counted"): it is answered once every
// step-up live at some moment since its request has been given an event within its window, as many events, all arrived
// after its request, as step-ups, one of them its own. When one of them ends without an event, the count proves
// nothing, and the step-up is sent again alone on its channel: it waits until every other step-up of the run on the
// channel has its event or its window has ended, and others wait while it waits for its own. Every event that arrives
// after the step-up's request is checked.
for (const { channel, name, title } of flows) {
  test(
    ...cites(
      [...deliveryRequirements(['session']), 'EVT-SESSION-CHANNEL-MATCH', 'EVT-FLOW-DELIVERY'],
      `${title} is followed by a valid verification session event of its own`,
      { on: 'session' },
    ),
    async ({ api, verdict, config, data, events, attachDeliveries, newCase, firstDelivery }, testInfo) => {
      skipUnlessFlowsRun(verdict, config, events);
      const label = `${testInfo.project.name} › ${testInfo.title}`;
      const sendStepUp = async (credit: Credit) => {
        // Also before a step-up sent again alone: it would wait out a window again.
        await firstDelivery.standsOn();
        const ref = await newCase();
        const ticket = await events.begin(channel, credit, { label });
        const exchange = await api.call('stepUp', { body: stepUp(data, ref, channel), stepUp: ticket });
        requireSuccess({ verdict, config }, exchange, `the step-up ${name} is accepted`);
        return { ticket, exchange };
      };
      const expected = `a verification session event of a new session within WEBHOOK_WAIT_MS (${config.webhook.waitMs} ms) of the step-up ${name} (6.3 is sent when the session completes)`;
      // A window of its own or of a step-up beside it ended without an event: with nothing at the receiver at all, the
      // run remembers it (firstDelivery).
      const outcomeOf = async ({ ticket, exchange }: { ticket: StepUpTicket; exchange: Exchange }) => {
        const outcome = await events.stepUpOutcome(ticket);
        if (!outcome.event && (outcome.state === 'expired' || outcome.state === 'ambiguous'))
          await firstDelivery.missed(
            `no webhook reached the receiver within WEBHOOK_WAIT_MS (${config.webhook.waitMs} ms) of a step-up ${name}`,
            { sent: verdict.sent(exchange), expected, actual: 'no delivery at all reached the receiver' },
          );
        return outcome;
      };
      const { sent, outcome, sentAgainBecause } = await creditedStepUp(sendStepUp, outcomeOf);
      const { ticket, exchange } = sent;
      if (sentAgainBecause)
        testInfo.annotations.push({
          type: 'sent again alone',
          description: `the step-up ${name} sent beside the others is not proven to have its event: ${sentAgainBecause}`,
        });
      const first = outcome.event;
      const arrived = (await events.since(ticket.sentAt)).filter(isSession);
      await attachDeliveries(`verification session events after the step-up ${name}`, arrived);
      const actual = arrived.length
        ? `${arrived.length} verification session event${arrived.length === 1 ? '' : 's'}, none its own (redeliveries, sessions seen before the step-up, events given to other step-ups)`
        : `no verification session event within ${config.webhook.waitMs / 1000} s`;
      // Nothing at all reached the receiver, and the way to it is not proven: the target, or the public URL.
      if (!first) await requireReceiverReached(verdict, events, config, { sent: verdict.sent(exchange), expected });
      expectFlowEvent(verdict, 'EVT-FLOW-DELIVERY', exchange, first, { expected, actual });
      if (!first) {
        const others = verdict.cited.filter((id) => id !== 'EVT-FLOW-DELIVERY');
        verdict.blocked(
          `no verification session event of its own arrived within WEBHOOK_WAIT_MS (${config.webhook.waitMs} ms) of the step-up ${name}`,
          { sent: verdict.sent(exchange), expected, actual },
          others,
        );
      }
      if (first)
        observeSessionChannel(verdict, 'EVT-SESSION-CHANNEL-MATCH', first, {
          channel,
          name,
          sentAt: ticket.sentAt,
          ...(outcome.overlap === undefined ? {} : { overlap: outcome.overlap }),
        });
      expectWellFormedDeliveries(verdict, 'EVT-DELIVERY', arrived);
      expectValidEvents(verdict, eventRequirements(['session']), arrived, ['session']);
    },
  );
}
