import { isDeepStrictEqual } from 'node:util';
import type { OperationId } from '../../../catalog/catalog.ts';
import { isObject } from '../../../schemas/json-value.ts';
import type { Findings } from '../../findings.ts';

/**
 * What the client checks judge: every request a client sent to the sandbox, classified (a token request, a call of an
 * operation, anything else), how it answered the sandbox's webhook deliveries, and what the certification knows about
 * the sandbox it talked to. scripts/client/judge.ts classifies the sandbox's recording into it.
 */

/** What the checks read of a request as the sandbox recorded it (its RecordedExchange): when, what, and the status. */
export interface RecordedCall {
  method: string;
  url: string;
  body: Buffer;
  at: number;
  /** When the answer was sent. */
  answeredAt?: number;
  status: number;
}

/** How the client's callback address answered one delivery (the sandbox's DeliveryAnswer). */
export interface WebhookAnswer {
  kind: string;
  ms: number;
  /** undefined when there was no answer (refused, timed out). */
  status?: number;
  contentType?: string;
  body: string;
  error?: string;
}

export interface ClientCall {
  seq: number;
  exchange: RecordedCall;
  kind: 'token' | 'operation' | 'other';
  service?: 'identity' | 'stepup';
  op?: OperationId;
  /** Header names in lower case. */
  headers: Map<string, string>;
  /** Path parameters of the operation's route, e.g. authenticationId of the document records fetch. */
  params: Record<string, string>;
  json?: unknown;
  jsonError?: string;
}

/** What the certification knows about the sandbox the client talked to. */
export interface ClientTarget {
  /** Full URLs as the client was given them. */
  identityBaseUrl: string;
  stepupBaseUrl: string;
  ordersBaseUrl: string;
  identityTokenUrl: string;
  stepupTokenUrl: string;
  /** "METHOD /route" per operation, relative to its service base. */
  routes: Partial<Record<OperationId, string>>;
  apiKeys: string[];
  childClientIds: string[];
  tokenLifetimeSeconds: number;
  caseOf: (authenticationId: string) => { inquiryId: string } | undefined;
  checkToken: (token: string, service: 'identity' | 'stepup') => { ok: boolean; reason?: string };
}

/** An operation the certification scenario expects, e.g. { "operation": "caseUpdate", "with": ["tags"] }. */
export interface ScenarioStep {
  operation: OperationId;
  count?: number;
  /** Body fields the call must carry. */
  with?: string[];
  /** The step is expected for each child organisation the certification gave the client, as a call for that child. */
  eachChild?: boolean;
}

export interface ClientTraffic {
  calls: readonly ClientCall[];
  deliveries: readonly WebhookAnswer[];
  target: ClientTarget;
  scenario?: readonly ScenarioStep[];
}

/**
 * A client check: judges the requirement `id` (given by the table that uses it) over the whole traffic, recording a
 * finding per call it judges; returns whether every one held (an observation always does).
 */
export type ClientCheck = (findings: Findings, id: string, traffic: ClientTraffic) => boolean;

/** Whether every finding held, once each was recorded: the findings are all made before this is asked. */
export const allHeld = (held: readonly boolean[]): boolean => held.every(Boolean);

/** "#3 POST /path (operation)": a call as the evidence names it. */
export const label = (c: ClientCall): string =>
  `#${c.seq} ${c.exchange.method} ${c.exchange.url.split('?')[0]}${c.op ? ` (${c.op})` : ''}`;

export const operationCalls = (traffic: ClientTraffic): ClientCall[] =>
  traffic.calls.filter((c) => c.kind === 'operation');

/** The body of a call as an object, or an empty one. */
export const bodyOf = (call: ClientCall): Record<string, unknown> => (isObject(call.json) ? call.json : {});

/** A retry is the same request sent again: the same method, URL and body (the same JSON value, or the same bytes). */
export function sameRequest(a: ClientCall, b: ClientCall): boolean {
  if (a.exchange.method !== b.exchange.method || a.exchange.url !== b.exchange.url) return false;
  if (a.json !== undefined && b.json !== undefined) return isDeepStrictEqual(a.json, b.json);
  return a.exchange.body.equals(b.exchange.body);
}
