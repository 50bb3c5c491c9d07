import type { Faker } from '@faker-js/faker';
import { expectThat } from '../../fixtures/checks.ts';
import type { Exchange } from '../../fixtures/http/exchange.ts';
import type { Verdict } from '../../fixtures/verdict.ts';

/** A replacement of the same kind (lower case, upper case, digit), so that the token keeps its alphabet and shape. */
function sameKindOther(char: string): string | undefined {
  if (/[a-z]/.test(char)) return char === 'a' ? 'b' : 'a';
  if (/[A-Z]/.test(char)) return char === 'A' ? 'B' : 'A';
  if (/[0-9]/.test(char)) return char === '0' ? '1' : '0';
  return undefined;
}

/** The token with the first letter or digit at or after `from` replaced by another of its kind. */
function changedFrom(token: string, from: number): string {
  for (let at = Math.max(0, from); at < token.length; at += 1) {
    const other = sameKindOther(token.charAt(at));
    if (other) return token.slice(0, at) + other + token.slice(at + 1);
  }
  throw new Error('The access token has no letter or digit to change');
}

/** One character changed in the middle of the token. */
export const tamperedInTheMiddle = (token: string): string => changedFrom(token, Math.floor(token.length / 2));

/**
 * One character changed next to the end (where a signature usually sits). Not the last character: in base64
 * its low bits may be padding that a decoder ignores, so changing it may not change the token at all.
 */
export const tamperedNearTheEnd = (token: string): string => changedFrom(token, token.replace(/=+$/, '').length - 2);

/** A random value as long as the token and drawn from its letters and digits: plausible, but never issued. */
export function unknownLike(token: string, faker: Faker): string {
  const alphabet = [...new Set(token.replace(/[^A-Za-z0-9]/g, ''))].join('') || 'abcdef0123456789';
  return faker.string.fromCharacters(alphabet, token.length);
}

/** RFC 6750 section 3: a refused bearer request is answered 401 with a challenge of the Bearer scheme. */
export function expectBearerChallenge(verdict: Verdict, exchange: Exchange): boolean {
  const challenge = exchange.headers['www-authenticate'];
  return expectThat(
    verdict,
    'BEARER-CHALLENGE',
    exchange.status === 401 && /(^|,)\s*bearer(\s|,|$)/i.test(challenge ?? ''),
    '401 with a WWW-Authenticate challenge of the Bearer scheme',
    () => `${exchange.status}, WWW-Authenticate: ${challenge ?? '(absent)'}`,
    exchange,
  );
}
