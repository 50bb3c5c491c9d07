import { expectAccepted, expectEqual, expectRefused } from '../../kit/checks/responses.ts';
import { bodyOf } from '../../fixtures/preconditions.ts';
import { cites, test } from '../../fixtures/test.ts';
import { unknownCaseId } from '../../kit/builders/identity-bodies.ts';
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
