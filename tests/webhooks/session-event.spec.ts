import { stepUp } from '../../harness/builders/identity-bodies.ts';
import type { MessageChannel } from '../../harness/checks/session-channel.ts';
import { describeDelivery, expectValidEvents, expectWellFormedDeliveries } from '../../harness/checks/webhook-events.ts';
import { ofKind } from '../../harness/webhooks/ties.ts';
import { cites, skipUnlessFlowsRun, test } from '../../fixtures/webhooks.ts';

const channels: ReadonlyArray<{ channel: MessageChannel; name: string }> = [
  { channel: 'phone', name: 'by phone number' },
  { channel: 'email', name: 'by email' },
];

const isSession = ofKind('session');

// 6.3 carries no id of the case or inquiry: the run's receiver (harness/webhooks/step-up-flows.ts) ties each event to a
// step-up by its channel and time. This step-up runs alone on its channel: it waits until every other step-up of the
// run on the channel has its event or its window has ended, and others wait while it waits for its own. Its event is
// the first session event of a new sessionId, of its channel (or, when none is, of the other one), that arrives after
// its request. Every event that arrives is checked.
for (const { channel, name } of channels) {
  test(
    ...cites(
      ['EVT-DELIVERY', 'EVT-SESSION-SCHEMA', 'EVT-SESSION-INT64', 'EVT-SESSION-STATUS-ENUM', 'EVT-SESSION-RESEND-ENUM', 'EVT-SESSION-MFA-ENUM', 'EVT-SESSION-CHANNEL-ENUM', 'EVT-SESSION-CHANNEL-MATCH', 'EVT-FLOW-DELIVERY'],
      `a step-up ${name} is followed by a valid verification session event of its own`,
      { on: 'session' },
    ),
    async ({ api, verdict, config, data, events, attachDeliveries, newCase }) => {
      skipUnlessFlowsRun(verdict, config, events);
      const ref = await newCase();
      const ticket = await events.begin(channel, true);
      const exchange = await api.call('stepUp', { body: stepUp(data, ref, channel), stepUp: ticket });
      verdict.precondition(exchange.status >= 200 && exchange.status < 300, `the step-up ${name} is accepted`, () => ({
        sent: verdict.sent(exchange),
        expected: 'success (2xx)',
        actual: verdict.answer(exchange),
      }));

      const outcome = await events.stepUpOutcome(ticket);
      const first = outcome.event;
      const arrived = (await events.since(ticket.sentAt)).filter(isSession);
      await attachDeliveries(`verification session events after the step-up ${name}`, arrived);
      const expected = `a verification session event of a new session within WEBHOOK_WAIT_MS (${config.webhook.waitMs} ms) of the step-up ${name} (6.3 is sent when the session completes), the only step-up of the run then waiting on its channel`;
      const actual = arrived.length ? `only redeliveries or events of sessions seen before the step-up arrived (${arrived.length})` : 'none arrived';
      verdict.check('EVT-FLOW-DELIVERY', first !== undefined, () => ({ sent: verdict.sent(exchange), expected, actual }));
      if (!first) {
        const others = verdict.cited.filter((id) => id !== 'EVT-FLOW-DELIVERY');
        verdict.blocked(`no verification session event of its own arrived within WEBHOOK_WAIT_MS (${config.webhook.waitMs} ms) of the step-up ${name}`, { sent: verdict.sent(exchange), expected, actual }, others);
      }
      if (first) {
        const named = outcome.otherChannel ? `names the other channel: ${describeDelivery(verdict, first)}` : `names ${channel === 'phone' ? 'SMS' : 'EMAIL'} or no channel`;
        verdict.observe('EVT-SESSION-CHANNEL-MATCH', `the event taken for the step-up ${name} ${named}, ${first.receivedAt - ticket.sentAt} ms after its request`);
      }
      expectWellFormedDeliveries(verdict, arrived);
      expectValidEvents(verdict, arrived, ['session']);
    },
  );
}
