import { expectAccepted } from '../../kit/checks/responses.ts';
import { minimalAssessment } from '../../kit/builders/identity-bodies.ts';
import { cites, test } from '../../fixtures/test.ts';
import { requireSuccess } from '../../fixtures/preconditions.ts';
import { dateTimeForms, writeDateTime } from '../../kit/builders/date-time-forms.ts';

test(
  ...cites(['ASM-DEVICE-SESSION-REUSE'], 'a deviceSessionId already used by another assessment is accepted again'),
  async ({ api, verdict, config, data }) => {
    const deviceSessionId = data.faker.string.uuid();
    const first = await api.call('assessment', {
      body: { ...minimalAssessment(data, config.strategies.assessment), deviceSessionId },
      note: 'first use of the deviceSessionId',
    });
    requireSuccess({ verdict, config }, first, 'an assessment with a deviceSessionId is accepted');
    const second = await api.call('assessment', {
      body: { ...minimalAssessment(data, config.strategies.assessment), deviceSessionId },
      note: 'the same deviceSessionId again',
    });
    expectAccepted(verdict, 'ASM-DEVICE-SESSION-REUSE', second);
  },
);

// Every RFC 3339 form platforms write (docs/traffic.md), once a run each, as the current instant.
for (const form of dateTimeForms) {
  test(
    ...cites(
      ['ASM-ACCEPTED'],
      `an assessment whose creationDateTime is the current instant is accepted: ${form.name}`,
      {
        on: 'assessment',
      },
    ),
    async ({ api, verdict, config, data }) => {
      const creationDateTime = writeDateTime(form, Date.now(), Math.floor((performance.now() % 1) * 1e6));
      const exchange = await api.call('assessment', {
        body: { ...minimalAssessment(data, config.strategies.assessment), creationDateTime },
        note: `creationDateTime: ${form.id}`,
      });
      expectAccepted(verdict, 'ASM-ACCEPTED', exchange);
    },
  );
}
