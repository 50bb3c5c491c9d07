import { expectAccepted } from '../../kit/checks/responses.ts';
import { expectTagsOnCase } from '../../kit/checks/identity.ts';
import { caseUpdate, type BodyContext } from '../../kit/builders/identity-bodies.ts';
import { freshName } from '../../kit/builders/fresh-names.ts';
import { clientTags } from '../../kit/builders/client-values.ts';
import { tagNames } from '../../kit/case/case-state.ts';
import { populate } from '../../kit/builders/value-population.ts';
import { callPopulated } from '../../kit/populated-call.ts';
import { judgeUnchanged } from '../../kit/unchanged-case.ts';
import { cites, test } from '../../fixtures/test.ts';

test(
  ...cites(
    ['CU-TAGS-APPEND'],
    'new tags of two updates, several each, are all appended to the case, the earlier tags kept',
  ),
  async ({ api, verdict, data, newCase, fetchCase }) => {
    const ref = await newCase();
    const before = await fetchCase(ref);
    const updates = [clientTags(data), clientTags(data)];
    for (const tags of updates) {
      const exchange = await api.call('caseUpdate', { body: caseUpdate(ref, { tags }) });
      expectAccepted(verdict, 'CU-TAGS-APPEND', exchange);
    }
    expectTagsOnCase(verdict, 'CU-TAGS-APPEND', await fetchCase(ref), [
      ...tagNames(before.body.tags),
      ...updates.flat(),
    ]);
  },
);

// The free-text name carries a value of a class drawn by the seed (docs/traffic.md); refused, it is sent again plain.
const agents = [
  { name: 'a reference no portal user has', build: (ctx: BodyContext) => freshName('agent', ctx), populated: [] },
  {
    name: 'a free-text name',
    build: (ctx: BodyContext) => `${ctx.faker.person.fullName()} (outsourced desk)`,
    populated: ['externalAgent'],
  },
] as const;

for (const agent of agents) {
  test(
    ...cites(['CU-AGENT-ANY', 'OBS-VALUE-CLASSES'], `an arbitrary externalAgent is accepted: ${agent.name}`),
    async ({ api, verdict, data, newCase }) => {
      const ref = await newCase();
      const plain = caseUpdate(ref, { externalAgent: agent.build(data) });
      const { exchange } = agent.populated.length
        ? await callPopulated({ api, verdict }, 'caseUpdate', populate(data, plain, agent.populated))
        : { exchange: await api.call('caseUpdate', { body: plain }) };
      expectAccepted(verdict, 'CU-AGENT-ANY', exchange);
    },
  );
}

const unvalidated = [
  { field: 'queue', name: 'a queue that does not exist', id: 'CU-QUEUE-UNKNOWN', kept: 'CU-QUEUE-KEPT' },
  {
    field: 'rejectionCode',
    name: 'a rejection code that cannot be validated',
    id: 'CU-REJECTION-UNKNOWN',
    kept: 'CU-REJECTION-KEPT',
  },
] as const;

for (const variant of unvalidated) {
  test(
    ...cites(
      [variant.id, variant.kept, 'OBS-VALUE-CLASSES'],
      `${variant.name} does not fail the update, and its new tags are applied`,
    ),
    async ({ api, verdict, data, newCase, fetchCase }) => {
      const ref = await newCase();
      const before = await fetchCase(ref);
      const tags = clientTags(data);
      // The unknown value is of a class drawn by the seed; refused, the update must have left nothing, and goes again plain.
      const plain = caseUpdate(ref, { [variant.field]: freshName(variant.field, data), tags });
      const { exchange } = await callPopulated({ api, verdict }, 'caseUpdate', populate(data, plain, [variant.field]), {
        afterRefusal: (refused) =>
          judgeUnchanged({ api, verdict, data, fetchCase }, variant.id, ref, [
            { exchange: refused, markers: { tags } },
          ]),
      });
      expectAccepted(verdict, variant.id, exchange);
      const after = await fetchCase(ref);
      expectTagsOnCase(verdict, variant.id, after, tags);
      const shown = (body: Record<string, unknown>) =>
        variant.field in body ? JSON.stringify(body[variant.field]) : '(not in the fetched case)';
      verdict.observe(variant.kept, `${variant.field} before ${shown(before.body)}, after ${shown(after.body)}`);
    },
  );
}
