import { expectValidEvents, expectWellFormedDeliveries } from '../../kit/checks/webhook-events.ts';
import {
  deliveryRequirements,
  eventKind,
  eventKinds,
  eventRequirements,
  kindTitle,
  requirementsOf,
} from '../../kit/webhooks/events.ts';
import type { DeliveryRecord } from '../../kit/webhooks/run-events.ts';
import { silentReceiverCause } from '../../kit/webhooks/receiver-path.ts';
import { cites, noReceiver, test } from '../../fixtures/webhooks.ts';

// The run-end project's one test (runner/config/projects.ts): it waits until every other test of the run that sends to
// this target has ended (runner/run-progress.ts; on a single worker it cannot, and judges what came until it runs),
// then until every step-up of the run has its event or its window has ended, then judges every delivery the run's
// receiver (in the runner process) got, from the preflight on, whichever test caused it.

function policyObservation(deliveries: readonly DeliveryRecord[]): string {
  const names = [...new Set(deliveries.flatMap((d) => d.headers.map(([name]) => name)))].sort();
  const bodies = deliveries.filter((d) => d.jsonError === undefined).map((d) => JSON.stringify(d.json));
  const repeated = bodies.length - new Set(bodies).size;
  return `${deliveries.length} deliveries; header names seen: ${names.join(', ') || '(none)'}; ${repeated} repeated bodies (retries?); the receiver answered {} with 200 to every complete delivery`;
}

test(
  ...cites(
    [...deliveryRequirements(), 'EVT-POLICY-OBSERVED'],
    'every delivery the receiver got during the run is a valid part-6 event',
    { on: eventKinds },
  ),
  async ({ config, verdict, events, attachDeliveries, firstDelivery }, testInfo) => {
    if (!events) return verdict.notConfigured(noReceiver(config));
    // The rest of the run, each test of it bounded by its own timeout, then the event window at most.
    test.setTimeout(0);
    await events.othersEnded(testInfo.testId);
    let flows = 0;
    // A flow's window ended with nothing at the receiver, and nothing came since: the step-ups still live would only be
    // waited out again.
    if (config.webhook.mode === 'active') await firstDelivery.standsOn();
    if (config.webhook.mode === 'passive') {
      await events.listen(Date.now() + config.webhook.passiveWindowMs);
    } else {
      ({ flows } = await events.settle(Date.now() + config.webhook.waitMs));
    }
    const deliveries = await events.all();
    await attachDeliveries('every delivery of the run', deliveries);
    if (deliveries.length === 0 && config.webhook.mode === 'active' && flows === 0) {
      return verdict.nothingToJudge(verdict.cited, 'no test of this run caused an event, and none was delivered');
    }
    if (deliveries.length === 0) {
      if (config.webhook.mode === 'active') {
        const silent = await silentReceiverCause(events, config);
        return verdict.blocked(silent ?? 'the target delivered no webhook during the run, although its flows ran', {
          expected: 'the part-6 events of the flows of tests/webhooks',
          actual: silent ? 'no delivery at all' : 'no delivery',
        });
      }
      const reason = `no delivery received in the passive window of ${config.webhook.passiveWindowMs} ms`;
      verdict.nothingToJudge(verdict.cited, reason);
      return;
    }
    // Every delivery that reached the receiver is judged, whatever it is: one that is none of the three events fails
    // EVT-DELIVERY, an event that lacks a stated member fails its event's schema. The receiver's address is given to
    // the target under test alone, so whatever arrives is the target's to answer for.
    verdict.observe('EVT-POLICY-OBSERVED', policyObservation(deliveries));
    expectWellFormedDeliveries(verdict, 'EVT-DELIVERY', deliveries);
    expectValidEvents(verdict, eventRequirements(eventKinds), deliveries, eventKinds);
    for (const kind of eventKinds) {
      if (deliveries.some((d) => eventKind(d.json) === kind)) continue;
      const reason = `the target never produced it: no ${kindTitle(kind).toLowerCase()} of this run arrived`;
      // Onboarding status changes are the target's to report or not; a results event ends every document flow.
      if (config.webhook.mode === 'active' && kind === 'results')
        verdict.blockedWithoutStopping(requirementsOf(kind), reason);
      else for (const id of requirementsOf(kind)) verdict.notProduced(id, reason);
    }
  },
);
