import { operation, requirement } from '../../catalog/catalog.ts';
import type { CallOptions } from '../../kit/api.ts';
import { expectAccepted, expectJsonBody, expectRefused, expectSchema } from '../../kit/checks/responses.ts';
import { cites, test } from '../../fixtures/test.ts';
import { requireSuccess } from '../../fixtures/preconditions.ts';
import type { OperationId } from '../../catalog/catalog.ts';

/** The identity operations whose mandatory headers these checks cover (4.2, 4.3, 4.4, 4.6); the step-up's are in tests/stepup. */
type HeaderCheckedOperation = Extract<
  OperationId,
  'assessment' | 'documentVerification' | 'documentRecords' | 'caseUpdate'
>;

interface HeaderDefect {
  name: string;
  change: Pick<CallOptions, 'omit' | 'set' | 'note'>;
}

const missing = (header: string): HeaderDefect => ({ name: `without ${header}`, change: { omit: [header] } });
const mediaType = (type: string): HeaderDefect => ({
  name: `Content-Type ${type}`,
  change: { set: { 'content-type': type }, note: `Content-Type: ${type}, JSON body` },
});

/** Each requirement on a mandatory header, with the defects that break it; the operations it applies to come from the catalog. */
const headerRules: Array<{ id: string; defects: HeaderDefect[] }> = [
  { id: 'HDR-CLIENT-ID', defects: [missing('x-client-id')] },
  { id: 'HDR-CORRELATION-ID', defects: [missing('x-correlation-id')] },
  {
    id: 'HDR-CONTENT-TYPE',
    defects: [missing('content-type'), mediaType('text/plain'), mediaType('application/x-www-form-urlencoded')],
  },
  // 4.4 has no body yet lists Content-Type (ERRATUM-GET-CONTENT-TYPE): the answer is observed (INFO).
  { id: 'HDR-GET-CONTENT-TYPE', defects: [missing('content-type')] },
];

/** What a fully valid request of each operation is checked against; the step-up operation is covered in tests/stepup. */
const covered: Record<HeaderCheckedOperation, { accepted?: string; schema: string }> = {
  assessment: { accepted: 'ASM-ACCEPTED', schema: 'ASM-RES-SCHEMA' },
  documentVerification: { accepted: 'DOCV-ACCEPTED', schema: 'DOCV-RES-SCHEMA' },
  documentRecords: { accepted: 'DOCR-DATA-VALUES', schema: 'DOCR-RES-SCHEMA' },
  // Whether an update is accepted belongs to the case-update checks; here it is what the header checks stand on.
  caseUpdate: { schema: 'CU-RES-SCHEMA' },
};

const isCovered = (id: string): id is HeaderCheckedOperation => id in covered;

for (const rule of headerRules) {
  for (const opId of (requirement(rule.id).operations ?? []).filter(isCovered)) {
    const op = operation(opId);
    for (const defect of rule.defects) {
      const observed = requirement(rule.id).level === 'INFO';
      const title = observed
        ? `${op.id} (${op.part}) ${defect.name}: the answer is observed`
        : `${op.id} (${op.part}) ${defect.name} is refused, the same request with it accepted`;
      test(...cites([rule.id], title, { on: opId }), async ({ api, verdict, validRequest }) => {
        const request = await validRequest(opId, { control: !observed });
        const exchange = await api.call(opId, { ...request, ...defect.change });
        if (observed) verdict.observe(rule.id, `${op.id} ${defect.name}: answered ${exchange.status}`);
        else expectRefused(verdict, rule.id, exchange);
      });
    }
  }
}

// The control of the refusals above: the same requests with every mandatory header are served.
for (const [opId, ids] of Object.entries(covered) as Array<
  [HeaderCheckedOperation, (typeof covered)[HeaderCheckedOperation]]
>) {
  const op = operation(opId);
  const cited = [...(ids.accepted ? [ids.accepted] : []), 'GEN-JSON-RESPONSE', ids.schema, 'OBS-SUCCESS-STATUS'];
  test(
    ...cites(cited, `${op.id} (${op.part}) with every mandatory header and a valid request is served as JSON`, {
      on: opId,
    }),
    async ({ api, verdict, config, validRequest }) => {
      const request = await validRequest(opId, { control: false });
      const exchange = await api.call(opId, request);
      if (ids.accepted) expectAccepted(verdict, ids.accepted, exchange);
      else requireSuccess({ verdict, config }, exchange, `a valid ${op.id} request is accepted`);
      verdict.observe('OBS-SUCCESS-STATUS', `${op.id} answered ${exchange.status}`);
      expectJsonBody(verdict, 'GEN-JSON-RESPONSE', exchange);
      expectSchema(verdict, ids.schema, op.responseSchema as string, exchange.json, exchange);
    },
  );
}
