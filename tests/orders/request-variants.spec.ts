import { newOrder } from '../../kit/builders/order-requests.ts';
import { variantRequirements, variantTitle } from '../../kit/builders/request-variants.ts';
import { sendRequestVariants } from '../../kit/variant-rows.ts';
import { cites, test } from '../../fixtures/orders.ts';

// As tests/identity/request-variants.spec.ts, for the order endpoint; its unparsable bodies are part 7's
// (tests/orders/request-defects.spec.ts, negative-input.spec.ts). A refused variant meets the envelope rules.
const options = { unparsable: false };
test(
  ...cites(variantRequirements('createOrder', options), variantTitle('createOrder', options)),
  ({ api, verdict, config, data }) =>
    sendRequestVariants({ api, verdict }, 'createOrder', async () => ({ body: newOrder(config, data) }), {
      ...options,
      oneAtATime: false,
    }),
);
