import { tagClassUpdates } from '../../kit/builders/value-population.ts';
import { judgeUnchanged } from '../../kit/unchanged-case.ts';
import {
  expectAcceptedOrRefused,
  expectTagsShown,
  outcomeOf,
  observeClassOutcomes,
  tagsShown,
} from '../../kit/checks/value-round-trip.ts';
import { cites, test } from '../../fixtures/test.ts';
import { accepted } from '../../kit/http/consequence.ts';

// The tags a case update appends come back exactly, for every class of value a real population sends (docs/traffic.md).
// The run's longest chain of requests: its file sorts before most of its project's, so that against a far target it
// starts early rather than end the run alone (docs/performance.md).

test(
  ...cites(
    ['CU-TAGS-APPEND', 'OBS-VALUE-CLASSES'],
    'tags of every class of value, an update per class, then two updates of 20 to 50 tags: the case shows every tag of every accepted update, more than a hundred, each as sent',
    { on: 'caseUpdate' },
  ),
  async ({ api, verdict, data, newCase, fetchCase }) => {
    const ref = await newCase();
    const sent = [];
    // One after the other: 2.5 does not say a target takes overlapping updates of one case.
    for (const update of tagClassUpdates(data, ref)) {
      const exchange = await api.call('caseUpdate', { rawBody: update.text, note: `tags: ${update.valueClass.id}` });
      expectAcceptedOrRefused(verdict, 'CU-TAGS-APPEND', exchange);
      sent.push({ update, exchange, tags: update.body['tags'] as string[] });
    }
    const after = await fetchCase(ref);
    const taken = sent.filter(({ exchange }) => accepted(exchange));
    expectTagsShown(
      verdict,
      'CU-TAGS-APPEND',
      taken.flatMap(({ tags }) => tags),
      after,
    );
    // A refused update (a value the target does not take) left nothing: none of its fresh tags is on the case.
    await judgeUnchanged(
      { api, verdict, data, fetchCase },
      'CU-TAGS-APPEND',
      ref,
      sent.map(({ exchange, tags }) => ({ exchange, markers: { tags } })),
    );
    observeClassOutcomes(
      verdict,
      'OBS-VALUE-CLASSES',
      'tags of case updates, shown by the case',
      sent.flatMap(({ update, exchange, tags }) =>
        tagsShown(tags, after.body['tags']).map(({ shown }) => ({
          valueClass: update.valueClass.id,
          outcome: outcomeOf(exchange, shown.join(' and ')),
        })),
      ),
    );
  },
);
