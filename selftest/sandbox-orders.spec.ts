import { expect, test } from '@playwright/test';
import { orderErrorTable } from '../catalog/catalog.ts';
import { enumValues } from '../schemas/registry.ts';
import { limitedClient, resellerClient } from '../sandbox/credentials.ts';
import { expiredTokenFor } from '../sandbox/tokens.ts';
import { secret, validOrder, withSandbox, expectEnvelope } from './sandbox/client.ts';

test.describe('sandbox: orders (part 7)', () => {
  test('every row of the part-7 table, each as an exact envelope', async () => {
    await withSandbox({}, async (api) => {
      expectEnvelope(await api.order({ headers: { 'x-correlation-id': undefined } }), '400-other');
      expectEnvelope(await api.order({ headers: { 'x-client-id': undefined } }), '400-other');
      expectEnvelope(await api.order({ raw: '{"merchantOrderId":' }), '400-other');
      expectEnvelope(await api.order({ method: 'PUT' }), '400-other');
      expectEnvelope(await api.order({ body: validOrder({ fulfillment: [{ type: 'TELEPORT' }] }) }), '400-validation');
      expectEnvelope(await api.order({ body: validOrder({ merchantOrderId: '' }) }), '400-validation');
      expectEnvelope(await api.order({ body: [] }), '400-validation');
      expectEnvelope(await api.order({ headers: { authorization: undefined } }), '401');
      expectEnvelope(
        await api.order({ headers: { authorization: `Bearer ${expiredTokenFor('signed', secret, 'orders')}` } }),
        '401',
      );
      expectEnvelope(await api.order({ headers: { authorization: `Bearer ${await api.token('stepup')}` } }), '401');
      expectEnvelope(await api.order({ apiKey: limitedClient.apiKey }), '403');
      for (const status of ['404', '500', '503']) {
        const trigger = api.env[`ORDER_TRIGGER_${status}`] ?? '';
        const [name = '', value = ''] = trigger.replace(/^header:/, '').split('=');
        const reply = await api.order({ headers: { [name]: value } });
        expectEnvelope(reply, status);
        if (status === '503') expect(reply.headers.get('retry-after')).toBe('1');
      }
      const order = validOrder();
      const placed = await api.order({ body: order });
      expect(placed.status).toBe(200);
      expect(placed.body).toMatchObject({ merchantOrderId: order['merchantOrderId'], decision: 'APPROVE' });
      expectEnvelope(await api.order({ body: order }), '409');
      for (const type of enumValues('FulfillmentType')) {
        expect((await api.order({ body: validOrder({ fulfillment: [{ type }] }) })).status, type).toBe(200);
      }
      expect((await api.order({ apiKey: resellerClient.apiKey })).status).toBe(200);
      expect(orderErrorTable.length).toBeGreaterThan(0);
    });
  });

  test('order of checks: headers before Authorization (reference), Authorization first (alternative)', async () => {
    await withSandbox({}, async (api) => {
      expectEnvelope(
        await api.order({ headers: { authorization: undefined, 'x-correlation-id': undefined } }),
        '400-other',
      );
    });
    await withSandbox({ flavor: 'alternative' }, async (api) => {
      expectEnvelope(await api.order({ headers: { authorization: undefined, 'x-correlation-id': undefined } }), '401');
      expect((await api.order()).status).toBe(201);
    });
  });
});
