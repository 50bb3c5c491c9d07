import { operation } from '../../catalog/catalog.ts';
import { expectAccepted, expectEqual, expectJsonBody, expectSchema } from '../../kit/checks/responses.ts';
import { stepUp } from '../../kit/builders/identity-bodies.ts';
import type { MessageChannel } from '../../kit/webhooks/session-channel.ts';
import { populateContact } from '../../kit/builders/value-population.ts';
import { callPopulated } from '../../kit/populated-call.ts';
import { bodyOf } from '../../fixtures/preconditions.ts';
import { cites, test } from '../../fixtures/test.ts';

const stepUpOperation = operation('stepUp');

const channels: ReadonlyArray<{ channel: MessageChannel; name: string; strategyObject?: true; images?: true }> = [
  { channel: 'phone', name: 'by phone number' },
  { channel: 'email', name: 'by email' },
  { channel: 'email', name: 'by email with images', images: true },
  // 2.6 types strategy as an object (v1RequestStrategy) whose fields are not shown: an empty one when none is configured.
  { channel: 'phone', name: 'by phone number with a strategy object', strategyObject: true },
];

for (const { channel, name, strategyObject, images } of channels) {
  test(
    ...cites(
      [
        'SU-CHANNELS',
        'GEN-JSON-RESPONSE',
        'SU-RES-SCHEMA',
        'SU-RES-IDS',
        'SU-DECISION-VALUES',
        'OBS-SUCCESS-STATUS',
        'OBS-VALUE-CLASSES',
      ],
      `a step-up ${name} for an existing case is accepted and answered with the case ids`,
      { on: 'stepUp' },
    ),
    async ({ api, verdict, data, newCase }) => {
      const ref = await newCase();
      const body = { ...stepUp(data, ref, channel, strategyObject), ...(images ? stepUp(data, ref, 'images') : {}) };
      // An unusual but valid email or phone number (2.6 states no syntax): refused, it is recorded and sent again plain.
      const populated = populateContact(data, body, channel === 'phone' ? 'phoneNumber' : 'email');
      const { exchange } = await callPopulated({ api, verdict }, 'stepUp', populated);
      expectAccepted(verdict, 'SU-CHANNELS', exchange);
      verdict.observe('OBS-SUCCESS-STATUS', `stepUp answered ${exchange.status}`);
      expectJsonBody(verdict, 'GEN-JSON-RESPONSE', exchange);
      expectSchema(verdict, 'SU-RES-SCHEMA', stepUpOperation.responseSchema as string, exchange.json, exchange);
      const answer = bodyOf(exchange);
      expectEqual(verdict, 'SU-RES-IDS', 'inquiryId', answer.inquiryId, ref.inquiryId, exchange);
      expectEqual(verdict, 'SU-RES-IDS', 'authenticationId', answer.authenticationId, ref.authenticationId, exchange);
      verdict.observe(
        'SU-DECISION-VALUES',
        `${name}: decision ${answer.decision === undefined ? '(absent)' : JSON.stringify(answer.decision)}`,
      );
    },
  );
}

test(
  ...cites(['SU-IMAGES-ONLY'], 'a step-up with images but neither phone number nor email: the answer is observed', {
    on: 'stepUp',
  }),
  async ({ api, verdict, data, newCase }) => {
    const ref = await newCase();
    const exchange = await api.call('stepUp', { body: stepUp(data, ref, 'images'), note: 'images only' });
    verdict.observe('SU-IMAGES-ONLY', `images only: answered ${exchange.status}`);
  },
);

test(
  ...cites(
    ['SU-RES-IDS'],
    "a step-up for the earlier of two cases is answered with that case's identifiers, not the later one's",
    { on: 'stepUp' },
  ),
  async ({ api, verdict, data, newCase }) => {
    const first = await newCase();
    await newCase();
    const exchange = await api.call('stepUp', { body: stepUp(data, first, 'phone'), note: 'the earlier of two cases' });
    const answer = bodyOf(exchange);
    expectEqual(verdict, 'SU-RES-IDS', 'inquiryId', answer.inquiryId, first.inquiryId, exchange);
    expectEqual(verdict, 'SU-RES-IDS', 'authenticationId', answer.authenticationId, first.authenticationId, exchange);
  },
);
