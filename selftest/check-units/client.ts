import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { clientChecks, clientChecksByName } from '../../kit/checks/client/checks.ts';
import type { ClientTarget, ScenarioStep } from '../../kit/checks/client/traffic.ts';
import type { Findings } from '../../kit/findings.ts';
import type { DeliveryAnswer, RecordedExchange } from '../../sandbox/server.ts';
import { clientTraffic } from '../../scripts/client/judge.ts';
import { each, unitOf, type CheckUnit } from './unit.ts';

// The units of the client checks (kit/checks/client/checks.ts). The example reseller client's traffic recorded clean
// is every check's good input; a bad one is its traffic recorded with client faults (faults-a, -b, -c), or the clean
// traffic changed in the part judged, as are the further good inputs: other ways a correct client may send it.
/** A client's traffic as recorded, every secret a stand-in: the target knows the stand-ins and the cases issued. */
interface Recording {
  target: Omit<ClientTarget, 'caseOf' | 'checkToken'> & {
    cases: Record<string, string>;
    tokens: Record<string, Record<'identity' | 'stepup', { ok: boolean; reason?: string }>>;
  };
  scenario: ScenarioStep[];
  exchanges: Array<Omit<RecordedExchange, 'body'> & { body: string }>;
  deliveries: DeliveryAnswer[];
}
type Recorded = Recording['exchanges'][number];
/** A recording by name (faults-a...), or the clean one changed. */
type Input = string | ((recording: Recording) => void);

/** The traffic the client checks judge, classified by the judge as a certification's is. */
function trafficOf(input: Input) {
  const file = new URL(`./recorded/client-${typeof input === 'string' ? input : 'clean'}.json`, import.meta.url);
  const recording = JSON.parse(readFileSync(file, 'utf8')) as Recording;
  if (typeof input === 'function') input(recording);
  const { cases, tokens, ...facts } = recording.target;
  return clientTraffic({
    exchanges: recording.exchanges.map((e) => ({ ...e, body: Buffer.from(e.body, 'utf8') })),
    deliveries: recording.deliveries,
    scenario: recording.scenario,
    target: {
      ...facts,
      caseOf: (id) => (cases[id] === undefined ? undefined : { inquiryId: cases[id] }),
      checkToken: (token, service) => tokens[token]?.[service] ?? { ok: false, reason: 'never issued' },
    },
  });
}

const calls = (r: Recording, path: string) => r.exchanges.filter((e) => e.url.split('?')[0]?.endsWith(path));
const firstCall = (r: Recording, path: string): Recorded =>
  calls(r, path)[0] ?? assert.fail(`the clean recording has no call of ${path}`);
const headerOf = (e: Recorded, name: string) =>
  e.rawHeaders.find((_, i) => i % 2 === 1 && e.rawHeaders[i - 1]?.toLowerCase() === name);
/** A header of a recorded request set (or, with undefined, removed), its name in any case. */
function setHeader(exchange: Recorded, name: string, value: string | undefined): void {
  const raw = exchange.rawHeaders;
  const kept = raw.filter((_, i) => raw[i - (i % 2)]?.toLowerCase() !== name);
  exchange.rawHeaders = value === undefined ? kept : [...kept, name, value];
}
/** The header of the first call of `path` set to that of the first call of `from`. */
const headerFrom = (path: string, from: string, name: string) => (r: Recording) =>
  setHeader(firstCall(r, path), name, headerOf(firstCall(r, from), name));

/** The order request's attempts after the first sent `gaps` ms after the answer before them; the last answered `status`. */
const retriedAfter =
  (gaps: readonly number[], status = 503) =>
  (r: Recording) => {
    const orders = calls(r, '/v2/orders');
    r.exchanges = r.exchanges.filter((e) => !orders.slice(gaps.length + 1).includes(e));
    gaps.forEach((gap, i) => {
      const previous = orders[i] as Recorded;
      const attempt = orders[i + 1] as Recorded;
      attempt.at = (previous.answeredAt ?? previous.at) + gap;
      attempt.answeredAt = attempt.at + 1;
    });
    (orders[gaps.length] as Recorded).status = status;
  };

