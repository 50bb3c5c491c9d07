import { stepUp } from '../../harness/builders/identity-bodies.ts';
import { channelTypeContradicts, type MessageChannel } from '../../harness/checks/session-channel.ts';
import { describeDelivery, expectValidEvents, expectWellFormedDeliveries } from '../../harness/checks/webhook-events.ts';
import { field, ofKind } from '../../harness/webhooks/ties.ts';
import type { Delivery } from '../../harness/webhooks/receiver.ts';
import { cites, skipUnlessFlowsRun, test } from '../../fixtures/webhooks.ts';

const channels: ReadonlyArray<{ channel: MessageChannel; name: string }> = [
  { channel: 'phone', name: 'by phone number' },
  { channel: 'email', name: 'by email' },
];

const isSession = ofKind('session');

// 6.3 carries no id of the case or inquiry: each step-up takes as its own the first verification session event after its
// request that no earlier flow took (the webhook flows run one after the other) and whose session had not reached the
// receiver before the request (a delivery repeated later, by a retry or a replay, reports an older session). One whose
// channelType agrees with the step-up's channel is waited for, so that another flow's event arriving first is not
// taken for this one's; when none agrees, an event of its own that arrived is taken and the channel judged on it.
// Every event that arrives is checked.
for (const { channel, name } of channels) {
  test(
    ...cites(
      ['EVT-DELIVERY', 'EVT-SESSION-SCHEMA', 'EVT-SESSION-INT64', 'EVT-SESSION-STATUS-ENUM', 'EVT-SESSION-RESEND-ENUM', 'EVT-SESSION-MFA-ENUM', 'EVT-SESSION-CHANNEL-ENUM', 'EVT-SESSION-CHANNEL-MATCH', 'EVT-FLOW-DELIVERY'],
      `a step-up ${name} is followed by a valid verification session event of its own`,
      { on: 'session' },
    ),
    async ({ api, verdict, config, data, receiver, attachDeliveries, newCase, takenSessions }) => {
      skipUnlessFlowsRun(verdict, config, receiver);
      const ref = await newCase();
      const sentAt = Date.now();
      const exchange = await api.call('stepUp', { body: stepUp(data, ref, channel) });
      verdict.precondition(exchange.status >= 200 && exchange.status < 300, `the step-up ${name} is accepted`, () => ({
        sent: verdict.sent(exchange),
        expected: 'success (2xx)',
        actual: verdict.answer(exchange),
      }));

      const sessionOf = (d: Delivery) => String(field(d, 'sessionId') ?? `#${d.seq}`);
      const older = new Set(receiver.deliveries().filter((d) => isSession(d) && d.receivedAt < sentAt).map(sessionOf));
      const ours = (d: Delivery) => isSession(d) && !takenSessions.has(sessionOf(d)) && !older.has(sessionOf(d));
      const agreeing = await receiver.waitFor((d) => ours(d) && !channelTypeContradicts(channel, field(d, 'channelType')), { since: sentAt, timeoutMs: config.webhook.waitMs });
      const first = agreeing ?? receiver.since(sentAt).find(ours);
      if (first) takenSessions.add(sessionOf(first));
      const events = receiver.since(sentAt).filter(isSession);
      await attachDeliveries(`verification session events after the step-up ${name}`, events);
      const expected = `a verification session event of its own within WEBHOOK_WAIT_MS (${config.webhook.waitMs} ms) of the step-up ${name} (6.3 is sent when the session completes), not one an earlier flow took or one whose session reached the receiver before the step-up`;
      const actual = events.length ? `only events of earlier flows or of sessions delivered before the step-up arrived (${events.length})` : 'none arrived';
      verdict.check('EVT-FLOW-DELIVERY', first !== undefined, () => ({ sent: verdict.sent(exchange), expected, actual }));
      if (!first) {
        const others = verdict.cited.filter((id) => id !== 'EVT-FLOW-DELIVERY');
        verdict.blocked(`no verification session event of its own arrived within ${config.webhook.waitMs} ms of the step-up ${name}`, { sent: verdict.sent(exchange), expected, actual }, others);
      }
      if (first) {
        const named = agreeing !== undefined ? `names ${channel === 'phone' ? 'SMS' : 'EMAIL'} or no channel` : `names the other channel: ${describeDelivery(verdict, first)}`;
        verdict.observe('EVT-SESSION-CHANNEL-MATCH', `the event taken for the step-up ${name} ${named}`);
      }
      expectWellFormedDeliveries(verdict, events);
      expectValidEvents(verdict, events, ['session']);
    },
  );
}
