import { expectAccepted, expectRefused } from '../../harness/checks/responses.ts';
import { minimalAssessment } from '../../harness/builders/identity-bodies.ts';
import { cites, test } from '../../fixtures/test.ts';

for (const field of ['strategy', 'inquiryId'] as const) {
  test(...cites(['ASM-REQ-REQUIRED'], `an assessment without ${field} is refused`), async ({ api, verdict, config, data }) => {
    const body: Record<string, unknown> = minimalAssessment(data, config.strategies.assessment);
    delete body[field];
    const exchange = await api.call('assessment', { body, note: `without ${field}` });
    expectRefused(verdict, 'ASM-REQ-REQUIRED', exchange);
  });
}

/**
 * One field of 2.1 in a JSON type other than the one it states; the rest of the request is valid. Each JSON type
 * mistake appears at least once, on required, string and object fields; the table stays short because the kill
 * matrix reruns it.
 */
const wrongTypes: Array<{ field: string; type: string; value: unknown }> = [
  { field: 'strategy', type: 'a number', value: 42 },
  { field: 'inquiryId', type: 'a number', value: 1234567 },
  { field: 'channel', type: 'a boolean', value: true },
  { field: 'deviceSessionId', type: 'a number', value: 981_273 },
  { field: 'creationDateTime', type: 'a number', value: 1_700_000_000_000 },
  { field: 'userIp', type: 'a number', value: 3_232_235_777 },
  { field: 'account', type: 'a string', value: 'acct-1' },
  { field: 'applicant', type: 'a string', value: 'Jane Sample' },
  { field: 'coApplicant', type: 'an array', value: ['John Sample'] },
  { field: 'product', type: 'a number', value: 7 },
  { field: 'customFields', type: 'an array', value: ['campaign'] },
  { field: 'memberId', type: 'a number', value: 12_345_678 },
  { field: 'entryUser', type: 'an object', value: { name: 'agent' } },
  { field: 'requestType', type: 'a boolean', value: false },
  { field: 'sharedContext', type: 'a string', value: 'child-organization' },
];

for (const variant of wrongTypes) {
  test(...cites(['ASM-REQ-TYPES'], `an assessment with ${variant.field} as ${variant.type} is refused`), async ({ api, verdict, config, data }) => {
    const body = { ...minimalAssessment(data, config.strategies.assessment), [variant.field]: variant.value };
    const exchange = await api.call('assessment', { body, note: `${variant.field} as ${variant.type}` });
    expectRefused(verdict, 'ASM-REQ-TYPES', exchange);
  });
}

test(...cites(['ASM-DEVICE-SESSION-REUSE'], 'a deviceSessionId already used by another assessment is accepted again'), async ({ api, verdict, config, data }) => {
  const deviceSessionId = data.faker.string.uuid();
  const first = await api.call('assessment', { body: { ...minimalAssessment(data, config.strategies.assessment), deviceSessionId }, note: 'first use of the deviceSessionId' });
  verdict.precondition(first.status >= 200 && first.status < 300, 'an assessment with a deviceSessionId is accepted', () => ({ sent: verdict.sent(first), expected: 'success (2xx)', actual: verdict.answer(first) }));
  const second = await api.call('assessment', { body: { ...minimalAssessment(data, config.strategies.assessment), deviceSessionId }, note: 'the same deviceSessionId again' });
  expectAccepted(verdict, 'ASM-DEVICE-SESSION-REUSE', second);
});
