import { variantRequirements, variantTitle } from '../../kit/builders/request-variants.ts';
import { sendRequestVariants } from '../../kit/variant-rows.ts';
import { cites, test } from '../../fixtures/test.ts';

// As tests/identity/request-variants.spec.ts, for the step-up: its calls on one case go one after the other.
const options = { unparsable: true };
test(
  ...cites(variantRequirements('stepUp', options), variantTitle('stepUp', options), { on: 'stepUp' }),
  ({ api, verdict, validRequest }) =>
    sendRequestVariants({ api, verdict }, 'stepUp', () => validRequest('stepUp', { control: false }), {
      ...options,
      oneAtATime: true,
    }),
);
