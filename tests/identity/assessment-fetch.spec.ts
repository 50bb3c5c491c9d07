import { expectAccepted, expectEqual, expectRefused } from '../../kit/checks/responses.ts';
import { bodyOf, requireSuccess } from '../../fixtures/preconditions.ts';

import { clientTags } from '../../kit/builders/client-values.ts';
import { takeReadWait } from '../../kit/reads-after-writes.ts';
import { cites, test } from '../../fixtures/test.ts';
import { caseUpdate, unknownCaseId } from '../../kit/builders/identity-bodies.ts';
import { serviceIdNearMisses } from '../../kit/builders/near-misses.ts';
import { expectNotTheCase } from '../../kit/checks/identity.ts';

test(
  ...cites(['ASM-FETCH-SAME-CASE'], 'fetching the earlier of two cases yields that case, not the later one'),
  async ({ api, verdict, newCase }) => {
    const first = await newCase();
    await newCase();
    const fetched = await api.call('fetchAssessment', {
      pathParams: { caseId: first.authenticationId },
      note: 'the earlier of two cases',
    });
    expectAccepted(verdict, 'ASM-FETCH-SAME-CASE', fetched);
    expectEqual(
      verdict,
      'ASM-FETCH-SAME-CASE',
      'authenticationId',
      bodyOf(fetched).authenticationId,
      first.authenticationId,
      fetched,
    );
    expectEqual(verdict, 'ASM-FETCH-SAME-CASE', 'inquiryId', bodyOf(fetched).inquiryId, first.inquiryId, fetched);
  },
);

test(
  ...cites(['ASM-FETCH-UNKNOWN'], 'fetching a case identifier that was never issued is refused'),
  async ({ api, verdict, data }) => {
    const exchange = await api.call('fetchAssessment', {
      pathParams: { caseId: unknownCaseId(data) },
      note: 'a case identifier never issued',
    });
    expectRefused(verdict, 'ASM-FETCH-UNKNOWN', exchange);
  },
);

for (const header of ['x-client-id', 'x-correlation-id']) {
  test(
    ...cites(['HDR-FETCH-ASSESSMENT'], `fetch by case identifier without ${header} is recorded`, {
      on: 'fetchAssessment',
    }),
    async ({ api, verdict, newCase }) => {
      const ref = await newCase();
      const exchange = await api.call('fetchAssessment', {
        pathParams: { caseId: ref.authenticationId },
        omit: [header],
      });
      verdict.observe('HDR-FETCH-ASSESSMENT', `without ${header}: answered ${exchange.status}`);
    },
  );
}

// Near misses of a real case identifier (docs/traffic.md). Where ids are sequential a near miss may be another real
// case: the fetch is judged by whose case it shows, not by its status.
for (const miss of serviceIdNearMisses) {
  const id = miss.binding ? 'ASM-FETCH-UNKNOWN' : 'OBS-SERVICE-ID-FORM';
  test(
    ...cites([id], `fetching a case identifier near a real one does not show that case: ${miss.name}`, {
      on: 'fetchAssessment',
    }),
    async ({ api, verdict, newCase }) => {
      const ref = await newCase();
      const near = miss.derive(ref.authenticationId);
      if (near === undefined) return verdict.observe(id, `${miss.id}: not sent, the authenticationId has no letters`);
      const exchange = await api.call('fetchAssessment', { pathParams: { caseId: near }, note: `caseId: ${miss.id}` });
      if (!miss.binding) return verdict.observe(id, `fetch, caseId ${miss.id}: answered ${exchange.status}`);
      expectNotTheCase(verdict, id, exchange, ref.authenticationId);
    },
  );
}

test(
  ...cites(['OBS-READ-LAG'], 'how long after its writes the fetch by case identifier shows them is recorded', {
    on: 'fetchAssessment',
  }),
  async ({ api, verdict, config, data, newCase, fetchCase }) => {
    const ref = await newCase();
    const created = await fetchCase(ref);
    const afterCreation = takeReadWait();
    const update = await api.call('caseUpdate', { body: caseUpdate(ref, { tags: clientTags(data) }) });
    requireSuccess({ verdict, config }, update, 'a case update with tags is accepted (4.6)');
    await fetchCase(ref);
    const afterUpdate = takeReadWait();
    const lag = (wait: ReturnType<typeof takeReadWait>) =>
      wait
        ? `${wait.shown ? 'shown' : 'not shown'} after ${wait.waitedMs} ms (${wait.reads} reads)`
        : 'shown by the first read';
    verdict.observe(
      'OBS-READ-LAG',
      `the case created: ${lag(afterCreation)}; the update's tags: ${lag(afterUpdate)} (first read status ${created.exchange.status})`,
    );
  },
);
