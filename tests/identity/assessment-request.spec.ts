import { expectAccepted } from '../../kit/checks/responses.ts';
import { minimalAssessment } from '../../kit/builders/identity-bodies.ts';
import { cites, test } from '../../fixtures/test.ts';
import { requireSuccess } from '../../fixtures/preconditions.ts';

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
