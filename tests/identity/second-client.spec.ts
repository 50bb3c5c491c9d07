import type { CallOptions } from '../../kit/api.ts';
import {
  caseUpdate,
  minimalAssessment,
  minimalDocumentVerification,
  type CaseRef,
} from '../../kit/builders/identity-bodies.ts';
import { clientTags } from '../../kit/builders/client-values.ts';
import { tagNames } from '../../kit/case/case-state.ts';
import type { Exchange } from '../../kit/http/exchange.ts';
import { bodyOf } from '../../fixtures/preconditions.ts';
import { cites, test } from '../../fixtures/test.ts';
import { accepted } from '../../kit/http/consequence.ts';

/** How a call on another client's case reads beside the same call on the second client's own case. */
function reading(other: Exchange, own: Exchange | undefined, verb: string): string {
  const ownText = own ? `its own case ${own.status}` : 'no case of its own to compare';
  if (accepted(other)) return `answered ${other.status} (${ownText}): another client could ${verb} this case`;
  if (own && accepted(own))
    return `refused ${other.status} (${ownText}): a refusal of this case, the operation itself open to the second client`;
  if (own) return `refused ${other.status} (${ownText}): a refusal of access to the operation at all, not of this case`;
  return `refused ${other.status} (${ownText})`;
}

test(
  ...cites(
    ['OBS-SECOND-CLIENT'],
    'what a second client sees of a case it did not create (fetch, records, update) is recorded, beside the same calls on a case of its own',
  ),
  // The records read are those of the run's read session (only read); the case fetched and updated is a new one.
  async ({ api, verdict, config, data, newCase, recordsToRead, fetchCase }) => {
    const second = config.secondClient;
    if (!second) return verdict.notConfigured('no second client: set SECOND_CLIENT_API_KEY and SECOND_CLIENT_ID');
    const asSecond: CallOptions = { apiKey: second.apiKey, set: { 'x-client-id': second.clientId } };
    const theirRecords = await recordsToRead();
    const { inquiryId, authenticationId } = await newCase();
    const theirs: CaseRef = { inquiryId, authenticationId };

    const assessment = minimalAssessment(data, config.strategies.assessment);
    const created = await api.call('assessment', {
      ...asSecond,
      body: assessment,
      note: 'the second client creates a case of its own',
    });
    const ownId = bodyOf(created).authenticationId;
    const own: CaseRef | undefined =
      accepted(created) && typeof ownId === 'string' && ownId !== ''
        ? { inquiryId: assessment.inquiryId, authenticationId: ownId }
        : undefined;
    if (own)
      await api.call('documentVerification', {
        ...asSecond,
        body: minimalDocumentVerification(data, config.strategies.documentVerification, own.inquiryId),
        note: 'a document verification of its own case',
      });

    const tags = clientTags(data);
    const calls = {
      read: (ref: CaseRef, note: string) =>
        api.call('fetchAssessment', { ...asSecond, pathParams: { caseId: ref.authenticationId }, note }),
      'read the records of': (ref: CaseRef, note: string) =>
        api.call('documentRecords', { ...asSecond, pathParams: { authenticationId: ref.authenticationId }, note }),
      update: (ref: CaseRef, note: string) =>
        api.call('caseUpdate', {
          ...asSecond,
          body: caseUpdate(ref, { tags: ref === theirs ? tags : clientTags(data) }),
          note,
        }),
    };
    const lines: string[] = [];
    for (const [verb, call] of Object.entries(calls)) {
      const [other, mine] = await Promise.all([
        call(verb === 'read the records of' ? theirRecords : theirs, `the second client, on another client's case`),
        own ? call(own, 'the second client, on its own case') : Promise.resolve(undefined),
      ]);
      lines.push(`${other.label}: ${reading(other, mine, verb)}`);
    }
    const after = await fetchCase(theirs);
    const applied = tags.filter((tag) => tagNames(after.body.tags).includes(tag));
    lines.push(
      `the second client's update ${applied.length === tags.length ? 'was applied: its tags are in the case as its creator fetches it' : applied.length === 0 ? 'left the case as it was' : `was applied in part (${applied.length} of ${tags.length} tags)`}`,
    );
    verdict.observe('OBS-SECOND-CLIENT', lines.join('; '));
  },
);
