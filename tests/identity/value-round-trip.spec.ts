import { jsonText, populatedWith, valueClass, valueClasses } from '../../kit/builders/value-population.ts';
import { minimalAssessment, minimalDocumentVerification } from '../../kit/builders/identity-bodies.ts';
import { expectAccepted } from '../../kit/checks/responses.ts';
import {
  expectAcceptedOrRefused,
  expectIdentifierBack,
  outcomeOf,
  observeClassOutcomes,
} from '../../kit/checks/value-round-trip.ts';
import { callPopulated } from '../../kit/populated-call.ts';
import { bodyOf } from '../../fixtures/preconditions.ts';
import { cites, test } from '../../fixtures/test.ts';
import { accepted } from '../../kit/http/consequence.ts';

// What the document shows back comes back exactly, for every class of value a real population sends (docs/traffic.md):
// one round trip per member shown back (the tags: case-update-tags.spec.ts). Elsewhere the values ride on requests the
// run sends anyway.

test(
  ...cites(
    ['ASM-ACCEPTED', 'ASM-RES-IDS', 'ASM-FETCH-SAME-CASE', 'DOCV-ACCEPTED', 'DOCV-RES-INQUIRY', 'OBS-VALUE-CLASSES'],
    'an inquiryId of each path-safe class of value comes back byte for byte: in the assessment answer, in the case fetched by its identifier and in the document verification answer',
    { on: ['assessment', 'fetchAssessment', 'documentVerification'] },
  ),
  async ({ api, verdict, config, data }) => {
    // Drawn before anything is sent, so that the seeded values do not depend on the order the answers come in.
    const trips = valueClasses
      .filter((cls) => cls.pathSafe)
      .map((cls) => {
        const assessment = populatedWith(
          data,
          minimalAssessment(data, config.strategies.assessment),
          ['inquiryId'],
          cls,
        );
        const inquiryId = assessment.body.inquiryId;
        const docv = minimalDocumentVerification(data, config.strategies.documentVerification, inquiryId);
        return { cls, inquiryId, assessment, docvText: jsonText(docv, cls.escaped === true) };
      });
    const outcomes = await Promise.all(
      trips.map(async ({ cls, inquiryId, assessment, docvText }) => {
        const created = await api.call('assessment', { rawBody: assessment.text, note: `inquiryId: ${cls.id}` });
        expectAcceptedOrRefused(verdict, 'ASM-ACCEPTED', created);
        const caseId = bodyOf(created).authenticationId;
        if (accepted(created)) {
          expectIdentifierBack(verdict, 'ASM-RES-IDS', 'inquiryId', bodyOf(created).inquiryId, inquiryId, created);
          // Without a case identifier there is nothing to fetch: the answer's own row judges that (ASM-RES-IDS).
          if (typeof caseId === 'string' && caseId !== '') {
            const fetched = await api.call('fetchAssessment', { pathParams: { caseId }, note: `inquiryId: ${cls.id}` });
            expectAccepted(verdict, 'ASM-FETCH-SAME-CASE', fetched);
            expectIdentifierBack(
              verdict,
              'ASM-FETCH-SAME-CASE',
              'inquiryId',
              bodyOf(fetched).inquiryId,
              inquiryId,
              fetched,
            );
          }
        }
        const started = await api.call('documentVerification', { rawBody: docvText, note: `inquiryId: ${cls.id}` });
        expectAcceptedOrRefused(verdict, 'DOCV-ACCEPTED', started);
        if (accepted(started))
          expectIdentifierBack(verdict, 'DOCV-RES-INQUIRY', 'inquiryId', bodyOf(started).inquiryId, inquiryId, started);
        return { valueClass: cls.id, created, started };
      }),
    );
    observeClassOutcomes(
      verdict,
      'OBS-VALUE-CLASSES',
      'inquiryId in assessments',
      outcomes.map(({ valueClass, created }) => ({ valueClass, outcome: outcomeOf(created) })),
    );
    observeClassOutcomes(
      verdict,
      'OBS-VALUE-CLASSES',
      'inquiryId in document verifications',
      outcomes.map(({ valueClass, started }) => ({ valueClass, outcome: outcomeOf(started) })),
    );
  },
);

// An inquiryId that goes into no path carries what JSON must escape (a quote, a backslash, a control character): a
// target that writes its answer by hand without escaping the echo answers something else, or no JSON at all.
test(
  ...cites(
    ['ASM-ACCEPTED', 'ASM-RES-IDS', 'OBS-VALUE-CLASSES'],
    'an inquiryId with a quote, a backslash and a control character comes back exactly in the assessment answer',
    { on: 'assessment' },
  ),
  async ({ api, verdict, config, data }) => {
    const populated = populatedWith(
      data,
      minimalAssessment(data, config.strategies.assessment),
      ['inquiryId'],
      valueClass('identifier-escapes'),
    );
    const { exchange, body } = await callPopulated({ api, verdict }, 'assessment', populated, {
      note: 'inquiryId with escapes',
    });
    expectAccepted(verdict, 'ASM-ACCEPTED', exchange);
    if (accepted(exchange))
      expectIdentifierBack(verdict, 'ASM-RES-IDS', 'inquiryId', bodyOf(exchange).inquiryId, body.inquiryId, exchange);
  },
);
