import { randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { schemaDocument, schemaIdFor } from '../schemas/registry.ts';
import { withSandbox, expectSchema, expectEnvelope } from './sandbox/client.ts';

test.describe('sandbox: the gateway flavor (a service behind a protobuf JSON gateway)', () => {
  test('responses carry every field, unset ones as null, "" or []; decisions in display spelling; tags as objects', async () => {
    await withSandbox({ flavor: 'gateway' }, async (api) => {
      const c = await api.newCase();
      const fields = Object.keys(
        (schemaDocument(schemaIdFor('assessment-response')) as { properties: object }).properties,
      );
      expect(
        fields.filter((name) => !(name in c.reply.body)),
        'every field of 2.2 is emitted',
      ).toEqual([]);
      expectSchema('assessment-response', c.reply.body);
      const update = await api.op('caseUpdate', {
        body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, decision: 'DENY', tags: ['vip'] },
      });
      expect(update.status, update.text).toBe(200);
      expect(update.body['error'], 'an unset message is null').toBeNull();
      expectSchema('case-update-response', update.body);
      const fetched = (await api.fetchCase(c.authenticationId)).body;
      expect(fetched['decision']).toBe('Deny');
      expect(fetched['tags']).toEqual([{ name: 'vip', addedAt: expect.any(String) }]);
    });
  });

  test('requests: unknown fields and nulls are ignored, an enum takes its number, Content-Type is not inspected', async () => {
    await withSandbox({ flavor: 'gateway' }, async (api) => {
      const c = await api.newCase({ somethingNew: 1, channel: null });
      const byNumber = await api.op('caseUpdate', {
        body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, decision: 1 },
      });
      expect(byNumber.status, byNumber.text).toBe(200);
      expect((await api.fetchCase(c.authenticationId)).body['decision']).toBe('Allow');
      const plain = await api.op('caseUpdate', {
        body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId },
        headers: { 'content-type': 'text/plain' },
      });
      expect(plain.status, plain.text).toBe(200);
    });
  });

  test('errors are google.rpc Status bodies; the order endpoint keeps its part-7 envelope', async () => {
    await withSandbox({ flavor: 'gateway' }, async (api) => {
      const refused = await api.op('caseUpdate', { body: { authenticationId: 'x' } });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ code: 3, message: expect.any(String), details: [] });
      const unauthorized = await api.op('assessment', { body: {}, headers: { authorization: undefined } });
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.body['code']).toBe(16);
      expectEnvelope(await api.order({ headers: { 'x-correlation-id': undefined } }), '400-other');
    });
  });

  test('document records exist only once the session completed (its events went out): 404 before, 200 after', async () => {
    // Two seconds to completion: the first fetch comes well before it, however busy the machine.
    await withSandbox({ flavor: 'gateway', webhookDelayMs: 2_000 }, async (api) => {
      const started = await api.op('documentVerification', {
        body: { strategy: api.env['STRATEGY_DOCUMENT_VERIFICATION'], inquiryId: `inq-${randomUUID()}` },
      });
      expect(started.status, started.text).toBe(200);
      const params = { authenticationId: String(started.body['authenticationId']) };
      expect((await api.op('documentRecords', { params })).status).toBe(404);
      // Completion is announced by the results event (the second delivery): wait for it, then the records are there.
      expect(await api.receiver.waitFor(2, 15_000)).toHaveLength(2);
      const ready = await api.op('documentRecords', { params });
      expect(ready.status, ready.text).toBe(200);
      expectSchema('document-records', ready.body);
    });
  });
});
