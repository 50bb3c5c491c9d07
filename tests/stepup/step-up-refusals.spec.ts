import { expectRefused } from '../../kit/checks/responses.ts';
import { stepUp, unknownCaseId } from '../../kit/builders/identity-bodies.ts';
import { foreignInquiries, foreignInquiryId } from '../../kit/builders/foreign-inquiries.ts';
import { cites, test } from '../../fixtures/test.ts';

test(
  ...cites(['SU-CASE-KNOWN'], 'a step-up for an authenticationId no assessment returned is refused'),
  async ({ api, verdict, data, newCase }) => {
    // The inquiryId is a real one, so that the unknown case is the only defect.
    const ref = await newCase();
    const body = stepUp(data, { inquiryId: ref.inquiryId, authenticationId: unknownCaseId(data) }, 'phone');
    const exchange = await api.call('stepUp', { body, note: 'unknown authenticationId' });
    expectRefused(verdict, 'SU-CASE-KNOWN', exchange);
  },
);

for (const variant of foreignInquiries) {
  test(
    ...cites(['SU-INQUIRY-MAPS'], `a step-up whose inquiryId is not the case's is refused: ${variant.name}`),
    async ({ api, verdict, data, newCase }) => {
      const ref = await newCase();
      const foreign = await foreignInquiryId(variant, newCase, data);
      const body = stepUp(data, { inquiryId: foreign, authenticationId: ref.authenticationId }, 'phone');
      const exchange = await api.call('stepUp', { body, note: variant.name });
      expectRefused(verdict, 'SU-INQUIRY-MAPS', exchange);
    },
  );
}
