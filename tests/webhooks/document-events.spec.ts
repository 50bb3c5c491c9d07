import { fullDocumentVerification } from '../../harness/builders/identity-bodies.ts';
import type { Preconditions } from '../../fixtures/preconditions.ts';
import { expectValidEvents, expectWellFormedDeliveries } from '../../harness/checks/webhook-events.ts';
import { eventKind } from '../../harness/webhooks/events.ts';
import { awaitOnboardingOfSession, awaitResultsOfInquiry, expectOnboardingOfSession, expectResultsForInquiry, type Window } from '../../harness/webhooks/ties.ts';
import { cites, skipUnlessFlowsRun, test } from '../../fixtures/webhooks.ts';

type Setup = (newCase: Preconditions['newCase']) => Promise<string | undefined>;

const variants: ReadonlyArray<{ name: string; inquiry: Setup }> = [
  { name: 'for a new inquiry', inquiry: async () => undefined },
  { name: 'for the inquiry of an existing case', inquiry: async (newCase) => (await newCase()).inquiryId },
];

const isDocumentEvent = (d: { json?: unknown }) => ['onboarding', 'results'].includes(eventKind(d.json) ?? '');

for (const variant of variants) {
  test(
    ...cites(
      ['EVT-DELIVERY', 'EVT-ONBOARDING-SCHEMA', 'EVT-RESULTS-SCHEMA', 'EVT-RESULTS-INQUIRY', 'EVT-DOC-SESSION-ID', 'EVT-FLOW-DELIVERY'],
      `a document verification ${variant.name} is reported by events tied to its inquiry and session`,
      { on: ['onboarding', 'results'] },
    ),
    async ({ api, verdict, config, data, receiver, attachDeliveries, newCase }) => {
      skipUnlessFlowsRun(verdict, config, receiver);
      const body = fullDocumentVerification(data, config.strategies.documentVerification, await variant.inquiry(newCase));
      const window: Window = { receiver, since: Date.now(), timeoutMs: config.webhook.waitMs };
      const exchange = await api.call('documentVerification', { body });
      verdict.precondition(exchange.status >= 200 && exchange.status < 300, `the document verification ${variant.name} is accepted`, () => ({
        sent: verdict.sent(exchange),
        expected: 'success (2xx)',
        actual: verdict.answer(exchange),
      }));

      const results = await awaitResultsOfInquiry(window, body.inquiryId);
      const onboarding = results ? await awaitOnboardingOfSession(window, results) : undefined;
      const events = receiver.since(window.since).filter(isDocumentEvent);
      await attachDeliveries(`document events after the document verification ${variant.name}`, events);
      const expected = `a document results event with inquiryId ${JSON.stringify(body.inquiryId)} within WEBHOOK_WAIT_MS (${config.webhook.waitMs} ms)`;
      const seen = `${events.length} document events in the window; onboarding of its session ${onboarding ? `${onboarding.receivedAt - window.since} ms` : 'not seen'}`;
      verdict.check('EVT-FLOW-DELIVERY', results !== undefined, () => ({ sent: verdict.sent(exchange), expected, actual: `none of this inquiry; ${seen}` }));
      if (events.length === 0) {
        const others = verdict.cited.filter((id) => id !== 'EVT-FLOW-DELIVERY');
        verdict.blocked(`no document event arrived within ${config.webhook.waitMs} ms of the document verification`, { sent: verdict.sent(exchange), expected, actual: seen }, others);
      }
      expectWellFormedDeliveries(verdict, events);
      expectValidEvents(verdict, events, ['onboarding', 'results']);
      expectResultsForInquiry(verdict, window, body.inquiryId, config.runTag, results);
      if (results) expectOnboardingOfSession(verdict, window, results, onboarding);
      else verdict.observe('EVT-DOC-SESSION-ID', 'no document results event of this inquiry arrived, so its session is not known');
    },
  );
}
