import { expectRefused } from '../../harness/checks/responses.ts';
import { stepUp, unknownCaseId } from '../../harness/builders/identity-bodies.ts';
import { foreignInquiries, foreignInquiryId } from '../../harness/builders/foreign-inquiries.ts';
import { cites, test } from '../../fixtures/test.ts';

for (const field of ['inquiryId', 'authenticationId'] as const) {
  test(...cites(['SU-REQ-REQUIRED'], `a step-up without ${field} is refused`), async ({ api, verdict, data, newCase }) => {
    const ref = await newCase();
    const body = Object.fromEntries(Object.entries(stepUp(data, ref, 'phone')).filter(([name]) => name !== field));
    const exchange = await api.call('stepUp', { body, note: `no ${field}` });
    expectRefused(verdict, 'SU-REQ-REQUIRED', exchange);
  });
}

test(...cites(['SU-CASE-KNOWN'], 'a step-up for an authenticationId no assessment returned is refused'), async ({ api, verdict, data, newCase }) => {
  // The inquiryId is a real one, so that the unknown case is the only defect.
  const ref = await newCase();
  const body = stepUp(data, { inquiryId: ref.inquiryId, authenticationId: unknownCaseId(data) }, 'phone');
  const exchange = await api.call('stepUp', { body, note: 'unknown authenticationId' });
  expectRefused(verdict, 'SU-CASE-KNOWN', exchange);
});


for (const variant of foreignInquiries) {
  test(...cites(['SU-INQUIRY-MAPS'], `a step-up whose inquiryId is not the case's is refused: ${variant.name}`), async ({ api, verdict, data, newCase }) => {
    const ref = await newCase();
    const foreign = await foreignInquiryId(variant, newCase, data);
    const body = stepUp(data, { inquiryId: foreign, authenticationId: ref.authenticationId }, 'phone');
    const exchange = await api.call('stepUp', { body, note: variant.name });
    expectRefused(verdict, 'SU-INQUIRY-MAPS', exchange);
  });
}

/** One field of 2.6 in a JSON type other than the one it states; the rest of the request is valid and was accepted as the control. */
const wrongTypes: ReadonlyArray<{ field: string; type: string; value: unknown }> = [
  { field: 'inquiryId', type: 'a number', value: 1234567 },
  { field: 'authenticationId', type: 'a number', value: 7654321 },
  { field: 'strategy', type: 'a string', value: 'step-up-default' },
  { field: 'phoneNumber', type: 'a number', value: 15555550100 },
  { field: 'email', type: 'an array', value: ['jane@example.test'] },
  { field: 'images', type: 'a string', value: 'front.jpg' },
  { field: 'sharedContext', type: 'a string', value: 'child-organization' },
];

for (const variant of wrongTypes) {
  test(...cites(['SU-REQ-TYPES'], `a step-up with ${variant.field} as ${variant.type} is refused, the same request well typed accepted`), async ({ api, verdict, validRequest }) => {
    const { body } = await validRequest('stepUp');
    const exchange = await api.call('stepUp', { body: { ...(body as object), [variant.field]: variant.value }, note: `${variant.field} as ${variant.type}` });
    expectRefused(verdict, 'SU-REQ-TYPES', exchange);
  });
}
