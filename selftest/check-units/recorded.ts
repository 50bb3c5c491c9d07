import { readFileSync } from 'node:fs';
import type { ClientTarget, ClientTraffic, ScenarioStep } from '../../kit/checks/client/traffic.ts';
import { parseJson, type Exchange, type HeaderList } from '../../kit/http/exchange.ts';
import type { DeliveryRecord } from '../../kit/webhooks/run-events.ts';
import type { DeliveryAnswer, RecordedExchange } from '../../sandbox/server.ts';
import { clientTraffic } from '../../scripts/client/judge.ts';

/**
 * The exchanges recorded by tools/check-units/record.ts, read back as the checks take them: a fresh copy on every
 * call, so that a unit may change the one part its check judges.
 */

const read = (file: string): unknown =>
  JSON.parse(readFileSync(new URL(`./recorded/${file}`, import.meta.url), 'utf8')) as unknown;

/** An exchange as a test attaches it (kit/http/exchange.ts, redactExchange). */
interface AttachedExchange {
  label: string;
  note?: string;
  request: { method: string; url: string; headers: HeaderList; body?: string };
  response: { status: number; headers: HeaderList; body: string };
  attempts: Exchange['attempts'];
  durationMs: number;
}

/** A delivery as a test attaches it: its arrival as an ISO time. */
type AttachedDelivery = Omit<DeliveryRecord, 'receivedAt' | 'endedAt' | 'bodyPreview'> & { receivedAt: string };

interface ServerRecording {
  exchanges: Record<string, AttachedExchange>;
  deliveries: Record<string, AttachedDelivery[]>;
}

let server: ServerRecording | undefined;
const serverRecording = (): ServerRecording => (server ??= read('server.json') as ServerRecording);

/** The recorded exchange of that name (tools/check-units/record.ts, `picks`). */
export function recordedExchange(key: string): Exchange {
  const found = serverRecording().exchanges[key];
  if (!found) throw new Error(`no recorded exchange ${key} in selftest/check-units/recorded/server.json`);
  const { request, response } = structuredClone(found);
  const text = response.body;
  return {
    label: found.label,
    ...(found.note ? { note: found.note } : {}),
    request: { method: request.method, url: request.url, headers: request.headers, body: request.body },
    status: response.status,
    headers: Object.fromEntries(response.headers.map(([name, value]) => [name.toLowerCase(), value])),
    rawHeaders: response.headers,
    text,
    ...parseJson(text),
    attempts: found.attempts,
    durationMs: found.durationMs,
  } as Exchange;
}

/** The same exchange answered otherwise: another status, headers or JSON body (its text written from it). */
export function answeredWith(
  exchange: Exchange,
  change: { status?: number; headers?: Record<string, string | undefined>; json?: unknown },
): Exchange {
  const headers = { ...exchange.headers, ...change.headers };
  for (const [name, value] of Object.entries(headers)) if (value === undefined) delete headers[name];
  const text = 'json' in change ? (JSON.stringify(change.json) ?? '') : exchange.text;
  return {
    ...exchange,
    status: change.status ?? exchange.status,
    headers: headers as Record<string, string>,
    rawHeaders: Object.entries(headers) as HeaderList,
    text,
    ...parseJson(text),
  };
}

/** The recorded deliveries of that name, as the run's receiver records them. */
export function recordedDeliveries(key: string): DeliveryRecord[] {
  const found = serverRecording().deliveries[key];
  if (!found) throw new Error(`no recorded deliveries ${key} in selftest/check-units/recorded/server.json`);
  return structuredClone(found).map((d) => {
    const at = Date.parse(d.receivedAt);
    return { ...d, receivedAt: at, endedAt: at, bodyPreview: JSON.stringify(d.json) ?? '' };
  });
}

/** A client's traffic as recorded, every secret a stand-in: the target knows the stand-ins and the cases issued. */
export interface ClientRecording {
  target: Omit<ClientTarget, 'caseOf' | 'checkToken'> & {
    cases: Record<string, string>;
    tokens: Record<string, Record<'identity' | 'stepup', { ok: boolean; reason?: string }>>;
  };
  scenario: ScenarioStep[];
  exchanges: Array<Omit<RecordedExchange, 'body'> & { body: string }>;
  deliveries: DeliveryAnswer[];
}

/** The client traffic of a recording (clean, faults-a, ...), to be changed before it is judged. */
export const clientRecording = (name: string): ClientRecording => read(`client-${name}.json`) as ClientRecording;

/** The traffic the client checks judge, classified by the judge as a certification's is. */
export function trafficOf(recording: ClientRecording): ClientTraffic {
  const { cases, tokens, ...facts } = recording.target;
  const target: ClientTarget = {
    ...facts,
    caseOf: (id) => (cases[id] === undefined ? undefined : { inquiryId: cases[id] }),
    checkToken: (token, service) => tokens[token]?.[service] ?? { ok: false, reason: 'never issued' },
  };
  return clientTraffic({
    exchanges: recording.exchanges.map((e) => ({ ...e, body: Buffer.from(e.body, 'utf8') })),
    deliveries: recording.deliveries,
    target,
    scenario: recording.scenario,
  });
}

/** The traffic of a recording as it is, or changed first in the one part a check judges. */
export const recordedTraffic = (name: string, change?: (recording: ClientRecording) => void): ClientTraffic => {
  const recording = clientRecording(name);
  change?.(recording);
  return trafficOf(recording);
};

/** A header of a recorded request set (or, with undefined, removed), its name in any case. */
export function setHeader(exchange: { rawHeaders: string[] }, name: string, value: string | undefined): void {
  const kept: string[] = [];
  for (let i = 0; i + 1 < exchange.rawHeaders.length; i += 2)
    if (exchange.rawHeaders[i]?.toLowerCase() !== name)
      kept.push(exchange.rawHeaders[i] as string, exchange.rawHeaders[i + 1] as string);
  exchange.rawHeaders = value === undefined ? kept : [...kept, name, value];
}
