import { stepUp, type StepUpChannel } from '../../harness/builders/identity-bodies.ts';
import { expectValidEvents, expectWellFormedDeliveries } from '../../harness/checks/webhook-events.ts';
import { field, ofKind } from '../../harness/webhooks/ties.ts';
import type { Delivery } from '../../harness/webhooks/receiver.ts';
import { cites, skipUnlessFlowsRun, test } from '../../fixtures/webhooks.ts';

const channels: ReadonlyArray<{ channel: StepUpChannel; name: string }> = [
  { channel: 'phone', name: 'by phone number' },
  { channel: 'email', name: 'by email' },
];

const isSession = ofKind('session');

// 6.3 carries no id of the case or inquiry: each step-up takes as its own the first verification session event after its
// request that no earlier flow took (the webhook flows run one after the other), and every one that arrives is checked.
for (const { channel, name } of channels) {
  test(
    ...cites(
      ['EVT-DELIVERY', 'EVT-SESSION-SCHEMA', 'EVT-SESSION-INT64', 'EVT-SESSION-STATUS-ENUM', 'EVT-SESSION-RESEND-ENUM', 'EVT-SESSION-MFA-ENUM', 'EVT-SESSION-CHANNEL-ENUM', 'EVT-FLOW-DELIVERY'],
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
      const first = await receiver.waitFor((d) => isSession(d) && !takenSessions.has(sessionOf(d)), { since: sentAt, timeoutMs: config.webhook.waitMs });
      if (first) takenSessions.add(sessionOf(first));
      const events = receiver.since(sentAt).filter(isSession);
      await attachDeliveries(`verification session events after the step-up ${name}`, events);
      const expected = `a verification session event of its own within WEBHOOK_WAIT_MS (${config.webhook.waitMs} ms) of the step-up ${name} (6.3 is sent when the session completes), not one an earlier flow took`;
      const actual = events.length ? `only events earlier flows took arrived (${events.length})` : 'none arrived';
      verdict.check('EVT-FLOW-DELIVERY', first !== undefined, () => ({ sent: verdict.sent(exchange), expected, actual }));
      if (!first) {
        const others = verdict.cited.filter((id) => id !== 'EVT-FLOW-DELIVERY');
        verdict.blocked(`no verification session event of its own arrived within ${config.webhook.waitMs} ms of the step-up ${name}`, { sent: verdict.sent(exchange), expected, actual }, others);
      }
      expectWellFormedDeliveries(verdict, events);
      expectValidEvents(verdict, events, ['session']);
    },
  );
}
