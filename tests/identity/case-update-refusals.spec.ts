import { expectRefused } from '../../harness/checks/responses.ts';
import { caseUpdate, unknownCaseId, type BodyContext } from '../../harness/builders/identity-bodies.ts';
import { foreignInquiries, foreignInquiryId } from '../../harness/builders/foreign-inquiries.ts';
import { cites, test } from '../../fixtures/test.ts';

const notes = ({ faker }: BodyContext) => ({ notes: faker.lorem.sentence() });

for (const field of ['inquiryId', 'authenticationId'] as const) {
  test(...cites(['CU-REQ-REQUIRED'], `a case update without ${field} is refused`), async ({ api, verdict, data, newCase }) => {
    const ref = await newCase();
    const body = Object.fromEntries(Object.entries(caseUpdate(ref, notes(data))).filter(([name]) => name !== field));
    const exchange = await api.call('caseUpdate', { body, note: `no ${field}` });
    expectRefused(verdict, 'CU-REQ-REQUIRED', exchange);
  });
}

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

/**
 * One field of 2.5 in a JSON type other than the one it states; the rest of the request is valid and was accepted as
 * the control. queue, rejectionCode and externalAgent are left out (2.5 says their values are not validated or left
 * unchanged), as are the decision (3.3, CU-DECISION-ENUM) and verifiedFraud (CU-VERIFIED-FRAUD-TYPE).
 */
const wrongTypes: ReadonlyArray<{ field: string; type: string; value: unknown }> = [
  { field: 'inquiryId', type: 'a number', value: 1234567 },
  { field: 'authenticationId', type: 'a number', value: 7654321 },
  { field: 'tags', type: 'a string', value: 'vip' },
  { field: 'tags', type: 'an array of numbers', value: [1, 2] },
  { field: 'notes', type: 'a number', value: 42 },
  { field: 'strategy', type: 'an object', value: { name: 'default' } },
  { field: 'customFields', type: 'an array', value: ['campaign'] },
  { field: 'documents', type: 'an object', value: { type: 'passport' } },
  { field: 'sharedContext', type: 'a string', value: 'child-organization' },
];

for (const variant of wrongTypes) {
  test(...cites(['CU-REQ-TYPES'], `a case update with ${variant.field} as ${variant.type} is refused, the same request well typed accepted`), async ({ api, verdict, validRequest }) => {
    const { body } = await validRequest('caseUpdate');
    const exchange = await api.call('caseUpdate', { body: { ...(body as object), [variant.field]: variant.value }, note: `${variant.field} as ${variant.type}` });
    expectRefused(verdict, 'CU-REQ-TYPES', exchange);
  });
}
