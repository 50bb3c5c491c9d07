import { expectRefused } from '../../kit/checks/responses.ts';
import { watchCase } from '../../kit/unchanged-case.ts';
import { caseUpdate, inquiryId, unknownCaseId, type BodyContext } from '../../kit/builders/identity-bodies.ts';
import { foreignInquiries, foreignInquiryId } from '../../kit/builders/foreign-inquiries.ts';
import { customerIdNearMisses, nearMissBase, serviceIdNearMisses } from '../../kit/builders/near-misses.ts';
import { expectNotTheCase } from '../../kit/checks/identity.ts';
import { cites, test } from '../../fixtures/test.ts';

const notes = ({ faker }: BodyContext) => ({ notes: faker.lorem.sentence() });

test(
  ...cites(
    ['CU-CASE-KNOWN'],
    'a case update for an authenticationId no assessment returned is refused, and the case of its inquiry is left as it was',
  ),
  async ({ api, verdict, data, newCase, fetchCase }) => {
    // The inquiryId is a real one, so that the unknown case is the only defect.
    const ref = await newCase();
    const watched = await watchCase({ api, verdict, data, fetchCase }, ref);
    const markers = watched.markers();
    const exchange = await api.call('caseUpdate', {
      body: caseUpdate(
        { inquiryId: ref.inquiryId, authenticationId: unknownCaseId(data) },
        { ...notes(data), ...markers },
      ),
      note: 'unknown authenticationId',
    });
    expectRefused(verdict, 'CU-CASE-KNOWN', exchange);
    await watched.judge('CU-CASE-KNOWN', [{ exchange, markers }]);
  },
);

for (const variant of foreignInquiries) {
  test(
    ...cites(
      ['CU-INQUIRY-MAPS'],
      `a case update whose inquiryId is not the case's is refused, and the case is left as it was: ${variant.name}`,
    ),
    async ({ api, verdict, data, newCase, fetchCase }) => {
      const ref = await newCase();
      const foreign = await foreignInquiryId(variant, newCase, data);
      const watched = await watchCase({ api, verdict, data, fetchCase }, ref);
      const markers = watched.markers();
      const exchange = await api.call('caseUpdate', {
        body: caseUpdate(
          { inquiryId: foreign, authenticationId: ref.authenticationId },
          { ...notes(data), ...markers },
        ),
        note: variant.name,
      });
      expectRefused(verdict, 'CU-INQUIRY-MAPS', exchange);
      await watched.judge('CU-INQUIRY-MAPS', [{ exchange, markers }]);
    },
  );
}

// Near misses of the case's real ids (docs/traffic.md): each with the rest of a valid update, so that only the id is off.
for (const miss of serviceIdNearMisses) {
  const id = miss.binding ? 'CU-CASE-KNOWN' : 'OBS-SERVICE-ID-FORM';
  test(
    ...cites([id], `a case update for an authenticationId near the case's is not applied to the case: ${miss.name}`, {
      on: 'caseUpdate',
    }),
    async ({ api, verdict, data, newCase, fetchCase }) => {
      const ref = await newCase();
      const near = miss.derive(ref.authenticationId);
      if (near === undefined) return verdict.observe(id, `${miss.id}: not sent, the authenticationId has no letters`);
      const watched = await watchCase({ api, verdict, data, fetchCase }, ref);
      const markers = watched.markers();
      const exchange = await api.call('caseUpdate', {
        body: caseUpdate({ inquiryId: ref.inquiryId, authenticationId: near }, { ...notes(data), ...markers }),
        note: `authenticationId: ${miss.id}`,
      });
      if (!miss.binding)
        return verdict.observe(id, `case update, authenticationId ${miss.id}: answered ${exchange.status}`);
      expectRefused(verdict, id, exchange);
      expectNotTheCase(verdict, id, exchange, ref.authenticationId);
      await watched.judge(id, [{ exchange, markers }]);
    },
  );
}

for (const miss of customerIdNearMisses) {
  const id = miss.binding ? 'CU-INQUIRY-MAPS' : 'OBS-INQUIRY-ID-FORM';
  test(
    ...cites(
      [id],
      `a case update whose inquiryId is near the case's is refused, and the case is left as it was: ${miss.name}`,
      {
        on: 'caseUpdate',
      },
    ),
    async ({ api, verdict, data, newCase, fetchCase }) => {
      const ref = await newCase({ extra: { inquiryId: nearMissBase(inquiryId(data)) } });
      const near = miss.derive(ref.inquiryId) as string;
      const watched = await watchCase({ api, verdict, data, fetchCase }, ref);
      const markers = watched.markers();
      const exchange = await api.call('caseUpdate', {
        body: caseUpdate({ inquiryId: near, authenticationId: ref.authenticationId }, { ...notes(data), ...markers }),
        note: `inquiryId: ${miss.id}`,
      });
      if (!miss.binding) return verdict.observe(id, `case update, inquiryId ${miss.id}: answered ${exchange.status}`);
      expectRefused(verdict, id, exchange);
      await watched.judge(id, [{ exchange, markers }]);
    },
  );
}
