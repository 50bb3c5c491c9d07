import { expect, test } from '@playwright/test';
import { expectBearerChallenge } from '../kit/checks/auth.ts';
import type { Exchange } from '../kit/http/exchange.ts';
import { marksOf } from '../kit/verdict-marks.ts';
import { bareVerdict } from './bare-verdict.ts';

/** A refused bearer request as the check sees it: its status and WWW-Authenticate header. */
function refusal(status: number, challenge?: string): Exchange {
  return {
    label: 'assessment',
    request: { method: 'POST', url: 'http://127.0.0.1/assessment', headers: [] },
    status,
    headers: challenge === undefined ? {} : { 'www-authenticate': challenge },
    text: '',
  } as unknown as Exchange;
}

function judged(exchange: Exchange, malformed: boolean): string | undefined {
  const { verdict, annotations } = bareVerdict(['BEARER-CHALLENGE']);
  expectBearerChallenge(verdict, 'BEARER-CHALLENGE', exchange, { malformed });
  return marksOf(annotations).find((m) => m.id === 'BEARER-CHALLENGE')?.kind;
}

// RFC 6750 section 3 and 3.1: 401 with the Bearer challenge; a malformed Authorization header (invalid_request) may be 400.
const cases: ReadonlyArray<{ name: string; exchange: Exchange; malformed: boolean; kind: string }> = [
  {
    name: '401 with a Bearer challenge',
    exchange: refusal(401, 'Bearer realm="api", error="invalid_token"'),
    malformed: false,
    kind: 'pass',
  },
  { name: '401 without a challenge', exchange: refusal(401), malformed: false, kind: 'warn' },
  {
    name: '400 with a Bearer challenge for a token that is merely unknown',
    exchange: refusal(400, 'Bearer error="invalid_token"'),
    malformed: false,
    kind: 'warn',
  },
  {
    name: '400 with a Bearer challenge for a malformed header',
    exchange: refusal(400, 'Bearer error="invalid_request"'),
    malformed: true,
    kind: 'pass',
  },
  { name: '400 without a challenge for a malformed header', exchange: refusal(400), malformed: true, kind: 'warn' },
  {
    name: '403 with a Bearer challenge for a malformed header',
    exchange: refusal(403, 'Bearer'),
    malformed: true,
    kind: 'warn',
  },
];

for (const c of cases) {
  test(`BEARER-CHALLENGE: ${c.name} is a ${c.kind}`, () => {
    expect(judged(c.exchange, c.malformed)).toBe(c.kind);
  });
}
