import { expect, test } from '@playwright/test';
import { operation } from '../catalog/catalog.ts';
import { enumDefault } from '../schemas/registry.ts';
import { flavorModule } from '../sandbox/flavors/index.ts';
import { expiredTokenFor } from '../sandbox/tokens.ts';
import {
  expectEnvelope,
  expectSchema,
  protectedOps,
  secret,
  validCall,
  validOrder,
  withSandbox,
  type SandboxClient,
} from './sandbox/client.ts';

// Each behaviour of the lenient, proto3 and normalising flavors, sent as a real client sends it, against the flavor and, where the
// reference answers otherwise, against the reference too: the behaviour is the flavor's, not the sandbox's anyway.

/** A case as the sandbox stores it (its /__sandbox/cases view shows what 2.2 does not: notes, verifiedFraud). */
async function stored(api: SandboxClient, authenticationId: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${api.sandbox.url}/__sandbox/cases/${encodeURIComponent(authenticationId)}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

/** A JSON text with raw bytes in place of a marker inside one of its strings. */
function withBytes(json: string, marker: string, bytes: Buffer): Buffer {
  const [before = '', after = ''] = json.split(marker);
  return Buffer.concat([Buffer.from(before), bytes, Buffer.from(after)]);
}

const invalidUtf8 = Buffer.from([0xc3, 0x28]);

test.describe('sandbox: the lenient flavor (coercion, lenient decoding, no media-type check, 400 for a malformed bearer header)', () => {
  test('a number or boolean sent for a string is taken as its text, "true"/"false" for verifiedFraud as the boolean; other mismatches are still refused', async () => {
    for (const flavor of ['lenient', 'reference'] as const) {
      await withSandbox({ flavor }, async (api) => {
        const assessment = await api.op('assessment', {
          body: { strategy: 'default', inquiryId: 4242, channel: true },
        });
        if (flavor === 'reference') {
          expect(assessment.status, assessment.text).toBe(400);
          return;
        }
        expect(assessment.status, assessment.text).toBe(200);
        expect(assessment.body['inquiryId']).toBe('4242');
        const c = await api.newCase();
        const update = await api.op('caseUpdate', {
          body: {
            inquiryId: c.inquiryId,
            authenticationId: c.authenticationId,
            notes: 7,
            tags: [1, true],
            verifiedFraud: 'true',
          },
        });
        expect(update.status, update.text).toBe(200);
        expect(await stored(api, c.authenticationId)).toMatchObject({
          notes: '7',
          tags: ['1', 'true'],
          verifiedFraud: true,
        });
        const stepUp = await api.op('stepUp', {
          body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, phoneNumber: 15555550100 },
        });
        expect(stepUp.status, stepUp.text).toBe(200);
        for (const [name, body] of [
          [
            'an object for a string',
            { inquiryId: c.inquiryId, authenticationId: c.authenticationId, notes: { text: 'x' } },
          ],
          ['an array for a string', { inquiryId: c.inquiryId, authenticationId: c.authenticationId, notes: ['x'] }],
          [
            'a word for a boolean',
            { inquiryId: c.inquiryId, authenticationId: c.authenticationId, verifiedFraud: 'yes' },
          ],
          ['a string for a list', { inquiryId: c.inquiryId, authenticationId: c.authenticationId, tags: 'vip' }],
          ['null for a required string', { inquiryId: null, authenticationId: c.authenticationId }],
        ] as const) {
          const refused = await api.op('caseUpdate', { body });
          expect(refused.status, `${name}: ${refused.text}`).toBe(400);
        }
      });
    }
  });

  test('invalid UTF-8 inside a JSON string is decoded to U+FFFD, on the operations and the order endpoint; bytes that are no JSON are still refused', async () => {
    for (const flavor of ['lenient', 'reference'] as const) {
      await withSandbox({ flavor }, async (api) => {
        const c = await api.newCase();
        const raw = withBytes(
          JSON.stringify({ inquiryId: c.inquiryId, authenticationId: c.authenticationId, notes: 'a@@b' }),
          '@@',
          invalidUtf8,
        );
        const update = await api.op('caseUpdate', { raw });
        const orderRaw = withBytes(
          JSON.stringify(validOrder({ merchantOrderId: `order-${c.authenticationId}-@@` })),
          '@@',
          invalidUtf8,
        );
        const order = await api.order({ raw: orderRaw });
        if (flavor === 'reference') {
          expect(update.status, update.text).toBe(400);
          expectEnvelope(order, '400-other');
          return;
        }
        expect(update.status, update.text).toBe(200);
        expect((await stored(api, c.authenticationId))['notes']).toBe('a\uFFFD(b');
        expect(order.status, order.text).toBe(200);
        expect(order.body['merchantOrderId']).toBe(`order-${c.authenticationId}-\uFFFD(`);
        expectEnvelope(await api.order({ raw: Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d]) }), '400-other');
      });
    }
  });

  test('a JSON body is parsed whatever its Content-Type, or none; the fetch of records needs no Content-Type', async () => {
    await withSandbox({ flavor: 'lenient' }, async (api) => {
      const c = await api.newCase();
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
        const tag = `tag-${contentType ?? 'none'}`;
        const reply = await api.op('caseUpdate', {
          body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, tags: [tag] },
          headers: { 'content-type': contentType },
        });
        expect(reply.status, `${contentType ?? '(no Content-Type)'}: ${reply.text}`).toBe(200);
        expect((await api.fetchCase(c.authenticationId)).body['tags']).toContain(tag);
      }
      const records = await api.op('documentRecords', {
        params: { authenticationId: c.authenticationId },
        headers: { 'content-type': undefined },
      });
      expect(records.status, records.text).toBe(200);
    });
  });

  test('a case-update decision outside 3.3 is ignored: the decision stays as it was and the rest of the update applies', async () => {
    await withSandbox({ flavor: 'lenient' }, async (api) => {
      const c = await api.newCase();
      const ids = { inquiryId: c.inquiryId, authenticationId: c.authenticationId };
      expect((await api.op('caseUpdate', { body: { ...ids, decision: 'DENY' } })).status).toBe(200);
      for (const [decision, tag] of [
        ['ESCALATE', 'after-escalate'],
        ['allow', 'after-lower-case'],
        ['', 'after-empty'],
        [3, 'after-number'],
      ] as const) {
        const reply = await api.op('caseUpdate', { body: { ...ids, decision, tags: [tag], queue: 'fraud-ops' } });
        expect(reply.status, `decision ${JSON.stringify(decision)}: ${reply.text}`).toBe(200);
        const fetched = (await api.fetchCase(c.authenticationId)).body;
        expect(fetched['decision'], `decision ${JSON.stringify(decision)}`).toBe('DENY');
        expect(fetched['tags']).toContain(tag);
      }
      expect((await stored(api, c.authenticationId))['queue']).toBe('fraud-ops');
    });
  });

  test('a JSON null order body is answered as {} is', async () => {
    for (const flavor of ['lenient', 'reference'] as const) {
      await withSandbox({ flavor }, async (api) => {
        const asNull = await api.order({ raw: 'null' });
        const asEmpty = await api.order({ raw: '{}' });
        expectEnvelope(asNull, '400-validation');
        if (flavor === 'lenient') expect(asNull.body).toEqual(asEmpty.body);
        else expect(asNull.body['message']).not.toBe(asEmpty.body['message']);
      });
    }
  });

  test('a malformed bearer header is 400 invalid_request with a Bearer challenge (RFC 6750 §3.1); unknown and expired tokens stay 401, and the order endpoint keeps its 401 row', async () => {
    await withSandbox({ flavor: 'lenient' }, async (api) => {
      for (const id of protectedOps) {
        const service = operation(id).service === 'stepup' ? 'stepup' : 'identity';
        const call = await validCall(api, id);
        for (const authorization of ['Bearer', 'Bearer ', 'Bearer a b c']) {
          const reply = await api.op(id, { ...call, headers: { authorization } });
          expect(reply.status, `${id} with "${authorization}": ${reply.text}`).toBe(400);
          expect(reply.body['error'], `${id} with "${authorization}"`).toMatchObject({ code: 'invalid_request' });
          expect(reply.headers.get('www-authenticate'), `${id} with "${authorization}"`).toBe(
            'Bearer error="invalid_request"',
          );
        }
        for (const [name, authorization] of [
          ['an unknown token', 'Bearer dW5rbm93bi10b2tlbg'],
          ['characters a token cannot hold', 'Bearer %%{not;a,token}%%'],
          ['an expired token', `Bearer ${expiredTokenFor(flavorModule('lenient').tokenKind, secret, service)}`],
        ]) {
          const reply = await api.op(id, { ...call, headers: { authorization } });
          expect(reply.status, `${id} with ${name}: ${reply.text}`).toBe(401);
          expect(reply.headers.get('www-authenticate'), `${id} with ${name}`).toBe('Bearer error="invalid_token"');
        }
        expect((await api.op(id, call)).status, `${id} with its token`).toBeLessThan(300);
      }
      expectEnvelope(await api.order({ headers: { authorization: 'Bearer ' } }), '401');
    });
  });
});