/** Each client check's bad inputs, then its good ones beside the clean traffic. */
const inputs: Record<keyof typeof clientChecksByName, [bad: Record<string, Input>, good?: Record<string, Input>]> = {
  expectTokenRequestForm: [
    {
      'labelled as JSON': (r) => setHeader(firstCall(r, '/token'), 'content-type', 'application/json'),
      'another scope': (r) => void (firstCall(r, '/token').body = 'grant_type=client_credentials&scope=openid'),
    },
    {
      // RFC 9110 section 8.3.1: a media type is compared without regard to case, parameters allowed.
      'the form media type in another case, with a charset': (r) => {
        for (const e of calls(r, '/token'))
          setHeader(e, 'content-type', 'Application/X-WWW-Form-URLEncoded; charset=UTF-8');
      },
    },
  ],
  observeTokenReuse: [
    {
      'a token per call': (r) => {
        r.exchanges = r.exchanges.flatMap((e) => (e.url.endsWith('/token') ? [e, { ...e }, { ...e }] : [e]));
      },
    },
  ],
  observeTokenPerService: [
    { "the identity service's token on the step-up call": headerFrom('/step-up', '/assessment', 'authorization') },
  ],
  expectIssuedBearer: [
    {
      'CLIENT_FAULT=no-bearer': 'faults-a',
      'a token no token endpoint issued': (r) =>
        setHeader(firstCall(r, '/assessment'), 'authorization', 'Bearer made-up'),
      'a token without the Bearer scheme': (r) => {
        const assessment = firstCall(r, '/assessment');
        setHeader(assessment, 'authorization', headerOf(assessment, 'authorization')?.split(' ')[1]);
      },
    },
    { "the step-up service's token on an identity call": headerFrom('/assessment', '/step-up', 'authorization') },
  ],
  expectClientIdHeader: [{ 'CLIENT_FAULT=no-client-id': 'faults-c' }],
  expectCorrelationIdHeader: [
    { 'an assessment without it': (r) => setHeader(firstCall(r, '/assessment'), 'x-correlation-id', undefined) },
  ],
  expectUniqueCorrelationIds: [
    {
      'CLIENT_FAULT=one-correlation-id: POSTs of different bodies': 'faults-b',
      'CLIENT_FAULT=shared-get-correlation-id: two different GETs, neither with a body': 'faults-c',
    },
    {
      'the same GET sent again': (r) => {
        const fetch = r.exchanges.find((e) => e.method === 'GET' && e.url.includes('/document-verification/'));
        r.exchanges.push({ ...(fetch as Recorded), at: (fetch as Recorded).at + 500 });
      },
      'the same JSON body sent again, its members in another order': (r) => {
        const assessment = firstCall(r, '/assessment');
        const members = Object.entries(JSON.parse(assessment.body) as Record<string, unknown>).reverse();
        r.exchanges.push({ ...assessment, body: JSON.stringify(Object.fromEntries(members), null, 1) });
      },
    },
  ],
  expectJsonBodies: [{ 'CLIENT_FAULT=body-text-plain': 'faults-a' }],
  expectBodySchemas: [{ 'CLIENT_FAULT=decision-lowercase': 'faults-c' }],
  expectKnownCases: [{ 'CLIENT_FAULT=made-up-authentication-id': 'faults-b' }],
  expectChildContext: [
    {
      "CLIENT_FAULT=no-shared-context: a call continuing a child's case without sharedContext": 'faults-b',
      'CLIENT_FAULT=no-source-client-id: a fetch of records without x-source-client-id': 'faults-c',
    },
  ],
  expectOneChildNamed: [
    { 'CLIENT_FAULT=child-id-leak: x-source-client-id and sharedContext naming different children': 'faults-a' },
  ],
  observeSiblingIds: [{ "CLIENT_FAULT=child-id-leak: another child's identifier in a call": 'faults-a' }],
  expectOrderRetries: [
    {
      'CLIENT_FAULT=no-retry: a 503 never sent again': 'faults-b',
      'CLIENT_FAULT=retry-storm: retries with no delay': 'faults-a',
      'a changed body: another request, not a retry': (r) => {
        for (const e of calls(r, '/v2/orders').slice(1))
          e.body = e.body.replace('"merchantOrderId":"', '"merchantOrderId":"x');
      },
    },
    {
      'jittered delays that shrink': retriedAfter([300, 40, 700]),
      'a single quick retry, answered': retriedAfter([3], 200),
    },
  ],
  observeRetryDelays: [{ 'CLIENT_FAULT=retry-storm': 'faults-a' }],
  expectJsonWebhookAnswers: [
    {
      'CLIENT_FAULT=webhook-500: a body that is not JSON': 'faults-a',
      'CLIENT_FAULT=webhook-text': 'faults-c',
      'CLIENT_FAULT=webhook-strict: a delivery with a member part 6 does not list refused': 'faults-b',
      'no answer': (r) => {
        const { kind, sentAt } = r.deliveries[0] as DeliveryAnswer;
        r.deliveries[0] = { kind, sentAt, ms: 30_000, body: '', error: 'no answer within 30000 ms' };
      },
    },
    {
      // Express's res.send({}) labels {} text/html; part 6 shows no status and no time.
      '{} labelled text/html, and {} answered 202 after 12 s': (r) => {
        Object.assign(r.deliveries[0] as object, { contentType: 'text/html; charset=utf-8' });
        Object.assign(r.deliveries[1] as object, { status: 202, ms: 12_000 });
      },
    },
  ],
  observeWebhookAnswers: [{ 'CLIENT_FAULT=webhook-text: answers labelled text/plain': 'faults-c' }],
  expectScenarioPerformed: [{ 'CLIENT_FAULT=one-child: the steps of one child only': 'faults-b' }],
  observeTraffic: [
    {
      'a call of no operation': (r) => {
        firstCall(r, '/assessment').url = '/business/identity-proofing/v1/assessments';
      },
    },
  ],
};

export const clientUnits: Record<string, CheckUnit> = Object.fromEntries(
  Object.entries(inputs).map(([name, [bad, good]]) => {
    const check = clientChecksByName[name as keyof typeof inputs];
    const id = Object.keys(clientChecks).find((key) => clientChecks[key] === check) ?? `no requirement's ${name}`;
    const goods = each({ 'the clean traffic': 'clean', ...good });
    return [name, unitOf(id, goods, each(bad), (f: Findings, i, input: Input) => check(f, i, trafficOf(input)))];
  }),
);
