import { observeAnswer } from '../../kit/checks/responses.ts';
import { cites, test } from '../../fixtures/test.ts';
import { validTokenForm, type TokenRequestOptions } from '../../kit/tokens.ts';
import { distinctTokenTarget, sendTokenRequest, tokenServices } from './token-endpoint.ts';

const notAFormPost: ReadonlyArray<{ name: string; options: TokenRequestOptions }> = [
  {
    name: 'the parameters as a JSON body',
    options: { contentType: 'application/json', rawBody: JSON.stringify(validTokenForm()) },
  },
  { name: 'a GET with the parameters in the query', options: { method: 'GET' } },
];

for (const service of tokenServices) {
  for (const variant of notAFormPost) {
    test(
      ...cites(['TOK-FORM-POST'], `the ${service} token endpoint's answer to ${variant.name} is recorded`),
      async ({ config, http, record, redactor, verdict }) => {
        const target = distinctTokenTarget(config, verdict, service);
        const exchange = await sendTokenRequest({ http, record, redactor }, target, {
          ...variant.options,
          note: variant.name,
        });
        observeAnswer(verdict, 'TOK-FORM-POST', exchange, `${service}, ${variant.name}`);
      },
    );
  }
}
