import { expect, test } from '@playwright/test';
import { tokenEndpoint } from '../catalog/catalog.ts';
import { limitedClient, mainClient } from '../sandbox/credentials.ts';
import { SandboxClient, withSandbox, expectSchema, bothFlavors } from './sandbox/client.ts';

test.describe('sandbox: tokens (4.1, RFC 6749)', () => {
  for (const flavor of bothFlavors) {
    test(`${flavor}: issues a token with the RFC 6749 fields, not cacheable`, async () => {
      await withSandbox({ flavor }, async (api) => {
        const reply = await api.requestToken('identity');
        expect(reply.status).toBe(200);
        expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
        expect(reply.headers.get('cache-control')).toBe('no-store');
        expect(reply.headers.get('pragma')).toBe('no-cache');
        expectSchema('token-response', reply.json);
        expect(String(reply.body['token_type']).toLowerCase()).toBe('bearer');
        expect(reply.body['expires_in']).toBe(flavor === 'reference' ? 1200 : 300);
        expect(reply.body['scope']).toBe(tokenEndpoint.scope);
        if (flavor === 'alternative') {
          expect(reply.body['token_type']).toBe('bearer');
          expect(reply.body['access_token']).toMatch(/^[0-9a-f]{40}$/);
          expect(reply.body).toHaveProperty('refresh_expires_in');
        }
        const stepUp = await api.requestToken('stepup');
        expect(stepUp.status).toBe(200);
      });
    });
  }

  const refusals: {
    name: string;
    options: Parameters<SandboxClient['requestToken']>[1];
    status: number;
    error: string;
  }[] = [
    {
      name: 'another scope',
      options: { form: { grant_type: 'client_credentials', scope: 'openid' } },
      status: 400,
      error: 'invalid_scope',
    },
    {
      name: 'a case variant of the scope',
      options: { form: { grant_type: 'client_credentials', scope: 'K1_INTEGRATION_API' } },
      status: 400,
      error: 'invalid_scope',
    },
    {
      name: 'an extra scope',
      options: { form: { grant_type: 'client_credentials', scope: 'k1_integration_api admin' } },
      status: 400,
      error: 'invalid_scope',
    },
    {
      name: 'an empty scope',
      options: { form: { grant_type: 'client_credentials', scope: '' } },
      status: 400,
      error: 'invalid_scope',
    },
    {
      name: 'no scope (reference)',
      options: { form: { grant_type: 'client_credentials' } },
      status: 400,
      error: 'invalid_scope',
    },
    {
      name: 'an unknown grant type',
      options: { form: { grant_type: 'password', scope: 'k1_integration_api' } },
      status: 400,
      error: 'unsupported_grant_type',
    },
    {
      name: 'no grant type',
      options: { form: { scope: 'k1_integration_api' } },
      status: 400,
      error: 'invalid_request',
    },
    { name: 'no credentials', options: { apiKey: null }, status: 401, error: 'invalid_client' },
    {
      name: 'a wrong API key',
      options: { apiKey: Buffer.from('sandbox-client:wrong').toString('base64') },
      status: 401,
      error: 'invalid_client',
    },
    {
      name: 'a non-Basic scheme',
      options: { authorization: `Bearer ${mainClient.apiKey}` },
      status: 401,
      error: 'invalid_client',
    },
    {
      name: 'a JSON body',
      options: {
        contentType: 'application/json',
        raw: JSON.stringify({ grant_type: 'client_credentials', scope: 'k1_integration_api' }),
      },
      status: 400,
      error: 'invalid_request',
    },
  ];
  for (const r of refusals) {
    test(`refuses ${r.name} with ${r.status} ${r.error}`, async () => {
      await withSandbox({}, async (api) => {
        const reply = await api.requestToken('identity', r.options);
        expect(reply.status, reply.text).toBe(r.status);
        expect(reply.body['error']).toBe(r.error);
        expect(reply.body).not.toHaveProperty('access_token');
        if (r.status === 401) expect(reply.headers.get('www-authenticate')).toBe('Basic realm="sandbox"');
      });
    });
  }

  test('alternative flavor defaults a missing scope; every flavor answers GET with 405 Allow: POST', async () => {
    await withSandbox({ flavor: 'alternative' }, async (api) => {
      const reply = await api.requestToken('identity', { form: { grant_type: 'client_credentials' } });
      expect(reply.status).toBe(200);
      expect(reply.body['scope']).toBe(tokenEndpoint.scope);
      const get = await api.requestToken('stepup', { method: 'GET' });
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
    });
  });

  test('the Basic scheme name is case-insensitive and the limited client gets tokens', async () => {
    await withSandbox({}, async (api) => {
      expect((await api.requestToken('identity', { authorization: `basic ${mainClient.apiKey}` })).status).toBe(200);
      expect((await api.requestToken('identity', { apiKey: limitedClient.apiKey })).status).toBe(200);
    });
  });
});
