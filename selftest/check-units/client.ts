import { clientChecksByName as checks } from '../../kit/checks/client/checks.ts';
import type { ClientCheck, ClientTraffic } from '../../kit/checks/client/traffic.ts';
import { recordedTraffic, setHeader, type ClientRecording } from './recorded.ts';
import type { ClientUnit } from './unit.ts';

/**
 * The units of the client checks (kit/checks/client/checks.ts, clientChecksByName): the example reseller client's
 * traffic recorded clean is every check's good input; a bad input is its traffic recorded with the client fault that
 * breaks the rule (faults-a, -b, -c: tools/check-units/record.ts), or the clean traffic changed in the part judged.
 */

const clean = () => recordedTraffic('clean');
const changed = (change: (recording: ClientRecording) => void) => recordedTraffic('clean', change);
const tokenRequests = (r: ClientRecording) => r.exchanges.filter((e) => e.url.endsWith('/token'));
const firstCall = (r: ClientRecording, path: string) => {
  const found = r.exchanges.find((e) => e.url.endsWith(path));
  if (!found) throw new Error(`the clean recording has no call of ${path}`);
  return found;
};

/** Good on the clean traffic, bad on `bad`: the check called with the unit's requirement. */
const unit = (id: string, check: ClientCheck, bad: () => ClientTraffic): ClientUnit => ({
  id,
  good: (findings, given) => check(findings, given, clean()),
  bad: (findings, given) => check(findings, given, bad()),
});

export const clientUnits: Record<string, ClientUnit> = {
  expectTokenRequestForm: unit('CLI-TOKEN-REQUEST', checks.expectTokenRequestForm, () =>
    changed((r) => {
      const first = tokenRequests(r)[0];
      if (first) first.body = 'grant_type=client_credentials&scope=openid';
    }),
  ),
  observeTokenReuse: unit('CLI-TOKEN-REUSE', checks.observeTokenReuse, () =>
    changed((r) => {
      r.exchanges = r.exchanges.flatMap((e) => (e.url.endsWith('/token') ? [e, { ...e }, { ...e }] : [e]));
    }),
  ),
  observeTokenPerService: unit('CLI-TOKEN-PER-SERVICE', checks.observeTokenPerService, () =>
    changed((r) => {
      const identityBearer = firstCall(r, '/assessment').rawHeaders;
      const token = identityBearer[identityBearer.findIndex((h) => h.toLowerCase() === 'authorization') + 1];
      setHeader(firstCall(r, '/step-up'), 'authorization', token);
    }),
  ),
  expectIssuedBearer: unit('CLI-BEARER', checks.expectIssuedBearer, () => recordedTraffic('faults-a')),
  expectClientIdHeader: unit('CLI-CLIENT-ID', checks.expectClientIdHeader, () => recordedTraffic('faults-c')),
  expectCorrelationIdHeader: unit('CLI-CORRELATION-ID', checks.expectCorrelationIdHeader, () =>
    changed((r) => setHeader(firstCall(r, '/assessment'), 'x-correlation-id', undefined)),
  ),
  expectUniqueCorrelationIds: unit('CLI-CORRELATION-UNIQUE', checks.expectUniqueCorrelationIds, () =>
    recordedTraffic('faults-b'),
  ),
  expectJsonBodies: unit('CLI-JSON-BODY', checks.expectJsonBodies, () => recordedTraffic('faults-a')),
  expectBodySchemas: unit('CLI-BODY-SCHEMA', checks.expectBodySchemas, () => recordedTraffic('faults-c')),
  expectKnownCases: unit('CLI-KNOWN-CASE', checks.expectKnownCases, () => recordedTraffic('faults-b')),
  expectChildContext: unit('CLI-RESELLER-CONTEXT', checks.expectChildContext, () => recordedTraffic('faults-b')),
  expectOneChildNamed: unit('CLI-CHILD-ISOLATION', checks.expectOneChildNamed, () => recordedTraffic('faults-a')),
  observeSiblingIds: unit('CLI-SIBLING-ID', checks.observeSiblingIds, () => recordedTraffic('faults-a')),
  expectOrderRetries: unit('CLI-ORDER-RETRY', checks.expectOrderRetries, () => recordedTraffic('faults-a')),
  observeRetryDelays: unit('CLI-RETRY-DELAYS', checks.observeRetryDelays, () => recordedTraffic('faults-a')),
  expectJsonWebhookAnswers: unit('CLI-WEBHOOK-ANSWER', checks.expectJsonWebhookAnswers, () =>
    recordedTraffic('faults-a'),
  ),
  observeWebhookAnswers: unit('CLI-WEBHOOK-STATUS', checks.observeWebhookAnswers, () => recordedTraffic('faults-c')),
  expectScenarioPerformed: unit('CLI-SCENARIO', checks.expectScenarioPerformed, () => recordedTraffic('faults-b')),
  observeTraffic: unit('CLI-TRAFFIC', checks.observeTraffic, () =>
    changed((r) => {
      firstCall(r, '/assessment').url = '/business/identity-proofing/v1/assessments';
    }),
  ),
};
