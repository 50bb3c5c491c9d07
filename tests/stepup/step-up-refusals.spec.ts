import { expectRefused } from '../../kit/checks/responses.ts';
import { inquiryId, stepUp, unknownCaseId } from '../../kit/builders/identity-bodies.ts';
import { foreignInquiries, foreignInquiryId } from '../../kit/builders/foreign-inquiries.ts';
import { customerIdNearMisses, nearMissBase, serviceIdNearMisses } from '../../kit/builders/near-misses.ts';
import { expectNotTheCase } from '../../kit/checks/identity.ts';
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

// Near misses of the case's real ids (docs/traffic.md): each with the rest of a valid step-up, so that only the id is off.
for (const miss of serviceIdNearMisses) {
  const id = miss.binding ? 'SU-CASE-KNOWN' : 'OBS-SERVICE-ID-FORM';
  test(
    ...cites([id], `a step-up for an authenticationId near the case's is refused: ${miss.name}`, { on: 'stepUp' }),
    async ({ api, verdict, data, newCase }) => {
      const ref = await newCase();
      const near = miss.derive(ref.authenticationId);
      if (near === undefined) return verdict.observe(id, `${miss.id}: not sent, the authenticationId has no letters`);
      const body = stepUp(data, { inquiryId: ref.inquiryId, authenticationId: near }, 'phone');
      const exchange = await api.call('stepUp', { body, note: `authenticationId: ${miss.id}` });
      if (!miss.binding)
        return verdict.observe(id, `step-up, authenticationId ${miss.id}: answered ${exchange.status}`);
      expectRefused(verdict, id, exchange);
      expectNotTheCase(verdict, id, exchange, ref.authenticationId);
    },
  );
}

for (const miss of customerIdNearMisses) {
  const id = miss.binding ? 'SU-INQUIRY-MAPS' : 'OBS-INQUIRY-ID-FORM';
  test(
    ...cites([id], `a step-up whose inquiryId is near the case's is refused: ${miss.name}`, { on: 'stepUp' }),
    async ({ api, verdict, data, newCase }) => {
      const ref = await newCase({ extra: { inquiryId: nearMissBase(inquiryId(data)) } });
      const near = miss.derive(ref.inquiryId) as string;
      const body = stepUp(data, { inquiryId: near, authenticationId: ref.authenticationId }, 'phone');
      const exchange = await api.call('stepUp', { body, note: `inquiryId: ${miss.id}` });
      if (!miss.binding) return verdict.observe(id, `step-up, inquiryId ${miss.id}: answered ${exchange.status}`);
      expectRefused(verdict, id, exchange);
    },
  );
}
