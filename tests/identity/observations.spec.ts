import { minimalAssessment } from '../../kit/builders/identity-bodies.ts';
import { bodyOf } from '../../fixtures/preconditions.ts';
import { cites, test } from '../../fixtures/test.ts';

const versionHeader = /version/i;
const limitHeader = /ratelimit|rate-limit|retry-after|quota/i;

function matching(headers: Record<string, string>, pattern: RegExp): string {
  const found = Object.entries(headers).filter(([name]) => pattern.test(name));
  return found.length === 0 ? 'none' : found.map(([name, value]) => `${name}: ${value}`).join('; ');
}

test(
  ...cites(
    ['VER-NO-VERSION-HEADER', 'LIM-NOT-SHOWN'],
    'version and limit headers of an assessment and its fetch are recorded',
  ),
  async ({ api, verdict, config, data }) => {
    const created = await api.call('assessment', { body: minimalAssessment(data, config.strategies.assessment) });
    const caseId = bodyOf(created).authenticationId;
    const exchanges = [
      created,
      ...(typeof caseId === 'string' && caseId !== ''
        ? [await api.call('fetchAssessment', { pathParams: { caseId } })]
        : []),
    ];
    for (const exchange of exchanges) {
      verdict.observe(
        'VER-NO-VERSION-HEADER',
        `${exchange.label} (${exchange.status}): version-like headers: ${matching(exchange.headers, versionHeader)}`,
      );
      verdict.observe(
        'LIM-NOT-SHOWN',
        `${exchange.label} (${exchange.status}): limit-like headers: ${matching(exchange.headers, limitHeader)}`,
      );
    }
  },
);