test.describe('sandbox: the proto3 flavor (default-valued members left out of answers and events)', () => {
  test('answers leave out empty lists, objects and strings, and keep every member that holds a value', async () => {
    await withSandbox({ flavor: 'proto3' }, async (api) => {
      const c = await api.newCase();
      const left = ['tags', 'scoreCards', 'insights', 'thirdPartyCalls', 'errorResponses'];
      expect(
        Object.keys(c.reply.body).filter((name) => left.includes(name)),
        'members at their default',
      ).toEqual([]);
      expect(c.reply.body).toMatchObject({
        inquiryId: c.inquiryId,
        authenticationId: c.authenticationId,
        decision: expect.any(String),
        strategy: { name: 'default' },
      });
      expectSchema('assessment-response', c.reply.body);
      const update = await api.op('caseUpdate', {
        body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, tags: ['vip'] },
      });
      expect(update.status, update.text).toBe(200);
      expectSchema('case-update-response', update.body);
      const fetched = (await api.fetchCase(c.authenticationId)).body;
      expect(fetched['tags'], 'a list that holds a value is written').toEqual(['vip']);
      expect('scoreCards' in fetched).toBe(false);
    });
  });

  test('a session event leaves out every member at its default (the enums at the default 6.3 and 3.2 give, false, "0"), and keeps the others', async () => {
    await withSandbox({ flavor: 'proto3' }, async (api) => {
      const c = await api.newCase();
      const ids = { inquiryId: c.inquiryId, authenticationId: c.authenticationId };
      expect((await api.op('stepUp', { body: { ...ids, phoneNumber: '+15555550100' } })).status).toBe(200);
      const [phone] = await api.receiver.waitFor(1);
      expect((await api.op('stepUp', { body: { ...ids, email: 'jane@example.com' } })).status).toBe(200);
      const email = (await api.receiver.waitFor(2))[1];
      for (const event of [phone?.body, email?.body]) {
        expectSchema('webhook-verification-session', event);
        for (const name of ['mfaType', 'resendStatus', 'autoTrustDevice', 'docVerification'])
          expect(event, `${name} is at its default`).not.toHaveProperty(name);
        expect(event).toMatchObject({
          sessionId: expect.any(String),
          verificationStatus: 'VERIFIED',
          sendAttempts: '1',
        });
      }
      expect(phone?.body, `channelType ${enumDefault('ChannelType')} is the default`).not.toHaveProperty('channelType');
      expect(email?.body['channelType']).toBe('EMAIL_OTP');
    });
  });

  test('the reference writes the same members in full', async () => {
    await withSandbox({ flavor: 'reference' }, async (api) => {
      const c = await api.newCase();
      expect(c.reply.body).toMatchObject({ tags: [], scoreCards: [], insights: {} });
      expect(
        (
          await api.op('stepUp', {
            body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, phoneNumber: '+15555550100' },
          })
        ).status,
      ).toBe(200);
      const [event] = await api.receiver.waitFor(1);
      expect(event?.body).toMatchObject({
        mfaType: enumDefault('MfaType'),
        channelType: enumDefault('ChannelType'),
        resendStatus: 'SENT',
        autoTrustDevice: false,
      });
    });
  });
});

