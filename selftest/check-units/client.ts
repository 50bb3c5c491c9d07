import { clientChecksByName as checks } from '../../kit/checks/client/checks.ts';
import type { ClientCheck, ClientTraffic } from '../../kit/checks/client/traffic.ts';
import { recordedTraffic, setHeader, type ClientRecording } from './recorded.ts';
import { each, unitOf, type ClientUnit } from './unit.ts';
import type { Findings } from '../../kit/findings.ts';

/**
 * The units of the client checks (kit/checks/client/checks.ts, clientChecksByName). The example reseller client's
 * traffic recorded clean is every check's good input; a bad input is its traffic recorded with the client faults that
 * break the rule (faults-a, -b, -c: tools/check-units/record.ts), or the clean traffic changed in the part judged,
 * as are the further good inputs: the other ways a correct client may send what the rule judges.
 */

type Recorded = ClientRecording['exchanges'][number];
const changed = (change: (recording: ClientRecording) => void) => () => recordedTraffic('clean', change);
const faulty = (name: string) => () => recordedTraffic(name);
const calls = (r: ClientRecording, path: string) => r.exchanges.filter((e) => e.url.split('?')[0]?.endsWith(path));
const firstCall = (r: ClientRecording, path: string): Recorded => {
  const found = calls(r, path)[0];
  if (!found) throw new Error(`the clean recording has no call of ${path}`);
  return found;
};
const headerOf = (e: Recorded, name: string) =>
  e.rawHeaders[e.rawHeaders.findIndex((h) => h.toLowerCase() === name) + 1];
const recordsFetches = (r: ClientRecording) =>
  r.exchanges.filter((e) => e.method === 'GET' && e.url.includes('/document-verification/'));

/** The order request's attempts after the first sent `gaps` ms after the answer before them; the last answered `status`. */
function retriedAfter(gaps: readonly number[], status = 503) {
  return changed((r) => {
    const orders = calls(r, '/v2/orders');
    r.exchanges = r.exchanges.filter((e) => !orders.slice(gaps.length + 1).includes(e));
    gaps.forEach((gap, i) => {
      const previous = orders[i] as Recorded;
      const attempt = orders[i + 1] as Recorded;
      attempt.at = (previous.answeredAt ?? previous.at) + gap;
      attempt.answeredAt = attempt.at + 1;
    });
    (orders[gaps.length] as Recorded).status = status;
  });
}

type Traffics = Readonly<Record<string, () => ClientTraffic>>;

/** The check good on the clean traffic and on `good`, bad on each of `bad`, called with the unit's requirement. */
const unit = (id: string, check: ClientCheck, bad: Traffics, good: Traffics = {}): ClientUnit =>
  unitOf(
    id,
    (f: Findings, given: string, traffic: () => ClientTraffic) => check(f, given, traffic()),
    each({ 'the clean traffic': faulty('clean'), ...good }),
    each(bad),
  );

