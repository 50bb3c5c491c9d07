import { fullDocumentVerification } from '../../kit/builders/identity-bodies.ts';
import type { Preconditions } from '../../fixtures/preconditions.ts';
import {
  expectFlowEvent,
  expectOnboardingOfSession,
  expectResultsForInquiry,
  expectValidEvents,
  expectWellFormedDeliveries,
} from '../../kit/checks/webhook-events.ts';
import { deliveryRequirements, eventKind, eventRequirements } from '../../kit/webhooks/events.ts';
import { awaitOnboardingOfSession, awaitResultsOfInquiry, type Window } from '../../kit/webhooks/ties.ts';
import { cites, skipUnlessFlowsRun, test } from '../../fixtures/webhooks.ts';
import { requireSuccess } from '../../fixtures/preconditions.ts';
import { requireReceiverReached } from '../../kit/preconditions.ts';

type Setup = (newCase: Preconditions['newCase']) => Promise<string | undefined>;

const variants: ReadonlyArray<{ name: string; inquiry: Setup }> = [
  { name: 'for a new inquiry', inquiry: async () => undefined },
  { name: 'for the inquiry of an existing case', inquiry: async (newCase) => (await newCase()).inquiryId },
];

/** How long the onboarding event of a session is looked for once its results event is in. */
const ONBOARDING_GRACE_MS = 1_000;

const isDocumentEvent = (d: { json?: unknown }) => ['onboarding', 'results'].includes(eventKind(d.json) ?? '');

for (const variant of variants) {
  test(
    ...cites(
      [
        ...deliveryRequirements(['onboarding', 'results']),
        'EVT-RESULTS-INQUIRY',
        'EVT-DOC-SESSION-ID',
        'EVT-FLOW-DELIVERY',
      ],
      `a document verification ${variant.name} is reported by events tied to its inquiry and session`,
      { on: ['onboarding', 'results'] },
    ),
    async ({ api, verdict, config, data, events, attachDeliveries, newCase, firstDelivery }) => {
      skipUnlessFlowsRun(verdict, config, events);
      await firstDelivery.standsOn();
      const body = fullDocumentVerification(
        data,
        config.strategies.documentVerification,
        await variant.inquiry(newCase),
      );
      const window: Window = { events, since: Date.now(), timeoutMs: config.webhook.waitMs };
      const exchange = await api.call('documentVerification', { body });
      requireSuccess({ verdict, config }, exchange, `the document verification ${variant.name} is accepted`);

      const results = await awaitResultsOfInquiry(window, body.inquiryId);
      // 6.1 is sent when the onboarding status changes, which the target may never report: it is looked for only briefly
      // once the results event is in, so that a prompt target pays nothing for an event it need not send.
      const onboarding = results
        ? await awaitOnboardingOfSession(
            { ...window, timeoutMs: Math.min(window.timeoutMs, Date.now() + ONBOARDING_GRACE_MS - window.since) },
            results,
          )
        : undefined;
      const arrived = await events.since(window.since);
      const documentEvents = arrived.filter(isDocumentEvent);
      await attachDeliveries(`document events after the document verification ${variant.name}`, documentEvents);
      const expected = `a document results event with inquiryId ${JSON.stringify(body.inquiryId)} within WEBHOOK_WAIT_MS (${config.webhook.waitMs} ms)`;
      const seen = `${documentEvents.length} document events in the window; onboarding of its session ${onboarding ? `${onboarding.receivedAt - window.since} ms` : 'not seen'}`;
      // Nothing at all reached the receiver, and the way to it is not proven: the target, or the public URL.
      if (!results) await requireReceiverReached(verdict, events, config, { sent: verdict.sent(exchange), expected });
      expectFlowEvent(verdict, 'EVT-FLOW-DELIVERY', exchange, results, {
        expected,
        actual: `none of this inquiry; ${seen}`,
      });
      if (documentEvents.length === 0) {
        const others = verdict.cited.filter((id) => id !== 'EVT-FLOW-DELIVERY');
        const what = `no document event arrived within ${config.webhook.waitMs} ms of the document verification`;
        const evidence = { sent: verdict.sent(exchange), expected, actual: seen };
        await firstDelivery.missed(what, evidence);
        verdict.blocked(what, evidence, others);
      }
      expectWellFormedDeliveries(verdict, 'EVT-DELIVERY', documentEvents);
      expectValidEvents(verdict, eventRequirements(['onboarding', 'results']), documentEvents, [
        'onboarding',
        'results',
      ]);
      expectResultsForInquiry(verdict, 'EVT-RESULTS-INQUIRY', window, arrived, body.inquiryId, config.runTag, results);
      if (results) expectOnboardingOfSession(verdict, 'EVT-DOC-SESSION-ID', window, arrived, results, onboarding);
      else
        verdict.observe(
          'EVT-DOC-SESSION-ID',
          'no document results event of this inquiry arrived, so its session is not known',
        );
    },
  );
}
