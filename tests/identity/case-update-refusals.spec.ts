import { expectRefused } from '../../harness/checks/responses.ts';
import { caseUpdate, unknownCaseId, type BodyContext } from '../../harness/builders/identity-bodies.ts';
import { foreignInquiries, foreignInquiryId } from '../../harness/builders/foreign-inquiries.ts';
import { cites, test } from '../../fixtures/test.ts';

const notes = ({ faker }: BodyContext) => ({ notes: faker.lorem.sentence() });

test(...cites(['CU-CASE-KNOWN'], 'a case update for an authenticationId no assessment returned is refused'), async ({ api, verdict, data, newCase }) => {
  // The inquiryId is a real one, so that the unknown case is the only defect.
  const ref = await newCase();
  const exchange = await api.call('caseUpdate', { body: caseUpdate({ inquiryId: ref.inquiryId, authenticationId: unknownCaseId(data) }, notes(data)), note: 'unknown authenticationId' });
  expectRefused(verdict, 'CU-CASE-KNOWN', exchange);
});


for (const variant of foreignInquiries) {
  test(...cites(['CU-INQUIRY-MAPS'], `a case update whose inquiryId is not the case's is refused: ${variant.name}`), async ({ api, verdict, data, newCase }) => {
    const ref = await newCase();
    const foreign = await foreignInquiryId(variant, newCase, data);
    const exchange = await api.call('caseUpdate', { body: caseUpdate({ inquiryId: foreign, authenticationId: ref.authenticationId }, notes(data)), note: variant.name });
    expectRefused(verdict, 'CU-INQUIRY-MAPS', exchange);
  });
}

