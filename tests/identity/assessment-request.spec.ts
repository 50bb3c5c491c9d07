import { expectRefused } from '../../fixtures/checks.ts';
import { minimalAssessment } from '../../fixtures/builders/identity-bodies.ts';
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
  { field: 'creationDateTime', type: 'a number', value: 1_700_000_000_000 },
  { field: 'userIp', type: 'a number', value: 3_232_235_777 },
  { field: 'applicant', type: 'a string', value: 'Jane Sample' },
  { field: 'customFields', type: 'an array', value: ['campaign'] },
  { field: 'sharedContext', type: 'a string', value: 'child-organization' },
];

for (const variant of wrongTypes) {
  test(...cites(['ASM-REQ-TYPES'], `an assessment with ${variant.field} as ${variant.type} is refused`), async ({ api, verdict, config, data }) => {
    const body = { ...minimalAssessment(data, config.strategies.assessment), [variant.field]: variant.value };
    const exchange = await api.call('assessment', { body, note: `${variant.field} as ${variant.type}` });
    expectRefused(verdict, 'ASM-REQ-TYPES', exchange);
  });
}
