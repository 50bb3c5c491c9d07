import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { operation } from '../catalog/catalog.ts';
import { flavorModule } from '../sandbox/flavors/index.ts';
import { expiredTokenFor } from '../sandbox/tokens.ts';
import { secret, withSandbox, bothFlavors, protectedOps, validCall } from './sandbox/client.ts';

test.describe('sandbox: bearer tokens on 4.2 to 4.7 (RFC 6750)', () => {
  for (const flavor of bothFlavors) {
    test(`${flavor}: every operation refuses missing, foreign-scheme, malformed, tampered, unknown, expired and wrong-audience tokens`, async () => {
      await withSandbox({ flavor }, async (api) => {
        for (const id of protectedOps) {
          const service = operation(id).service === 'stepup' ? 'stepup' : 'identity';
          const good = await api.token(service);
          const other = await api.token(service === 'identity' ? 'stepup' : 'identity');
          const tampered =
            flavor === 'reference'
              ? good.slice(0, -2) + (good.endsWith('AA') ? 'BB' : 'AA')
              : randomBytes(20).toString('hex');
          const variants: [string, string | undefined, string | null][] = [
            ['missing', undefined, 'Bearer'],
            ['Basic scheme', `Basic ${good}`, 'Bearer'],
            ['empty token', 'Bearer ', 'Bearer error="invalid_token"'],
            ['malformed token', 'Bearer not a token', 'Bearer error="invalid_token"'],
            ['tampered or unknown token', `Bearer ${tampered}`, 'Bearer error="invalid_token"'],
            [
              'expired token',
              `Bearer ${expiredTokenFor(flavorModule(flavor).tokenKind, secret, service)}`,
              'Bearer error="invalid_token"',
            ],
            ['token of the other service', `Bearer ${other}`, 'Bearer error="invalid_token"'],
          ];
          const call = await validCall(api, id);
          for (const [name, authorization, challenge] of variants) {
            const reply = await api.op(id, { ...call, headers: { authorization } });
            expect(reply.status, `${id} with ${name}: ${reply.text}`).toBe(401);
            expect(reply.headers.get('www-authenticate'), `${id} with ${name}`).toBe(challenge);
          }
          const lowerCase = await api.op(id, {
            ...(await validCall(api, id)),
            headers: { authorization: `bearer ${good}` },
          });
          expect(lowerCase.status, `${id} with scheme "bearer": ${lowerCase.text}`).toBeLessThan(300);
        }
      });
    });
  }
});
