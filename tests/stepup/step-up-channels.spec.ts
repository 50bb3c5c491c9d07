import { operation } from '../../catalog/catalog.ts';
import { expectAccepted, expectEqual, expectSchema } from '../../harness/checks/responses.ts';
import { stepUp, type StepUpChannel } from '../../harness/builders/identity-bodies.ts';
import { bodyOf } from '../../fixtures/preconditions.ts';
import { cites, test } from '../../fixtures/test.ts';

const stepUpOperation = operation('stepUp');

const channels: ReadonlyArray<{ channel: StepUpChannel; name: string; strategyObject?: true }> = [
  { channel: 'phone', name: 'by phone number' },
  { channel: 'email', name: 'by email' },
  { channel: 'images', name: 'with images' },
  // 2.6 types strategy as an object (v1RequestStrategy) whose fields are not shown: an empty one when none is configured.
  { channel: 'phone', name: 'by phone number with a strategy object', strategyObject: true },
];

for (const { channel, name, strategyObject } of channels) {
  test(
    ...cites(['SU-CHANNELS', 'SU-RES-SCHEMA', 'SU-RES-IDS', 'SU-DECISION-VALUES'], `a step-up ${name} for an existing case is accepted and answered with the case ids`),
    async ({ api, verdict, data, newCase }) => {
      const ref = await newCase();
      const exchange = await api.call('stepUp', { body: stepUp(data, ref, channel, strategyObject) });
      expectAccepted(verdict, 'SU-CHANNELS', exchange);
      expectSchema(verdict, 'SU-RES-SCHEMA', stepUpOperation.responseSchema as string, exchange.json, exchange);
      const answer = bodyOf(exchange);
      expectEqual(verdict, 'SU-RES-IDS', 'inquiryId', answer.inquiryId, ref.inquiryId, exchange);
      expectEqual(verdict, 'SU-RES-IDS', 'authenticationId', answer.authenticationId, ref.authenticationId, exchange);
      verdict.observe('SU-DECISION-VALUES', `${name}: decision ${answer.decision === undefined ? '(absent)' : JSON.stringify(answer.decision)}`);
    },
  );
}
