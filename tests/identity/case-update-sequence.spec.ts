import { caseUpdate, undetailedMember, type BodyContext } from '../../kit/builders/identity-bodies.ts';
import { freshName } from '../../kit/builders/fresh-names.ts';
import { tagNames } from '../../kit/case/case-state.ts';
import { expectAccepted, sameEnumValue } from '../../kit/checks/responses.ts';
import { expectCaseDecision, expectTagsOnCase } from '../../kit/checks/identity.ts';
import { caseAfterMark } from '../../kit/unchanged-case.ts';
import { cites, test } from '../../fixtures/test.ts';
import { enumValues } from '../../schemas/registry.ts';

const decisions = enumValues('CaseDecision');

/** A step of the sequence: the members one update carries, given the decision the case has now. */
interface Step {
  name: string;
  members: (ctx: BodyContext, decisionNow: unknown) => Record<string, unknown>;
}

const otherDecision = (now: unknown, offset = 0) =>
  decisions.filter((d) => !sameEnumValue(now, d))[offset % (decisions.length - 1)] as string;

/** Every kind of update 2.5 allows, alone and combined; the tags are fresh, so that each one's arrival can be seen. */
const steps: readonly Step[] = [
  { name: 'tags only', members: (ctx) => ({ tags: [freshName('tag', ctx)] }) },
  { name: 'a decision only', members: (_ctx, now) => ({ decision: otherDecision(now) }) },
  { name: 'notes only', members: (ctx) => ({ notes: ctx.faker.lorem.sentence() }) },
  {
    name: 'a decision, tags and notes',
    members: (ctx, now) => ({
      decision: otherDecision(now, 1),
      tags: [freshName('tag', ctx), freshName('tag', ctx)],
      notes: ctx.faker.lorem.sentence(),
    }),
  },
  {
    name: 'an unknown queue and a tag',
    members: (ctx) => ({ queue: freshName('queue', ctx), tags: [freshName('tag', ctx)] }),
  },
  {
    name: 'an unknown rejection code and a decision',
    members: (ctx, now) => ({ rejectionCode: freshName('rc', ctx), decision: otherDecision(now) }),
  },
  {
    name: 'an agent, verifiedFraud and customFields',
    members: (ctx) => ({
      externalAgent: freshName('agent', ctx),
      verifiedFraud: true,
      customFields: undetailedMember(ctx, 'caseUpdate', 'customFields'),
    }),
  },
  { name: 'documents only', members: (ctx) => ({ documents: undetailedMember(ctx, 'caseUpdate', 'documents', [{}]) }) },
  { name: 'the identifiers only', members: () => ({}) },
  {
    name: 'tags, a decision, an unknown queue and an unknown rejection code',
    members: (ctx, now) => ({
      tags: [freshName('tag', ctx)],
      decision: otherDecision(now, 2),
      queue: freshName('queue', ctx),
      rejectionCode: freshName('rc', ctx),
    }),
  },
];

/** The requirement under which the update itself must be accepted: the rule the update exercises. */
function acceptanceRequirement(members: Record<string, unknown>): string {
  if ('queue' in members) return 'CU-QUEUE-UNKNOWN';
  if ('rejectionCode' in members) return 'CU-REJECTION-UNKNOWN';
  if ('decision' in members) return 'CU-DECISION-APPLIED';
  if ('tags' in members) return 'CU-TAGS-APPEND';
  return 'CU-DECISION-KEPT';
}

test(
  ...cites(
    ['CU-DECISION-KEPT', 'CU-DECISION-APPLIED', 'CU-TAGS-APPEND', 'CU-QUEUE-UNKNOWN', 'CU-REJECTION-UNKNOWN'],
    'across a sequence of every kind of update, alone and combined, each applies what it carries and leaves the rest as it was',
    { on: 'caseUpdate' },
  ),
  async ({ api, verdict, data, newCase, fetchCase }) => {
    // Two halves of the sequence, each on a case of its own, step by step side by side: against a target whose reads
    // trail its writes each step waits for its write to show, and one chain of ten would wait ten lags one after the
    // other. Whatever is drawn is drawn in one order, the first half's first, so that a SEED replays the run.
    const refs = [await newCase(), await newCase()];
    const chains = await Promise.all(
      refs.map(async (ref, index) => {
        const initial = await fetchCase(ref);
        const half = index === 0 ? steps.slice(0, steps.length / 2) : steps.slice(steps.length / 2);
        return { ref, half, decision: initial.body.decision as unknown, tags: tagNames(initial.body.tags) };
      }),
    );
    for (let index = 0; index < steps.length / 2; index += 1) {
      const sent = chains.map((chain) => {
        const step = chain.half[index] as Step;
        return { chain, step, members: step.members(data, chain.decision) };
      });
      const updated = await Promise.all(
        sent.map(async (one) => ({
          ...one,
          exchange: await api.call('caseUpdate', { body: caseUpdate(one.chain.ref, one.members), note: one.step.name }),
        })),
      );
      // An update that carries neither tags nor a decision shows in no read: the decision it kept is judged on the
      // case once a later tag of the check's own shows.
      const judged = await Promise.all(
        updated.map(async (one) => ({
          ...one,
          after:
            'tags' in one.members || 'decision' in one.members
              ? await fetchCase(one.chain.ref)
              : await caseAfterMark({ api, verdict, data, fetchCase }, 'CU-DECISION-KEPT', one.chain.ref),
        })),
      );
      for (const { chain, step, members, exchange, after } of judged) {
        expectAccepted(verdict, acceptanceRequirement(members), exchange);
        if (typeof members.decision === 'string') chain.decision = members.decision;
        chain.tags.push(...((members.tags as string[] | undefined) ?? []));
        if (!after) continue;
        const decisionRequirement = 'decision' in members ? 'CU-DECISION-APPLIED' : 'CU-DECISION-KEPT';
        const context = { after: `an update carrying ${step.name}` };
        if (typeof chain.decision === 'string')
          expectCaseDecision(verdict, decisionRequirement, after, chain.decision, context);
        expectTagsOnCase(verdict, 'CU-TAGS-APPEND', after, chain.tags, context);
      }
    }
  },
);
