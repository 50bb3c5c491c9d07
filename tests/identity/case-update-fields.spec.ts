import { expectAccepted } from '../../kit/checks/responses.ts';
import { expectTagsOnCase } from '../../kit/checks/identity.ts';
import { caseUpdate, type BodyContext } from '../../kit/builders/identity-bodies.ts';
import { freshName } from '../../kit/builders/fresh-names.ts';
import { clientTags } from '../../kit/builders/client-values.ts';
import { tagNames } from '../../kit/checks/case-state.ts';
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

const agents = [
  { name: 'a reference no portal user has', build: (ctx: BodyContext) => freshName('agent', ctx) },
  { name: 'a free-text name', build: (ctx: BodyContext) => `${ctx.faker.person.fullName()} (outsourced desk)` },
] as const;

for (const agent of agents) {
  test(
    ...cites(['CU-AGENT-ANY'], `an arbitrary externalAgent is accepted: ${agent.name}`),
    async ({ api, verdict, data, newCase }) => {
      const ref = await newCase();
      const exchange = await api.call('caseUpdate', { body: caseUpdate(ref, { externalAgent: agent.build(data) }) });
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
    ...cites([variant.id, variant.kept], `${variant.name} does not fail the update, and its new tags are applied`),
    async ({ api, verdict, data, newCase, fetchCase }) => {
      const ref = await newCase();
      const before = await fetchCase(ref);
      const tags = clientTags(data);
      const exchange = await api.call('caseUpdate', {
        body: caseUpdate(ref, { [variant.field]: freshName(variant.field, data), tags }),
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
