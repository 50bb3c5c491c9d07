import { expectTagsOnCase } from '../../kit/checks/identity.ts';
import { judgeUnchanged } from '../../kit/unchanged-case.ts';
import { caseUpdate } from '../../kit/builders/identity-bodies.ts';
import { clientTags } from '../../kit/builders/client-values.ts';
import { concurrentRounds, roundsText } from '../../kit/concurrency.ts';
import { cites, test } from '../../fixtures/test.ts';
import { accepted } from '../../kit/http/consequence.ts';

test(
  ...cites(
    ['CU-TAGS-APPEND'],
    'tags of updates of one case sent at once, each on its own connection, are all appended',
  ),
  async ({ api, verdict, config, data, newCase, fetchCase }) => {
    const { rounds, calls } = config.concurrency;
    if (rounds === 0) verdict.notConfigured('CONCURRENCY_ROUNDS is 0: no calls are sent at once');
    const ref = await newCase();
    const report = await concurrentRounds({
      rounds,
      play: async () => {
        const tagsOf = Array.from({ length: calls }, () => clientTags(data));
        const answers = await api.callAtOnce(
          tagsOf.map((tags) => ({
            id: 'caseUpdate' as const,
            options: { body: caseUpdate(ref, { tags }), note: `one of ${calls} updates of the case sent at once` },
          })),
        );
        return { answers, context: tagsOf };
      },
      judge: async (exchanges, tagsOf) => {
        const after = await fetchCase(ref);
        // 2.5 does not say a target takes overlapping updates of a case: one it refuses must leave nothing; one it
        // accepts appends every tag; one answered 5xx may or may not have been applied, and is not judged.
        for (const [index, exchange] of exchanges.entries())
          if (accepted(exchange))
            expectTagsOnCase(verdict, 'CU-TAGS-APPEND', after, tagsOf[index] ?? [], {
              after: 'updates of the case sent at once',
              sent: exchange,
            });
        await judgeUnchanged(
          { api, verdict, data, fetchCase },
          'CU-TAGS-APPEND',
          ref,
          exchanges.map((exchange, index) => ({ exchange, markers: { tags: tagsOf[index] ?? [] } })),
        );
      },
    });
    test.info().annotations.push({ type: 'concurrency', description: roundsText(report, calls) });
    if (report.judged === 0)
      verdict.nothingToJudge(['CU-TAGS-APPEND'], `no round could be judged: ${roundsText(report, calls)}`);
  },
);
