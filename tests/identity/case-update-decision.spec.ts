import { expectAccepted, expectEnumValue, expectRefused, sameEnumValue } from '../../harness/checks/responses.ts';
import { caseUpdate } from '../../harness/builders/identity-bodies.ts';
import { watchCase } from '../../harness/checks/nothing-changed.ts';
import { cites, test } from '../../fixtures/test.ts';
import { enumValues } from '../../schemas/registry.ts';

const decisions = enumValues('CaseDecision');

/** A listed decision other than the given one (in any case), so that setting it is a visible change. */
function decisionOtherThan(current: unknown): string {
  return decisions.find((d) => !sameEnumValue(current, d)) as string;
}

for (const decision of decisions) {
  test(...cites(['CU-DECISION-APPLIED'], `the decision ${decision} is accepted and fetched back as the case's decision`), async ({ api, verdict, newCase, fetchCase }) => {
    const ref = await newCase();
    const before = await fetchCase(ref);
    if (sameEnumValue(before.body.decision, decision)) {
      // Move the case away first, so that the fetch shows a change this update made.
      const away = await api.call('caseUpdate', { body: caseUpdate(ref, { decision: decisionOtherThan(decision) }), note: 'moves the decision away first' });
      expectAccepted(verdict, 'CU-DECISION-APPLIED', away);
    }
    const updated = await api.call('caseUpdate', { body: caseUpdate(ref, { decision }) });
    expectAccepted(verdict, 'CU-DECISION-APPLIED', updated);
    const after = await fetchCase(ref);
    expectEnumValue(verdict, 'CU-DECISION-APPLIED', 'decision of the fetched case', after.body.decision, decision, after.exchange);
  });
}

const [firstDecision = ''] = decisions;
// Near misses only. No null variant: in proto3 JSON a null field reads as omitted (decision unchanged), which 2.5
// allows; no number: proto3 JSON accepts an enum's number as the same value (CU-DECISION-NUMBER observes it).
const outsideTheList = [
  { name: 'another word "ESCALATE"', value: 'ESCALATE' },
  { name: `lower case "${firstDecision.toLowerCase()}"`, value: firstDecision.toLowerCase() },
  { name: 'empty string', value: '' },
  { name: `with spaces " ${firstDecision} "`, value: ` ${firstDecision} ` },
] as const;

for (const variant of outsideTheList) {
  test(...cites(['CU-DECISION-ENUM'], `a decision outside the list is refused: ${variant.name}`), async ({ api, verdict, data, newCase, fetchCase }) => {
    const ref = await newCase();
    const watched = await watchCase(fetchCase, ref, data);
    const markers = watched.markers(['decision']);
    const exchange = await api.call('caseUpdate', { body: caseUpdate(ref, { decision: variant.value, ...markers }) });
    expectRefused(verdict, 'CU-DECISION-ENUM', exchange);
    // Refused, the update leaves the case as it was; ignored (2.5's pattern for an unknown queue), it is judged elsewhere.
    await watched.judge(verdict, 'CU-DECISION-ENUM', [{ exchange, markers: { ...markers, decision: String(variant.value) } }]);
  });
}

test(...cites(['CU-DECISION-NUMBER'], 'a decision sent as its enum number: the answer is observed'), async ({ api, verdict, newCase }) => {
  const ref = await newCase();
  const exchange = await api.call('caseUpdate', { body: caseUpdate(ref, { decision: 1 }), note: 'decision as the number 1' });
  verdict.observe('CU-DECISION-NUMBER', `decision 1 answered ${exchange.status}`);
});

test(...cites(['CU-DECISION-KEPT'], 'an update without decision leaves the decision set earlier'), async ({ api, verdict, data, newCase, fetchCase }) => {
  const ref = await newCase();
  const initial = await fetchCase(ref);
  // Differs from the initial decision, so that a server resetting to it is caught.
  const chosen = decisionOtherThan(initial.body.decision);
  const set = await api.call('caseUpdate', { body: caseUpdate(ref, { decision: chosen }) });
  const afterSet = await fetchCase(ref);
  verdict.precondition(set.status >= 200 && set.status < 300 && sameEnumValue(afterSet.body.decision, chosen), `an update sets the decision ${chosen}`, () => ({
    sent: verdict.sent(set),
    expected: `success (2xx), then the fetched decision ${chosen}`,
    actual: `${verdict.answer(set)}; fetched decision ${JSON.stringify(afterSet.body.decision)}`,
  }));

  const withoutDecision = await api.call('caseUpdate', { body: caseUpdate(ref, { notes: data.faker.lorem.sentence() }), note: 'notes only, no decision' });
  expectAccepted(verdict, 'CU-DECISION-KEPT', withoutDecision);
  const after = await fetchCase(ref);
  expectEnumValue(verdict, 'CU-DECISION-KEPT', 'decision of the fetched case', after.body.decision, chosen, after.exchange);
});
