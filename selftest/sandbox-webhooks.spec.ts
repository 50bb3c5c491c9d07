import { expect, test } from '@playwright/test';
import { startSandbox } from '../sandbox/server.ts';
import { SandboxClient, expectSchema, secret, startReceiver, withSandbox } from './sandbox/client.ts';

test.describe('sandbox: webhooks (part 6)', () => {
  test('document verification delivers 6.1 then 6.2; a phone step-up delivers 6.3', async () => {
    await withSandbox({}, async (api) => {
      const c = await api.newCase();
      const docv = await api.op('documentVerification', { body: { inquiryId: c.inquiryId } });
      const [onboarding, results] = await api.receiver.waitFor(2);
      expect(onboarding?.method).toBe('POST');
      expect(onboarding?.headers['content-type']).toBe('application/json');
      expectSchema('webhook-document-onboarding', onboarding?.body);
      expect(onboarding?.body).toEqual({ sessionId: docv.body['interviewId'], status: 'STARTED' });
      expectSchema('webhook-document-results', results?.body);
      expect(results?.body).toMatchObject({ sessionId: docv.body['interviewId'], inquiryId: c.inquiryId });

      await api.op('stepUp', {
        body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, email: 'a@example.com' },
      });
      const session = (await api.receiver.waitFor(3))[2];
      expectSchema('webhook-verification-session', session?.body);
      expect(session?.body).toMatchObject({
        channelType: 'EMAIL_OTP',
        verificationStatus: 'VERIFIED',
        sendAttempts: '1',
        autoTrustDevice: false,
      });
      await api.sandbox.webhooksIdle();
      expect(api.sandbox.deliveries).toBe(3);
    });
  });

  test('alternative flavor writes proto3 JSON (defaults left out) and adds x-webhook-id', async () => {
    await withSandbox({ flavor: 'alternative' }, async (api) => {
      const c = await api.newCase();
      await api.op('stepUp', {
        body: { inquiryId: c.inquiryId, authenticationId: c.authenticationId, phoneNumber: '+15555550100' },
      });
      const [session] = await api.receiver.waitFor(1);
      expectSchema('webhook-verification-session', session?.body);
      expect(session?.headers['x-webhook-id']).toBeTruthy();
      for (const omitted of ['mfaType', 'channelType', 'autoTrustDevice', 'docVerification'])
        expect(session?.body).not.toHaveProperty(omitted);
      expect(session?.body).toHaveProperty('verificationStatus', 'VERIFIED');
    });
  });

  test('document-step-up flavor reports the session of a step-up with images as a document verification flow, with or without a message channel', async () => {
    await withSandbox({ flavor: 'document-step-up' }, async (api) => {
      const c = await api.newCase();
      const ids = { inquiryId: c.inquiryId, authenticationId: c.authenticationId };
      await api.op('stepUp', { body: { ...ids, phoneNumber: '+15555550100' } });
      await api.op('stepUp', { body: { ...ids, email: 'a@example.com', images: { front: 'x' } } });
      await api.op('stepUp', { body: { ...ids, images: { front: 'x' } } });
      const sessions = await api.receiver.waitFor(3);
      for (const session of sessions) expectSchema('webhook-verification-session', session?.body);
      const reported = sessions.map(
        (s) => `${s?.body['channelType'] ?? '(no channelType)'} ${s?.body['docVerification']}`,
      );
      expect(reported.sort()).toEqual(['(no channelType) true', 'EMAIL_OTP true', 'SMS_OTP false']);
    });
  });

  test('an unreachable receiver does not stop the sandbox', async () => {
    const sandbox = await startSandbox({
      tokenSecret: secret,
      webhookUrl: 'http://127.0.0.1:9/unreachable',
      webhookDelayMs: 0,
    });
    const receiver = await startReceiver();
    try {
      const api = new SandboxClient(sandbox, receiver);
      for (let i = 0; i < 3; i += 1) expect((await api.op('documentVerification', { body: {} })).status).toBe(200);
      await sandbox.webhooksIdle();
      expect(sandbox.deliveries).toBe(0);
      expect((await fetch(`${sandbox.url}/__sandbox/health`)).status).toBe(200);
    } finally {
      await sandbox.close();
      await receiver.close();
    }
  });
});
