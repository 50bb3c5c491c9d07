import { operations } from '../../catalog/catalog.ts';
import { basicSchemeSpellings, capitalisedHeaderName } from '../../kit/builders/request-variants.ts';
import { expectAnsweredAlike, tokenConsequence, type CanonicalAnswer } from '../../kit/checks/request-variants.ts';
import type { TokenRequestOptions } from '../../kit/tokens.ts';
import { cites, test } from '../../fixtures/test.ts';
import { distinctTokenTarget, sendTokenRequest, tokenServices, type TokenService } from './token-endpoint.ts';

/** The token request of 4.1 as other clients write it, each judged against the canonical one's answer. */
const variants: ReadonlyArray<{
  requirement: 'TOK-BASIC-CASE' | 'HDR-NAME-CASE';
  name: string;
  options: (apiKey: string) => TokenRequestOptions;
}> = [
  ...basicSchemeSpellings.map((scheme) => ({
    requirement: 'TOK-BASIC-CASE' as const,
    name: `the scheme written "${scheme}"`,
    options: (apiKey: string) => ({ authorization: `${scheme} ${apiKey}` }),
  })),
  {
    requirement: 'HDR-NAME-CASE',
    name: 'header names capitalised (Authorization, Content-Type)',
    options: () => ({ headerCase: capitalisedHeaderName }),
  },
];

/** An operation whose token comes from the service's token endpoint: the run's token for it answers the canonical request. */
const operationOf = (service: TokenService) => operations.find((op) => op.service === service)?.id ?? 'assessment';

for (const service of tokenServices) {
  test(
    ...cites(
      ['TOK-BASIC-CASE', 'HDR-NAME-CASE'],
      `the ${service} token endpoint issues a token for the request of 4.1 as other clients write it (the scheme "basic" or "BASIC", capitalised header names), as for the canonical one`,
    ),
    async ({ api, config, http, record, redactor, verdict }) => {
      const target = distinctTokenTarget(config, verdict, service);
      // The canonical request (Basic, lower-case names) is the one the run's token was issued for; none blocks the test.
      await api.tokenFor(operationOf(service));
      const canonical: CanonicalAnswer = {
        consequence: 'accepted',
        shown: "the run's token was issued for Authorization: Basic <API_KEY>",
      };
      const exchanges = await Promise.all(
        variants.map((variant) =>
          sendTokenRequest({ http, record, redactor }, target, {
            ...variant.options(target.apiKey),
            note: variant.name,
          }),
        ),
      );
      variants.forEach((variant, index) =>
        expectAnsweredAlike(verdict, variant.requirement, exchanges[index]!, canonical, tokenConsequence),
      );
    },
  );
}
