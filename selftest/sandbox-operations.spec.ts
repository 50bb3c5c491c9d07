import { randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { operation } from '../catalog/catalog.ts';
import { enumValues } from '../schemas/registry.ts';
import { bothFlavors, expectSchema, protectedOps, toReply, validCall, withSandbox } from './sandbox/client.ts';
import type { Body, OpOptions } from './sandbox/client.ts';

test.describe('sandbox: identity and step-up operations', () => {
  for (const flavor of bothFlavors) {
    test(`${flavor}: assessment round trip through fetch by case identifier`, async () => {
      await withSandbox({ flavor }, async (api) => {
        const inquiryId = `inq-${randomUUID()}`;
        const request = {
          strategy: 'default',
          inquiryId,
          deviceSessionId: 'dev-session-1',
          coApplicant: {},
          sharedContext: { resellerId: 'r' },
          entryUser: 'clerk',
        };
        const created = await api.op('assessment', { body: request });
        expect(created.status).toBe(flavor === 'reference' ? 200 : 201);
        expect(created.headers.get('content-type')).toMatch(/^application\/json/);
        expectSchema('assessment-response', created.json);
        const authenticationId = String(created.body['authenticationId']);
        expect(authenticationId).toMatch(flavor === 'reference' ? /^[0-9a-f-]{36}$/ : /^CASE-\d{6}$/);
        expect(created.body).toMatchObject({
          inquiryId,
          deviceSessionId: 'dev-session-1',
          tags: [],
          decision: flavor === 'reference' ? 'REVIEW' : 'ALLOW',
          strategy: { name: 'default' },
        });
        if (flavor === 'alternative') expect(created.body).toHaveProperty('_links');

        const fetched = await api.op('fetchAssessment', {
          params: { caseId: authenticationId },
          headers: { 'x-client-id': undefined, 'x-correlation-id': undefined },
        });
        expect(fetched.status).toBe(200);
        expectSchema('assessment-response', fetched.json);
        expect(fetched.body).toMatchObject({ inquiryId, authenticationId });
        expect((await api.fetchCase('no-such-case')).status).toBe(404);
      });
    });
  }

  test('the mandatory headers of each operation come from the catalog; step-up does not need x-correlation-id', async () => {
    await withSandbox({}, async (api) => {
      for (const id of protectedOps) {
        for (const name of operation(id).mandatoryHeaders.filter((h) => h !== 'authorization')) {
          const reply = await api.op(id, { ...(await validCall(api, id)), headers: { [name]: undefined } });
          const expected = name === 'content-type' && operation(id).hasBody ? 415 : 400;
          expect(reply.status, `${id} without ${name}: ${reply.text}`).toBe(expected);
        }
      }
      const stepUp = await api.op('stepUp', {
        ...(await validCall(api, 'stepUp')),
        headers: { 'x-correlation-id': undefined },
      });
      expect(stepUp.status).toBe(200);
      const charset = await api.op('assessment', {
        ...(await validCall(api, 'assessment')),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(charset.status).toBe(200);
    });
  });

  test('alternative flavor: headers before Authorization, 400 for Content-Type, 422 for fields, no Content-Type on the GET', async () => {
    await withSandbox({ flavor: 'alternative' }, async (api) => {
      const noHeaderNoAuth = await api.op('assessment', {
        body: {},
        headers: { authorization: undefined, 'x-client-id': undefined },
      });
      expect(noHeaderNoAuth.status).toBe(400);
      const wrongType = await api.op('caseUpdate', { body: {}, headers: { 'content-type': 'text/plain' } });
      expect(wrongType.status).toBe(400);
      const invalid = await api.op('assessment', { body: { inquiryId: 'x' } });
      expect(invalid.status).toBe(422);
      const c = await api.newCase();
      const records = await api.op('documentRecords', {
        params: { authenticationId: c.authenticationId },
        headers: { 'content-type': undefined },
      });
      expect(records.status).toBe(200);
    });
  });

  test('assessment validation: required fields, 2.1 types, JSON errors', async () => {
    await withSandbox({}, async (api) => {
      const cases: [string, OpOptions, number][] = [
        ['no strategy', { body: { inquiryId: 'i' } }, 400],
        ['no inquiryId', { body: { strategy: 's' } }, 400],
        ['empty inquiryId', { body: { strategy: 's', inquiryId: '' } }, 400],
        ['numeric inquiryId', { body: { strategy: 's', inquiryId: 1 } }, 400],
        ['string applicant', { body: { strategy: 's', inquiryId: 'i', applicant: 'x' } }, 400],
        ['array account', { body: { strategy: 's', inquiryId: 'i', account: [] } }, 400],
        ['numeric userIp', { body: { strategy: 's', inquiryId: 'i', userIp: 1 } }, 400],
        ['array body', { raw: '[]' }, 400],
        ['broken JSON', { raw: '{"strategy":' }, 400],
        ['invalid UTF-8', { raw: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) }, 400],
        [
          'deeply nested JSON',
          { raw: `{"strategy":"s","inquiryId":"i","customFields":${'['.repeat(50_000)}${']'.repeat(50_000)}}` },
          400,
        ],
      ];
      for (const [name, options, status] of cases) {
        expect((await api.op('assessment', options)).status, name).toBe(status);
      }
    });
  });

  test('document verification: response, records by data value, unknown case', async () => {
    await withSandbox({}, async (api) => {
      const c = await api.newCase();
      const docv = await api.op('documentVerification', {
        body: { inquiryId: c.inquiryId, images: { front: 'x' }, phoneNumber: '+1555' },
      });
      expect(docv.status).toBe(200);
      expectSchema('document-verification-response', docv.json);
      expect(docv.body).toMatchObject({ inquiryId: c.inquiryId, authenticationId: c.authenticationId });
      const fresh = await api.op('documentVerification', { body: {} });
      expect(fresh.status).toBe(200);
      expect(fresh.body['authenticationId']).not.toBe(c.authenticationId);
      expect((await api.op('documentVerification', { body: { images: 'x' } })).status).toBe(400);

      const parts = ['ocrData', 'scoreData', 'imageData', 'formData'];
      for (const data of [undefined, ...enumValues('DocumentRecordsData')]) {
        const reply = await api.op('documentRecords', {
          params: { authenticationId: c.authenticationId },
          ...(data ? { query: `data=${data}` } : {}),
          headers: { 'x-source-client-id': 'child-org-001' },
        });
        expect(reply.status, `data=${data}`).toBe(200);
        expectSchema('document-records', reply.json);
        const expected =
          data === undefined || data === 'all' ? parts : parts.filter((p) => p.toLowerCase() === data.toLowerCase());
        expect(Object.keys(reply.body).sort(), `data=${data}`).toEqual(['authenticationId', ...expected].sort());
      }
      expect(
        (await api.op('documentRecords', { params: { authenticationId: c.authenticationId }, query: 'data=formData' }))
          .status,
      ).toBe(400);
      expect((await api.op('documentRecords', { params: { authenticationId: 'nope' } })).status).toBe(404);
    });
  });

  test('case update: tags appended, decision kept when omitted, unknown queue and rejection code accepted and left unchanged', async () => {
    await withSandbox({}, async (api) => {
      const c = await api.newCase();
      const ids = { inquiryId: c.inquiryId, authenticationId: c.authenticationId };
      const first = await api.op('caseUpdate', {
        body: { ...ids, decision: 'DENY', tags: ['a'], queue: 'fraud-ops', rejectionCode: 'R02' },
        headers: { 'x-correlation-id': 'corr-1' },
      });
      expect(first.status).toBe(200);
      expectSchema('case-update-response', first.json);
      expect(first.body).toEqual({ ...ids, correlationId: 'corr-1', message: 'case updated' });
      const second = await api.op('caseUpdate', {
        body: {
          ...ids,
          tags: ['b', 'a'],
          queue: 'no-such-queue',
          rejectionCode: 'R99',
          externalAgent: 'anyone',
          verifiedFraud: true,
          documents: [{ kind: 'passport' }],
          customFields: { k: 'v' },
          notes: 'n',
          strategy: 's',
          sharedContext: {},
        },
      });
      expect(second.status, second.text).toBe(200);
      const fetched = await api.fetchCase(c.authenticationId);
      expect(fetched.body).toMatchObject({ decision: 'DENY', tags: ['a', 'b', 'a'] });
      const state = (await fetch(`${api.sandbox.url}/__sandbox/cases/${c.authenticationId}`).then(toReply)).body;
      expect(state).toMatchObject({
        queue: 'fraud-ops',
        rejectionCode: 'R02',
        verifiedFraud: true,
        externalAgent: 'anyone',
      });

      for (const decision of enumValues('CaseDecision')) {
        expect((await api.op('caseUpdate', { body: { ...ids, decision } })).status).toBe(200);
        expect((await api.fetchCase(c.authenticationId)).body['decision']).toBe(decision);
      }
      const refused: [string, Body, number][] = [
        ['lower-case decision', { ...ids, decision: 'allow' }, 400],
        ['string verifiedFraud', { ...ids, verifiedFraud: 'yes' }, 400],
        ['tags not strings', { ...ids, tags: [1] }, 400],
        ['no inquiryId', { authenticationId: c.authenticationId }, 400],
        ['no authenticationId', { inquiryId: c.inquiryId }, 400],
        ['unknown case', { inquiryId: c.inquiryId, authenticationId: 'nope' }, 404],
        ['inquiry of another case', { inquiryId: 'inq-other', authenticationId: c.authenticationId }, 400],
      ];
      for (const [name, body, status] of refused)
        expect((await api.op('caseUpdate', { body })).status, name).toBe(status);
    });
  });

  test('step-up: channels, required ids, unknown case, inquiry mismatch', async () => {
    await withSandbox({}, async (api) => {
      const c = await api.newCase();
      const ids = { inquiryId: c.inquiryId, authenticationId: c.authenticationId };
      for (const channel of [
        { phoneNumber: '+15555550100' },
        { email: 'a@example.com' },
        { images: { selfie: 'x' } },
      ]) {
        const reply = await api.op('stepUp', {
          body: { ...ids, ...channel, sharedContext: { resellerId: 'r' }, strategy: { name: 'su' } },
        });
        expect(reply.status, reply.text).toBe(200);
        expectSchema('step-up-response', reply.json);
        expect(reply.body).toEqual({ ...ids, decision: 'CHALLENGE', strategy: { name: 'su' } });
      }
      expect((await api.op('stepUp', { body: { inquiryId: c.inquiryId } })).status).toBe(400);
      expect((await api.op('stepUp', { body: { ...ids, authenticationId: 'nope' } })).status).toBe(404);
      expect((await api.op('stepUp', { body: { ...ids, inquiryId: 'other' } })).status).toBe(400);
      expect((await api.op('stepUp', { body: { ...ids, strategy: 'name' } })).status).toBe(400);
    });
  });
});
