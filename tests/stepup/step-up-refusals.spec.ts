import { expectRefused } from '../../fixtures/checks.ts';
import { stepUp, unknownCaseId } from '../../fixtures/builders/identity-bodies.ts';
import { foreignInquiries, foreignInquiryId } from '../../fixtures/flows.ts';
import { cites, test } from '../../fixtures/test.ts';

for (const field of ['inquiryId', 'authenticationId'] as const) {
  test(...cites(['SU-REQ-REQUIRED'], `a step-up without ${field} is refused`), async ({ api, verdict, config, data, newCase }) => {
    const ref = await newCase();
    const body = Object.fromEntries(Object.entries(stepUp(data, ref, 'phone', config.strategies.stepUp)).filter(([name]) => name !== field));
    const exchange = await api.call('stepUp', { body, note: `no ${field}` });
    expectRefused(verdict, 'SU-REQ-REQUIRED', exchange);
  });
}

test(...cites(['SU-CASE-KNOWN'], 'a step-up for an authenticationId no assessment returned is refused'), async ({ api, verdict, config, data, newCase }) => {
  // The inquiryId is a real one, so that the unknown case is the only defect.
  const ref = await newCase();
  const body = stepUp(data, { inquiryId: ref.inquiryId, authenticationId: unknownCaseId(data) }, 'phone', config.strategies.stepUp);
  const exchange = await api.call('stepUp', { body, note: 'unknown authenticationId' });
  expectRefused(verdict, 'SU-CASE-KNOWN', exchange);
});


for (const variant of foreignInquiries) {
  test(...cites(['SU-INQUIRY-MAPS'], `a step-up whose inquiryId is not the case's is refused: ${variant.name}`), async ({ api, verdict, config, data, newCase }) => {
    const ref = await newCase();
    const foreign = await foreignInquiryId(variant, newCase, data);
    const body = stepUp(data, { inquiryId: foreign, authenticationId: ref.authenticationId }, 'phone', config.strategies.stepUp);
    const exchange = await api.call('stepUp', { body, note: variant.name });
    expectRefused(verdict, 'SU-INQUIRY-MAPS', exchange);
  });
}
