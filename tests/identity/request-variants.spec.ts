import { variantRequirements, variantTitle } from '../../kit/builders/request-variants.ts';
import { sendRequestVariants } from '../../kit/variant-rows.ts';
import { cites, test } from '../../fixtures/test.ts';

// Requests HTTP says are the same as the canonical one, each on a request of its own, judged against the canonical
// answer of the same target (docs/traffic.md): ordinary requests stay canonical, so a mishandled variant fails no MUST.
for (const id of ['assessment', 'documentVerification', 'documentRecords', 'fetchAssessment', 'caseUpdate'] as const) {
  const options = { unparsable: true };
  test(
    ...cites(variantRequirements(id, options), variantTitle(id, options), { on: id }),
    ({ api, verdict, validRequest }) =>
      sendRequestVariants({ api, verdict }, id, () => validRequest(id, { control: false }), {
        ...options,
        // Updates of one case go one after the other: 2.5 does not say a target takes overlapping ones.
        oneAtATime: id === 'caseUpdate',
      }),
  );
}