export const clientUnits: Record<string, ClientUnit> = {
  expectTokenRequestForm: unit(
    'CLI-TOKEN-REQUEST',
    checks.expectTokenRequestForm,
    {
      'labelled as JSON': changed((r) => setHeader(firstCall(r, '/token'), 'content-type', 'application/json')),
      'another scope': changed((r) => {
        firstCall(r, '/token').body = 'grant_type=client_credentials&scope=openid';
      }),
    },
    {
      // RFC 9110 section 8.3.1: a media type is compared without regard to case, parameters allowed.
      'the form media type in another case, with a charset': changed((r) => {
        for (const e of calls(r, '/token'))
          setHeader(e, 'content-type', 'Application/X-WWW-Form-URLEncoded; charset=UTF-8');
      }),
    },
  ),
  observeTokenReuse: unit('CLI-TOKEN-REUSE', checks.observeTokenReuse, {
    'a token per call': changed((r) => {
      r.exchanges = r.exchanges.flatMap((e) => (e.url.endsWith('/token') ? [e, { ...e }, { ...e }] : [e]));
    }),
  }),
  observeTokenPerService: unit('CLI-TOKEN-PER-SERVICE', checks.observeTokenPerService, {
    "the identity service's token on the step-up call": changed((r) =>
      setHeader(firstCall(r, '/step-up'), 'authorization', headerOf(firstCall(r, '/assessment'), 'authorization')),
    ),
  }),
  expectIssuedBearer: unit(
    'CLI-BEARER',
    checks.expectIssuedBearer,
    {
      'CLIENT_FAULT=no-bearer': faulty('faults-a'),
      'a token no token endpoint issued': changed((r) =>
        setHeader(firstCall(r, '/assessment'), 'authorization', 'Bearer made-up'),
      ),
      'a token without the Bearer scheme': changed((r) => {
        const assessment = firstCall(r, '/assessment');
        setHeader(assessment, 'authorization', headerOf(assessment, 'authorization')?.split(' ')[1]);
      }),
    },
    {
      "the step-up service's token on an identity call": changed((r) =>
        setHeader(firstCall(r, '/assessment'), 'authorization', headerOf(firstCall(r, '/step-up'), 'authorization')),
      ),
    },
  ),
  expectClientIdHeader: unit('CLI-CLIENT-ID', checks.expectClientIdHeader, {
    'CLIENT_FAULT=no-client-id': faulty('faults-c'),
  }),
  expectCorrelationIdHeader: unit('CLI-CORRELATION-ID', checks.expectCorrelationIdHeader, {
    'an assessment without it': changed((r) => setHeader(firstCall(r, '/assessment'), 'x-correlation-id', undefined)),
  }),
  expectUniqueCorrelationIds: unit(
    'CLI-CORRELATION-UNIQUE',
    checks.expectUniqueCorrelationIds,
    {
      'CLIENT_FAULT=one-correlation-id: POSTs of different bodies': faulty('faults-b'),
      'CLIENT_FAULT=shared-get-correlation-id: two different GETs, neither with a body': faulty('faults-c'),
    },
    {
      'the same GET sent again': changed((r) => {
        const fetch = recordsFetches(r)[0] as Recorded;
        r.exchanges.push({ ...fetch, at: fetch.at + 500 });
      }),
      'the same JSON body sent again, its members in another order': changed((r) => {
        const assessment = firstCall(r, '/assessment');
        const members = Object.entries(JSON.parse(assessment.body) as Record<string, unknown>).reverse();
        r.exchanges.push({ ...assessment, body: JSON.stringify(Object.fromEntries(members), null, 1) });
      }),
    },
  ),
  expectJsonBodies: unit('CLI-JSON-BODY', checks.expectJsonBodies, {
    'CLIENT_FAULT=body-text-plain': faulty('faults-a'),
  }),
  expectBodySchemas: unit('CLI-BODY-SCHEMA', checks.expectBodySchemas, {
    'CLIENT_FAULT=decision-lowercase': faulty('faults-c'),
  }),
  expectKnownCases: unit('CLI-KNOWN-CASE', checks.expectKnownCases, {
    'CLIENT_FAULT=made-up-authentication-id': faulty('faults-b'),
  }),
  expectChildContext: unit('CLI-RESELLER-CONTEXT', checks.expectChildContext, {
    "CLIENT_FAULT=no-shared-context: a call continuing a child's case without sharedContext": faulty('faults-b'),
    'CLIENT_FAULT=no-source-client-id: a fetch of records without x-source-client-id': faulty('faults-c'),
  }),
  expectOneChildNamed: unit('CLI-CHILD-ISOLATION', checks.expectOneChildNamed, {
    'CLIENT_FAULT=child-id-leak: x-source-client-id and sharedContext naming different children': faulty('faults-a'),
  }),
  observeSiblingIds: unit('CLI-SIBLING-ID', checks.observeSiblingIds, {
    "CLIENT_FAULT=child-id-leak: another child's identifier in a call": faulty('faults-a'),
  }),
  expectOrderRetries: unit(
    'CLI-ORDER-RETRY',
    checks.expectOrderRetries,
    {
      'CLIENT_FAULT=no-retry: a 503 never sent again': faulty('faults-b'),
      'CLIENT_FAULT=retry-storm: retries with no delay': faulty('faults-a'),
      'a changed body: another request, not a retry': changed((r) => {
        for (const e of calls(r, '/v2/orders').slice(1))
          e.body = e.body.replace('"merchantOrderId":"', '"merchantOrderId":"x');
      }),
    },
    {
      'jittered delays that shrink': retriedAfter([300, 40, 700]),
      'a single quick retry, answered': retriedAfter([3], 200),
    },
  ),
  observeRetryDelays: unit('CLI-RETRY-DELAYS', checks.observeRetryDelays, {
    'CLIENT_FAULT=retry-storm': faulty('faults-a'),
  }),
  expectJsonWebhookAnswers: unit(
    'CLI-WEBHOOK-ANSWER',
    checks.expectJsonWebhookAnswers,
    {
      'CLIENT_FAULT=webhook-500: a body that is not JSON': faulty('faults-a'),
      'CLIENT_FAULT=webhook-text': faulty('faults-c'),
      'no answer': changed((r) => {
        const { kind, sentAt } = r.deliveries[0] as ClientRecording['deliveries'][number];
        r.deliveries[0] = { kind, sentAt, ms: 30_000, body: '', error: 'no answer within 30000 ms' };
      }),
    },
    {
      // Express's res.send({}) labels {} text/html; part 6 shows no status and no time.
      '{} labelled text/html, and {} answered 202 after 12 s': changed((r) => {
        Object.assign(r.deliveries[0] as object, { contentType: 'text/html; charset=utf-8' });
        Object.assign(r.deliveries[1] as object, { status: 202, ms: 12_000 });
      }),
    },
  ),
  observeWebhookAnswers: unit('CLI-WEBHOOK-STATUS', checks.observeWebhookAnswers, {
    'CLIENT_FAULT=webhook-text: answers labelled text/plain': faulty('faults-c'),
  }),
  expectScenarioPerformed: unit('CLI-SCENARIO', checks.expectScenarioPerformed, {
    'CLIENT_FAULT=one-child: the steps of one child only': faulty('faults-b'),
  }),
  observeTraffic: unit('CLI-TRAFFIC', checks.observeTraffic, {
    'a call of no operation': changed((r) => {
      firstCall(r, '/assessment').url = '/business/identity-proofing/v1/assessments';
    }),
  }),
};
