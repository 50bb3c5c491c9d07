import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodyRead } from './body.ts';
import type { CaseStore } from './cases.ts';
import type { FaultSet } from './faults.ts';
import type { CoreBehaviour } from './flavors/behaviour.ts';
import type { SandboxLayout } from './layout.ts';
import type { TokenIssuer } from './tokens.ts';
import type { WebhookSender } from './webhooks.ts';

/** What every handler shares: how the running sandbox behaves (its flavor's choices), its faults and state. */
export interface SandboxContext {
  behaviour: CoreBehaviour;
  layout: SandboxLayout;
  faults: FaultSet;
  tokens: TokenIssuer;
  cases: CaseStore;
  webhooks: WebhookSender;
  /** merchantOrderId values already placed (part 7, 409 row). */
  placedOrders: Set<string>;
  /** Requests whose handling ended without an answer (held open: token-never-answers); /__sandbox/health shows it. */
  unanswered: number;
  /** http://host:port, known once the server listens. */
  origin: string;
}

/** One request as a handler sees it: the body is already read. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  path: string;
  query: URLSearchParams;
  params: Record<string, string>;
  body: BodyRead;
}

export type Handler = (ctx: SandboxContext, ex: Exchange) => void | Promise<void>;

/** The value of a header sent once, or the first of several; undefined when absent. */
export function header(ex: Exchange, name: string): string | undefined {
  const value = ex.req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The value of a header looked up by its exact name in the raw header list, as a server that never folds the case of
 * field names reads it (the fault header-names-case-sensitive); undefined when no field has exactly that name.
 */
export function exactHeader(ex: Exchange, name: string): string | undefined {
  const raw = ex.req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i] === name) return raw[i + 1];
  return undefined;
}