test.describe('sandbox: the normalising flavor (tags in NFC with their outer whitespace trimmed, values of more than 1,024 characters refused)', () => {
  test('tags are kept composed and trimmed; an identifier is kept as sent; the reference keeps every tag as sent', async () => {
    const tags = ['  Zoe\u0308-desk ', 'plain-tag'];
    for (const flavor of ['normalising', 'reference'] as const) {
      await withSandbox({ flavor }, async (api) => {
        const inquiryId = `inq-Nguye\u0302\u0303n-${Date.now()}`;
        const created = await api.op('assessment', { body: { strategy: 'default', inquiryId } });
        expect(created.body['inquiryId'], 'an identifier is not normalised').toBe(inquiryId);
        const caseId = String(created.body['authenticationId']);
        const update = await api.op('caseUpdate', { body: { inquiryId, authenticationId: caseId, tags } });
        expect(update.status, update.text).toBe(200);
        expect((await api.fetchCase(caseId)).body['tags']).toEqual(
          flavor === 'normalising' ? ['Zo\u00eb-desk', 'plain-tag'] : tags,
        );
      });
    }
  });

  test('a body carrying a string of more than 1,024 characters is refused with 400, on every operation with a body; 1,024 are taken', async () => {
    await withSandbox({ flavor: 'normalising' }, async (api) => {
      const c = await api.newCase();
      const ids = { inquiryId: c.inquiryId, authenticationId: c.authenticationId };
      const bodies = [
        ['assessment', { strategy: 'default', inquiryId: 'x'.repeat(1025) }],
        ['documentVerification', { inquiryId: `inq-${'y'.repeat(1100)}` }],
        ['caseUpdate', { ...ids, tags: ['short', 'z'.repeat(1025)] }],
        ['stepUp', { ...ids, email: `${'a'.repeat(1100)}@example.com` }],
      ] as const;
      for (const [id, body] of bodies) expect((await api.op(id, { body })).status, id).toBe(400);
      expect((await api.op('caseUpdate', { body: { ...ids, notes: 'n'.repeat(1024) } })).status).toBe(200);
      expect((await api.fetchCase(c.authenticationId)).body['tags'], 'the refused update left no tag').toEqual([]);
    });
  });
});

test('sandbox: the case-insensitive-ids flavor resolves a service id in other letter case; the reference does not', async () => {
  for (const flavor of ['case-insensitive-ids', 'reference'] as const) {
    await withSandbox({ flavor }, async (api) => {
      const c = await api.newCase();
      const upper = c.authenticationId.toUpperCase();
      expect((await api.fetchCase(upper)).status, flavor).toBe(flavor === 'reference' ? 404 : 200);
      const update = await api.op('caseUpdate', { body: { inquiryId: c.inquiryId, authenticationId: upper } });
      expect(update.status, flavor).toBe(flavor === 'reference' ? 404 : 200);
    });
  }
});
