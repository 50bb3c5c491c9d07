import { operation } from '../../catalog/catalog.ts';
import { expectAccepted, expectEqual, expectSchema } from '../../kit/checks/responses.ts';
import { caseUpdate, fullCaseUpdate } from '../../kit/builders/identity-bodies.ts';
import { populate } from '../../kit/builders/value-population.ts';
import { callPopulated } from '../../kit/populated-call.ts';
import { judgeUnchanged } from '../../kit/unchanged-case.ts';
import { bodyOf } from '../../fixtures/preconditions.ts';
import { cites, test } from '../../fixtures/test.ts';

const caseUpdateOperation = operation('caseUpdate');
const tagsOf = (update: Record<string, unknown>) => (Array.isArray(update['tags']) ? update['tags'].map(String) : []);

test(
  ...cites(
    ['CU-FIELDS-ACCEPTED', 'CU-RES-SCHEMA', 'CU-RES-IDS', 'CU-CORRELATION-ECHO', 'OBS-VALUE-CLASSES'],
    'a full update (every field of 2.5) is accepted and answered with the case ids',
  ),
  async ({ api, verdict, config, data, newCase, fetchCase }) => {
    const ref = await newCase();
    // Its notes and externalAgent carry a value of a class drawn by the seed (docs/traffic.md).
    const plain = fullCaseUpdate(data, ref, config.strategies.assessment);
    const { exchange } = await callPopulated(
      { api, verdict },
      'caseUpdate',
      populate(data, plain, ['notes', 'externalAgent']),
      {
        afterRefusal: (refused) =>
          judgeUnchanged({ api, verdict, data, fetchCase }, 'CU-FIELDS-ACCEPTED', ref, [
            { exchange: refused, markers: { tags: tagsOf(plain) } },
          ]),
      },
    );
    expectAccepted(verdict, 'CU-FIELDS-ACCEPTED', exchange);
    expectSchema(verdict, 'CU-RES-SCHEMA', caseUpdateOperation.responseSchema as string, exchange.json, exchange);
    const answer = bodyOf(exchange);
    expectEqual(verdict, 'CU-RES-IDS', 'inquiryId', answer.inquiryId, ref.inquiryId, exchange);
    expectEqual(verdict, 'CU-RES-IDS', 'authenticationId', answer.authenticationId, ref.authenticationId, exchange);
    const sentCorrelationId = exchange.request.headers.find(([name]) => name.toLowerCase() === 'x-correlation-id')?.[1];
    verdict.observe(
      'CU-CORRELATION-ECHO',
      `correlationId ${answer.correlationId === sentCorrelationId ? 'echoes' : 'differs from'} the x-correlation-id sent`,
    );
  },
);

test(
  ...cites(
    ['CU-RES-IDS'],
    "an update of the earlier of two cases is answered with that case's identifiers, not the later one's",
    { on: 'caseUpdate' },
  ),
  async ({ api, verdict, data, newCase }) => {
    const first = await newCase();
    await newCase();
    const exchange = await api.call('caseUpdate', {
      body: caseUpdate(first, { notes: data.faker.lorem.sentence() }),
      note: 'the earlier of two cases',
    });
    const answer = bodyOf(exchange);
    expectEqual(verdict, 'CU-RES-IDS', 'inquiryId', answer.inquiryId, first.inquiryId, exchange);
    expectEqual(verdict, 'CU-RES-IDS', 'authenticationId', answer.authenticationId, first.authenticationId, exchange);
  },
);
