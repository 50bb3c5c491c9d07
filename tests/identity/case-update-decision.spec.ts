import { expectAccepted, expectRefused, observeAnswer, sameEnumValue } from '../../kit/checks/responses.ts';
import { expectCaseDecision, expectTagsOnCase } from '../../kit/checks/identity.ts';
import { caseStateOf } from '../../kit/checks/nothing-changed.ts';
import { caseWithMark, judgeUnchanged } from '../../kit/unchanged-case.ts';
import { freshName } from '../../kit/builders/fresh-names.ts';
import { requireDecisionSet } from '../../kit/preconditions.ts';
import { caseUpdate } from '../../kit/builders/identity-bodies.ts';
import { cites, test } from '../../fixtures/test.ts';
import { enumValues } from '../../schemas/registry.ts';
import { accepted } from '../../kit/http/consequence.ts';

const decisions = enumValues('CaseDecision');

/** A listed decision other than the given one (in any case), so that setting it is a visible change. */
function decisionOtherThan(current: unknown): string {
  return decisions.find((d) => !sameEnumValue(current, d)) as string;
}

for (const decision of decisions) {
  test(
    ...cites(['CU-DECISION-APPLIED'], `the decision ${decision} is accepted and fetched back as the case's decision`),
    async ({ api, verdict, newCase, fetchCase }) => {
      const ref = await newCase();
      const before = await fetchCase(ref);
      if (sameEnumValue(before.body.decision, decision)) {
        // Move the case away first, so that the fetch shows a change this update made.
        const away = await api.call('caseUpdate', {
          body: caseUpdate(ref, { decision: decisionOtherThan(decision) }),
          note: 'moves the decision away first',
        });
        expectAccepted(verdict, 'CU-DECISION-APPLIED', away);
      }
      const updated = await api.call('caseUpdate', { body: caseUpdate(ref, { decision }) });
      expectAccepted(verdict, 'CU-DECISION-APPLIED', updated);
      expectCaseDecision(verdict, 'CU-DECISION-APPLIED', await fetchCase(ref), decision);
    },
  );
}

const [firstDecision = ''] = decisions;
// Near misses only. No null variant: in proto3 JSON a null field reads as omitted (decision unchanged), which 2.5
// allows; no number: proto3 JSON accepts an enum's number as the same value (CU-DECISION-NUMBER observes it).
// `meant`: the listed value a case or whitespace variant spells, which a normalising server may apply.
const outsideTheList: ReadonlyArray<{ name: string; value: string; meant?: string }> = [
  { name: 'another word "ESCALATE"', value: 'ESCALATE' },
  { name: `lower case "${firstDecision.toLowerCase()}"`, value: firstDecision.toLowerCase(), meant: firstDecision },
  { name: 'empty string', value: '' },
  { name: `with spaces " ${firstDecision} "`, value: ` ${firstDecision} `, meant: firstDecision },
];

for (const variant of outsideTheList) {
  const ids = variant.meant ? ['CU-DECISION-ENUM', 'CU-DECISION-VARIANTS'] : ['CU-DECISION-ENUM'];
  test(
    ...cites(
      ids,
      `a decision outside the list is refused, or leaves the decision as it was while the rest of the update applies: ${variant.name}`,
    ),
    async ({ api, verdict, data, newCase, fetchCase }) => {
      const ref = await newCase();
      // A listed decision other than the one the variant means, so that applying the variant would be a visible change.
      const held = decisions.find((d) => d !== variant.meant && d !== firstDecision) ?? firstDecision;
      const set = await api.call('caseUpdate', {
        body: caseUpdate(ref, { decision: held }),
        note: `sets the decision ${held} first`,
      });
      const before = await fetchCase(ref);
      requireDecisionSet(verdict, set, before, held);

      const markers = { decision: variant.value, tags: [freshName('tag', data)] };
      const exchange = await api.call('caseUpdate', {
        body: caseUpdate(ref, markers),
        note: `decision ${JSON.stringify(variant.value)} with a new tag`,
      });
      const taken = accepted(exchange);
      if (variant.meant)
        observeAnswer(verdict, 'CU-DECISION-VARIANTS', exchange, `decision ${JSON.stringify(variant.value)}`);
      if (!taken) {
        expectRefused(verdict, 'CU-DECISION-ENUM', exchange);
        // Refused, the update leaves the case as it was: its decision and no new tag.
        const watch = { api, verdict, data, fetchCase };
        await judgeUnchanged(watch, 'CU-DECISION-ENUM', ref, [{ exchange, markers }], caseStateOf(before.body));
        return;
      }
      // Accepted, its tag is the mark: the decision is judged on the case that shows it.
      const after = await caseWithMark(
        { verdict, fetchCase },
        'CU-DECISION-ENUM',
        ref,
        markers.tags,
        'the tag of the update',
      );
      if (!after) return;
      expectCaseDecision(verdict, 'CU-DECISION-ENUM', after, variant.meant ? [held, variant.meant] : [held], {
        after: `the accepted update (as it was${variant.meant ? ', or the value meant' : ''})`,
      });
      // The rest of the accepted update applied.
      expectTagsOnCase(verdict, 'CU-DECISION-ENUM', after, markers.tags, { after: 'the accepted update' });
    },
  );
}

test(
  ...cites(['CU-DECISION-NUMBER'], 'a decision sent as its enum number: the answer is observed'),
  async ({ api, verdict, newCase }) => {
    const ref = await newCase();
    const exchange = await api.call('caseUpdate', {
      body: caseUpdate(ref, { decision: 1 }),
      note: 'decision as the number 1',
    });
    verdict.observe('CU-DECISION-NUMBER', `decision 1 answered ${exchange.status}`);
  },
);

test(
  ...cites(['CU-DECISION-KEPT'], 'an update without decision leaves the decision set earlier'),
  async ({ api, verdict, data, newCase, fetchCase }) => {
    const ref = await newCase();
    const initial = await fetchCase(ref);
    // Differs from the initial decision, so that a server resetting to it is caught.
    const chosen = decisionOtherThan(initial.body.decision);
    const set = await api.call('caseUpdate', { body: caseUpdate(ref, { decision: chosen }) });
    requireDecisionSet(verdict, set, await fetchCase(ref), chosen);

    // Its tag is the mark: the decision is judged on the case that shows the update.
    const mark = [freshName('mark', data)];
    const withoutDecision = await api.call('caseUpdate', {
      body: caseUpdate(ref, { notes: data.faker.lorem.sentence(), tags: mark }),
      note: 'notes and a tag, no decision',
    });
    expectAccepted(verdict, 'CU-DECISION-KEPT', withoutDecision);
    const after = await caseWithMark({ verdict, fetchCase }, 'CU-DECISION-KEPT', ref, mark, 'the tag of the update');
    if (after) expectCaseDecision(verdict, 'CU-DECISION-KEPT', after, chosen);
  },
);
