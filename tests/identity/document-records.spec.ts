import { operation } from '../../catalog/catalog.ts';
import { expectAccepted, expectJsonBody, expectRefused, expectSchema } from '../../kit/checks/responses.ts';
import { expectRecordsOfCase } from '../../kit/checks/identity.ts';
import { bodyOf } from '../../fixtures/preconditions.ts';
import { serviceIdNearMisses } from '../../kit/builders/near-misses.ts';
import { expectNotTheCase } from '../../kit/checks/identity.ts';
import { cites, test } from '../../fixtures/test.ts';
import { enumValues, schemaDocument } from '../../schemas/registry.ts';
import { unknownCaseId } from '../../kit/builders/identity-bodies.ts';
import { accepted } from '../../kit/http/consequence.ts';

const records = operation('documentRecords');
const recordsSchema = records.responseSchema as string;

/** The record parts of 2.4: every member of the records but the identifier. */
const recordParts = Object.keys(schemaDocument(recordsSchema)['properties'] as object).filter(
  (name) => name !== 'authenticationId',
);
const everyPart = 'all';

/** The parts a data value selects; 4.4 spells formdata in lower case for the formData part (ERRATUM-FORMDATA). */
function partsSelectedBy(value: string): string[] {
  if (value === everyPart) return recordParts;
  const selected = recordParts.filter((part) => part.toLowerCase() === value.toLowerCase());
  if (selected.length !== 1)
    throw new Error(`The data value "${value}" of 4.4 names no single part of 2.4 (${recordParts.join(', ')})`);
  return selected;
}

const dataValues = enumValues('DocumentRecordsData');
if (!dataValues.includes(everyPart))
  throw new Error(`enums.schema.json no longer lists "${everyPart}" for DocumentRecordsData`);

/** A listed value spelled as a part of 2.4 (or all) is judged; one spelled otherwise (formdata) is the erratum's, and observed with the part's own name. */
const judged = (value: string) => value === everyPart || recordParts.includes(value);
const erratumSpellings = dataValues
  .filter((value) => !judged(value))
  .flatMap((value) => [value, ...partsSelectedBy(value)]);

const variants = [
  { name: 'without data', data: undefined },
  ...dataValues.filter(judged).map((value) => ({ name: `data=${value}`, data: value })),
];

for (const variant of variants) {
  test(
    ...cites(
      [
        'DOCR-DATA-VALUES',
        'GEN-JSON-RESPONSE',
        'DOCR-RES-SCHEMA',
        'DOCR-RES-ID',
        'DOCR-DATA-PART',
        'OBS-SUCCESS-STATUS',
      ],
      `document records are fetched ${variant.name}`,
      { on: 'documentRecords' },
    ),
    async ({ api, verdict, recordsToRead }) => {
      const session = await recordsToRead();
      const exchange = await api.call('documentRecords', {
        pathParams: { authenticationId: session.recordsPathId },
        ...(variant.data !== undefined ? { query: { data: variant.data } } : {}),
      });
      expectAccepted(verdict, 'DOCR-DATA-VALUES', exchange);
      verdict.observe('OBS-SUCCESS-STATUS', `${records.id} answered ${exchange.status}`);
      expectJsonBody(verdict, 'GEN-JSON-RESPONSE', exchange);
      expectSchema(verdict, 'DOCR-RES-SCHEMA', recordsSchema, exchange.json, exchange);
      expectRecordsOfCase(verdict, 'DOCR-RES-ID', exchange, session);
      const answer = bodyOf(exchange);
      const absent = partsSelectedBy(variant.data ?? everyPart).filter(
        (part) => answer[part] === undefined || answer[part] === null,
      );
      verdict.observe(
        'DOCR-DATA-PART',
        `${variant.name}: ${absent.length === 0 ? 'the selected parts present' : `missing ${absent.join(', ')}`}`,
      );
    },
  );
}

for (const spelling of erratumSpellings) {
  test(
    ...cites(
      ['DOCR-DATA-PART'],
      `document records fetched with data=${spelling} (ERRATUM-FORMDATA): the answer is observed`,
      { on: 'documentRecords' },
    ),
    async ({ api, verdict, recordsToRead }) => {
      const session = await recordsToRead();
      const exchange = await api.call('documentRecords', {
        pathParams: { authenticationId: session.recordsPathId },
        query: { data: spelling },
        note: `data=${spelling}`,
      });
      const answer = bodyOf(exchange);
      const present = recordParts.filter((part) => answer[part] !== undefined && answer[part] !== null);
      verdict.observe(
        'DOCR-DATA-PART',
        `data=${spelling}: answered ${exchange.status}${accepted(exchange) ? `, parts ${present.join(', ') || '(none)'}` : ''}`,
      );
    },
  );
}

test(
  ...cites(
    ['DOCR-SOURCE-CLIENT-ID', 'GEN-JSON-RESPONSE', 'DOCR-RES-SCHEMA'],
    'document records are fetched with the optional x-source-client-id header',
    { on: 'documentRecords' },
  ),
  // A child organization's id only makes sense from its reseller; the caller naming itself would prove nothing.
  async ({ api, verdict, reseller, recordsToRead }) => {
    const session = await recordsToRead({ asReseller: true });
    const exchange = await api.call('documentRecords', {
      pathParams: { authenticationId: session.recordsPathId },
      set: { 'x-source-client-id': reseller.sourceClientId },
      asReseller: true,
      note: 'with x-source-client-id, as the reseller',
    });
    expectAccepted(verdict, 'DOCR-SOURCE-CLIENT-ID', exchange);
    expectJsonBody(verdict, 'GEN-JSON-RESPONSE', exchange);
    expectSchema(verdict, 'DOCR-RES-SCHEMA', recordsSchema, exchange.json, exchange);
  },
);

test(
  ...cites(['DOCR-UNKNOWN'], 'fetching the records of a case identifier that was never issued is refused'),
  async ({ api, verdict, data }) => {
    const exchange = await api.call('documentRecords', {
      pathParams: { authenticationId: unknownCaseId(data) },
      note: 'a case identifier never issued',
    });
    expectRefused(verdict, 'DOCR-UNKNOWN', exchange);
  },
);

test(
  ...cites(['DOCR-RES-ID'], 'the records of the earlier of two document sessions name that case, not the later one', {
    on: 'documentRecords',
  }),
  // The run's read session is the earlier one (its records are only read); a session of the test's own, started after
  // it and ready, the later one.
  async ({ api, verdict, recordsToRead, documentSession }) => {
    const first = await recordsToRead();
    await documentSession();
    const exchange = await api.call('documentRecords', {
      pathParams: { authenticationId: first.recordsPathId },
      note: 'the earlier of two sessions',
    });
    expectRecordsOfCase(verdict, 'DOCR-RES-ID', exchange, first, 'the earlier case');
  },
);

// Near misses of the identifier the run's records are fetched by (docs/traffic.md): judged by whose records come back.
for (const miss of serviceIdNearMisses.filter((m) => m.binding)) {
  test(
    ...cites(
      ['DOCR-UNKNOWN'],
      `fetching the records of an identifier near a real one does not show that case: ${miss.name}`,
    ),
    async ({ api, verdict, recordsToRead }) => {
      const session = await recordsToRead();
      const exchange = await api.call('documentRecords', {
        pathParams: { authenticationId: miss.derive(session.recordsPathId) as string },
        note: `path id: ${miss.id}`,
      });
      expectNotTheCase(verdict, 'DOCR-UNKNOWN', exchange, session.authenticationId);
    },
  );
}
