import { stepUp, type StepUpChannel } from '../../harness/builders/identity-bodies.ts';
import { expectValidEvents, expectWellFormedDeliveries } from '../../harness/checks/webhook-events.ts';
import { ofKind } from '../../harness/webhooks/ties.ts';
import { cites, skipUnlessFlowsRun, test } from '../../fixtures/webhooks.ts';

const channels: ReadonlyArray<{ channel: StepUpChannel; name: string }> = [
  { channel: 'phone', name: 'by phone number' },
  { channel: 'email', name: 'by email' },
];

const isSession = ofKind('session');

// 6.3 carries no id of the case or inquiry, so the event cannot be told from one of a concurrent step-up: every
// verification session event that arrives after ours was sent is checked, and the flow's timing is only observed.
for (const { channel, name } of channels) {
  test(
    ...cites(
      ['EVT-DELIVERY', 'EVT-SESSION-SCHEMA', 'EVT-SESSION-INT64', 'EVT-SESSION-STATUS-ENUM', 'EVT-SESSION-RESEND-ENUM', 'EVT-SESSION-MFA-ENUM', 'EVT-SESSION-CHANNEL-ENUM', 'EVT-FLOW-DELIVERY'],
      `a step-up ${name} is followed by a valid verification session event`,
    ),
    async ({ api, verdict, config, data, receiver, attachDeliveries, newCase }) => {
      skipUnlessFlowsRun(verdict, config, receiver);
      const ref = await newCase();
      const sentAt = Date.now();
      const exchange = await api.call('stepUp', { body: stepUp(data, ref, channel) });
      verdict.precondition(exchange.status >= 200 && exchange.status < 300, `the step-up ${name} is accepted`, () => ({
        sent: verdict.sent(exchange),
        expected: 'success (2xx)',
        actual: verdict.answer(exchange),
      }));

      const first = await receiver.waitFor(isSession, { since: sentAt, timeoutMs: config.webhook.waitMs });
      const events = receiver.since(sentAt).filter(isSession);
      await attachDeliveries(`verification session events after the step-up ${name}`, events);
      const expected = `a verification session event within WEBHOOK_WAIT_MS (${config.webhook.waitMs} ms) of the step-up ${name} (6.3 is sent when the session completes)`;
      verdict.check('EVT-FLOW-DELIVERY', first !== undefined, () => ({ sent: verdict.sent(exchange), expected, actual: 'none arrived' }));
      if (!first) {
        const others = verdict.cited.filter((id) => id !== 'EVT-FLOW-DELIVERY');
        verdict.blocked(`no verification session event arrived within ${config.webhook.waitMs} ms of the step-up ${name}`, { sent: verdict.sent(exchange), expected, actual: 'none arrived' }, others);
      }
      expectWellFormedDeliveries(verdict, events);
      expectValidEvents(verdict, events, ['session']);
    },
  );
}
