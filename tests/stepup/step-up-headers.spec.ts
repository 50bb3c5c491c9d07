import { randomUUID } from 'node:crypto';
import { expectAccepted, expectRefused } from '../../kit/checks/responses.ts';
import { stepUp } from '../../kit/builders/identity-bodies.ts';
import type { CallOptions } from '../../kit/api.ts';
import { cites, test } from '../../fixtures/test.ts';
import { requireHeaderNotSent } from '../../kit/preconditions.ts';

test(
  ...cites(['HDR-CLIENT-ID'], 'a step-up without x-client-id is refused, the same request with it accepted', {
    on: 'stepUp',
  }),
  async ({ api, verdict, validRequest }) => {
    const exchange = await api.call('stepUp', { ...(await validRequest('stepUp')), omit: ['x-client-id'] });
    expectRefused(verdict, 'HDR-CLIENT-ID', exchange);
  },
);

const contentTypeDefects: ReadonlyArray<{ name: string; options: Pick<CallOptions, 'omit' | 'set'> }> = [
  { name: 'no Content-Type', options: { omit: ['content-type'] } },
  { name: 'Content-Type text/plain', options: { set: { 'content-type': 'text/plain' } } },
];

for (const defect of contentTypeDefects) {
  test(
    ...cites(['HDR-CONTENT-TYPE'], `a step-up with a JSON body and ${defect.name}: the answer is observed`, {
      on: 'stepUp',
    }),
    async ({ api, verdict, validRequest }) => {
      const exchange = await api.call('stepUp', {
        ...(await validRequest('stepUp', { control: false })),
        ...defect.options,
        note: defect.name,
      });
      verdict.observe('HDR-CONTENT-TYPE', `stepUp ${defect.name}: answered ${exchange.status}`);
    },
  );
}

test(
  ...cites(['HDR-STEPUP-NO-CORRELATION'], 'a step-up without x-correlation-id is accepted', { on: 'stepUp' }),
  async ({ api, verdict, data, newCase }) => {
    const ref = await newCase();
    const exchange = await api.call('stepUp', { body: stepUp(data, ref, 'phone'), note: 'no x-correlation-id' });
    requireHeaderNotSent(verdict, exchange, 'x-correlation-id');
    expectAccepted(verdict, 'HDR-STEPUP-NO-CORRELATION', exchange);
  },
);

test(
  ...cites(['HDR-STEPUP-CORRELATION-SENT'], 'a step-up carrying an x-correlation-id anyway: the answer is recorded', {
    on: 'stepUp',
  }),
  async ({ api, verdict, data, newCase }) => {
    const ref = await newCase();
    const exchange = await api.call('stepUp', {
      body: stepUp(data, ref, 'phone'),
      set: { 'x-correlation-id': randomUUID() },
    });
    verdict.observe('HDR-STEPUP-CORRELATION-SENT', `answered ${exchange.status}`);
  },
);
