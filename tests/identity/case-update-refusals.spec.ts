import { expectRefused } from '../../kit/checks/responses.ts';
import { watchCase } from '../../kit/checks/nothing-changed.ts';
import { caseUpdate, unknownCaseId, type BodyContext } from '../../kit/builders/identity-bodies.ts';
import { foreignInquiries, foreignInquiryId } from '../../kit/builders/foreign-inquiries.ts';
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
    const watched = await watchCase(fetchCase, ref, data);
    const markers = watched.markers();
    const exchange = await api.call('caseUpdate', {
      body: caseUpdate(
        { inquiryId: ref.inquiryId, authenticationId: unknownCaseId(data) },
        { ...notes(data), ...markers },
      ),
      note: 'unknown authenticationId',
    });
    expectRefused(verdict, 'CU-CASE-KNOWN', exchange);
    await watched.judge(verdict, 'CU-CASE-KNOWN', [{ exchange, markers }]);
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
      const watched = await watchCase(fetchCase, ref, data);
      const markers = watched.markers();
      const exchange = await api.call('caseUpdate', {
        body: caseUpdate(
          { inquiryId: foreign, authenticationId: ref.authenticationId },
          { ...notes(data), ...markers },
        ),
        note: variant.name,
      });
      expectRefused(verdict, 'CU-INQUIRY-MAPS', exchange);
      await watched.judge(verdict, 'CU-INQUIRY-MAPS', [{ exchange, markers }]);
    },
  );
}
