import { operation } from '../../catalog/catalog.ts';
import {
  expectAccepted,
  expectEqual,
  expectJsonBody,
  expectNonEmptyString,
  expectSchema,
} from '../../kit/checks/responses.ts';
import { fullAssessment, minimalAssessment } from '../../kit/builders/identity-bodies.ts';
import { populate } from '../../kit/builders/value-population.ts';
import { callPopulated } from '../../kit/populated-call.ts';
import { bodyOf } from '../../fixtures/preconditions.ts';
import { cites, test } from '../../fixtures/test.ts';

const assessment = operation('assessment');
const fetchAssessment = operation('fetchAssessment');

// The inquiryId, and the channel of the full request, carry a value of a class drawn by the seed (docs/traffic.md).
const variants = [
  { name: 'minimal request (strategy and inquiryId)', build: minimalAssessment, populated: ['inquiryId'] },
  { name: 'full request (every field of 2.1)', build: fullAssessment, populated: ['inquiryId', 'channel'] },
] as const;

for (const variant of variants) {
  test(
    ...cites(
      [
        'ASM-ACCEPTED',
        'GEN-JSON-RESPONSE',
        'ASM-RES-SCHEMA',
        'ASM-RES-IDS',
        'ASM-FETCH-SAME-CASE',
        'OBS-SUCCESS-STATUS',
        'ASM-DECISION-VALUES',
        'OBS-VALUE-CLASSES',
      ],
      `an assessment round-trips through fetch by case id: ${variant.name}`,
      { on: ['assessment', 'fetchAssessment'] },
    ),
    async ({ api, verdict, config, data }) => {
      const populated = populate(data, variant.build(data, config.strategies.assessment), variant.populated);
      const { exchange: created, body } = await callPopulated({ api, verdict }, 'assessment', populated);
      expectAccepted(verdict, 'ASM-ACCEPTED', created);
      verdict.observe('OBS-SUCCESS-STATUS', `${assessment.id} answered ${created.status}`);
      expectJsonBody(verdict, 'GEN-JSON-RESPONSE', created);
      expectSchema(verdict, 'ASM-RES-SCHEMA', assessment.responseSchema as string, created.json, created);
      const answer = bodyOf(created);
      expectNonEmptyString(verdict, 'ASM-RES-IDS', 'authenticationId', answer.authenticationId, created);
      expectEqual(verdict, 'ASM-RES-IDS', 'inquiryId', answer.inquiryId, body.inquiryId, created);
      if (answer.decision !== undefined)
        verdict.observe('ASM-DECISION-VALUES', `decision ${JSON.stringify(answer.decision)}`);

      if (typeof answer.authenticationId !== 'string' || answer.authenticationId === '') {
        // The fetch stands on the identifier the assessment returns: without one it cannot run.
        return verdict.blocked(
          'the assessment returned no authenticationId to fetch the case by',
          { sent: verdict.sent(created), expected: 'a non-empty authenticationId', actual: verdict.answer(created) },
          ['ASM-FETCH-SAME-CASE'],
        );
      }
      const fetched = await api.call('fetchAssessment', { pathParams: { caseId: answer.authenticationId } });
      expectAccepted(verdict, 'ASM-FETCH-SAME-CASE', fetched);
      verdict.observe('OBS-SUCCESS-STATUS', `${fetchAssessment.id} answered ${fetched.status}`);
      expectJsonBody(verdict, 'GEN-JSON-RESPONSE', fetched);
      expectSchema(verdict, 'ASM-RES-SCHEMA', fetchAssessment.responseSchema as string, fetched.json, fetched);
      expectEqual(
        verdict,
        'ASM-FETCH-SAME-CASE',
        'authenticationId',
        bodyOf(fetched).authenticationId,
        answer.authenticationId,
        fetched,
      );
      expectEqual(verdict, 'ASM-FETCH-SAME-CASE', 'inquiryId', bodyOf(fetched).inquiryId, body.inquiryId, fetched);
    },
  );
}
