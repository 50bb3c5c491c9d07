import type { Faker } from '@faker-js/faker';
import { operation } from '../../catalog/catalog.ts';
import { expectAccepted, expectRefused } from '../../kit/checks/responses.ts';
import type { ServiceTarget } from '../../kit/config/suite-config.ts';
import { cites, test } from '../../fixtures/test.ts';
import { tamperedInTheMiddle, tamperedNearTheEnd, unknownLike } from '../../kit/builders/token-variants.ts';
import { expectBearerChallenge } from '../../kit/checks/auth.ts';
import { protectedOperations } from './protected-calls.ts';

/**
 * What goes in the Authorization header: a value (with the token made from a real one, to keep out of reports),
 * nothing at all, or nothing because the target configures none.
 */
type Credential = { value: string; derivedToken?: string } | { omitted: true } | { unavailable: string };

interface CredentialContext {
  target: ServiceTarget;
  validToken: () => Promise<string>;
  faker: Faker;
}

interface Variant {
  name: string;
  requirement: 'BEARER-MISSING' | 'BEARER-SCHEME' | 'BEARER-INVALID' | 'BEARER-EXPIRED';
  /** A malformed request in the sense of RFC 6750 section 3.1 (invalid_request): 400 is as right as 401. */
  malformed?: true;
  credential: (ctx: CredentialContext) => Promise<Credential>;
}

const value = (text: string): Credential => ({ value: text });
const bearerless = (token: string): Credential => ({ value: token, derivedToken: token });
const bearerOf = (derivedToken: string): Credential => ({ value: `Bearer ${derivedToken}`, derivedToken });

const variants: readonly Variant[] = [
  {
    name: 'a request without an Authorization header',
    requirement: 'BEARER-MISSING',
    credential: async () => ({ omitted: true }),
  },
  {
    name: 'the API key under the Basic scheme',
    requirement: 'BEARER-SCHEME',
    credential: async ({ target }) => value(`Basic ${target.apiKey}`),
  },
  {
    name: 'a valid token under the Token scheme',
    requirement: 'BEARER-SCHEME',
    credential: async ({ validToken }) => value(`Token ${await validToken()}`),
  },
  {
    name: 'a valid token without any scheme',
    requirement: 'BEARER-SCHEME',
    credential: async ({ validToken }) => bearerless(await validToken()),
  },
  {
    name: 'an empty bearer token ("Bearer ")',
    requirement: 'BEARER-INVALID',
    malformed: true,
    credential: async () => value('Bearer '),
  },
  {
    name: 'the Bearer scheme without a token ("Bearer")',
    requirement: 'BEARER-INVALID',
    malformed: true,
    credential: async () => value('Bearer'),
  },
  {
    name: 'a malformed token with spaces ("Bearer a b c")',
    requirement: 'BEARER-INVALID',
    malformed: true,
    credential: async () => value('Bearer a b c'),
  },
  {
    name: 'a malformed token of characters a token cannot hold',
    requirement: 'BEARER-INVALID',
    malformed: true,
    credential: async () => value('Bearer %%{not;a,token}%%'),
  },
  {
    name: 'a tampered token (one character changed in the middle)',
    requirement: 'BEARER-INVALID',
    credential: async ({ validToken }) => bearerOf(tamperedInTheMiddle(await validToken())),
  },
  {
    name: 'a tampered token (one character changed near the end)',
    requirement: 'BEARER-INVALID',
    credential: async ({ validToken }) => bearerOf(tamperedNearTheEnd(await validToken())),
  },
  {
    name: 'an unknown token (random)',
    requirement: 'BEARER-INVALID',
    credential: async ({ validToken, faker }) => bearerOf(unknownLike(await validToken(), faker)),
  },
  {
    name: 'an expired token',
    requirement: 'BEARER-EXPIRED',
    credential: async ({ target }) =>
      target.expiredToken
        ? value(`Bearer ${target.expiredToken}`)
        : { unavailable: `no expired token is configured (${target.variables.expiredToken})` },
  },
];

for (const id of protectedOperations) {
  for (const variant of variants) {
    test(
      ...cites([variant.requirement, 'BEARER-CHALLENGE'], `${id} refuses ${variant.name}`, { on: id }),
      async ({ api, config, data, verdict, redactor, validRequest }) => {
        const target = config.services[operation(id).service];
        const credential = await variant.credential({ target, validToken: () => api.tokenFor(id), faker: data.faker });
        if ('unavailable' in credential) {
          return verdict.notConfigured(credential.unavailable);
        }
        // A changed token is still most of a real one.
        if ('derivedToken' in credential) redactor.add(credential.derivedToken);
        const request = await validRequest(id);
        const exchange = await api.call(id, {
          ...request,
          ...('omitted' in credential ? { omit: ['authorization'] } : { set: { authorization: credential.value } }),
          note: variant.name,
        });
        expectRefused(verdict, variant.requirement, exchange);
        expectBearerChallenge(verdict, 'BEARER-CHALLENGE', exchange, { malformed: variant.malformed ?? false });
      },
    );
  }

  // RFC 9110 §11.1: the auth-scheme is case-insensitive, so the token is as good under "bearer" as under "Bearer".
  for (const scheme of ['bearer', 'BEARER']) {
    test(
      ...cites(['BEARER-CASE-INSENSITIVE'], `${id} accepts a valid token under the scheme written "${scheme}"`, {
        on: id,
      }),
      async ({ api, verdict, validRequest }) => {
        const request = await validRequest(id, { control: false });
        const exchange = await api.call(id, {
          ...request,
          set: { authorization: `${scheme} ${await api.tokenFor(id)}` },
          note: `scheme "${scheme}"`,
        });
        expectAccepted(verdict, 'BEARER-CASE-INSENSITIVE', exchange);
      },
    );
  }
}
