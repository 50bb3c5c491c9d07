import type { IncomingHttpHeaders } from 'node:http';
import type { SandboxLayout } from './layout.ts';

/** The flavors of the sandbox (sandbox/flavors/): each a correct implementation making the open choices its own way. */
export type Flavor =
  | 'reference'
  | 'alternative'
  | 'gateway'
  | 'rate-limited'
  | 'detached'
  | 'lenient'
  | 'proto3'
  | 'document-step-up'
  | 'far'
  | 'normalising'
  | 'case-insensitive-ids'
  | 'trailing';

export interface SandboxOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  flavor?: Flavor;
  /** Fault ids of sandbox/faults.ts; an unknown id makes startSandbox throw. */
  faults?: string[];
  /** Where the part-6 events are POSTed; without it nothing is delivered. */
  webhookUrl?: string;
  /** HMAC secret for tokens. */
  tokenSecret: string;
  /** Default: the flavor's (sandbox/flavors/). */
  tokenLifetimeSeconds?: number;
  /** Default 25. */
  webhookDelayMs?: number;
  /** Where the sandbox's few warnings go (an unreachable webhook receiver, a server error). Default: console.warn. */
  warn?: (line: string) => void;
  /** false: a failed webhook delivery is not reported (the embedded sandbox, whose deliveries the suite judges). Default true. */
  webhookWarnings?: boolean;
  /** Called with every request as received, once its body is read (the bench replays them). */
  onRequest?: (request: ReceivedRequest) => void;
  /** Called with every access token issued. */
  onTokenIssued?: (accessToken: string) => void;
  /** A file every access token issued is appended to, one a line (SANDBOX_ISSUED_TOKENS_FILE: self-tests search the reports for them). */
  issuedTokensFile?: string;
  /** API keys of the form base64("id:secret") accepted as extra clients with the main client's entitlements (SANDBOX_EXTRA_API_KEYS). */
  extraApiKeys?: readonly string[];
  /** Share of answers (0 to 1) that are a part-7 style 503 before any processing: a flaky target. Default 0. */
  flaky503Rate?: number;
  /** Which requests may be flaky: all (default) or only the order endpoint's (client certification's --inject-503). */
  flaky503Scope?: 'all' | 'orders';
  /** Called with the customer's answer to each webhook delivery (client certification judges it). */
  onDelivery?: (answer: DeliveryAnswer) => void;
  /** Client certification: each flow's last event is delivered again, and once more with an unknown member. */
  webhookRobustness?: boolean;
  /** How long a webhook delivery waits for an answer. Default 5 000 ms. */
  webhookTimeoutMs?: number;
  /** Called with every request and the status it was answered with, flaky 503s included (client certification). */
  onExchange?: (exchange: RecordedExchange) => void;
  /** How long a request may take to arrive whole before it is answered 408 (slow senders). Default 10 000 ms. */
  requestTimeoutMs?: number;
  /** The rate-limited flavor's limits (sandbox/flavors/rate-limited.ts). */
  rateLimits?: RateLimits;
  /** How far away the far flavor is (sandbox/flavors/far.ts). */
  far?: FarSettings;
  /** The trailing flavor's longest read lag (sandbox/flavors/trailing.ts, SANDBOX_READ_LAG_MS). Default 1 000 ms. */
  readLagMs?: number;
  /** Every answer waits this long before it is worked out and sent: a slow target (npm run bench). Default 0. */
  latencyMs?: number;
  /**
   * The faults of one request instead of the sandbox's own, decided from its headers (undefined: the sandbox's own).
   * The proof run gives each test its fault on one shared sandbox; webhooks the request causes carry them too.
   */
  faultsOf?: (headers: IncomingHttpHeaders) => readonly string[] | undefined;
  /**
   * A second core of the flavor behind the same address, with faults, cases, tokens and a webhook sender of its own:
   * it answers the requests `takes` picks by their headers, the first core every other. The proof run gives the tests of
   * a webhook fault a core of their own beside a round's, so that the events its receiver gets are theirs alone. Only
   * the flavors that are a core (sandbox/core.ts) have it.
   */
  beside?: SecondCore;
}

export interface SecondCore {
  takes: (headers: IncomingHttpHeaders) => boolean;
  faults: readonly string[];
  /** Where its part-6 events are POSTed; without it nothing is delivered. */
  webhookUrl?: string;
}

/** How much the rate-limited flavor lets through before it answers 429 with Retry-After. */
export interface RateLimits {
  /** Token requests per client (by its Basic credentials) in one window. */
  tokenRequests: number;
  tokenWindowMs: number;
  /** Operations: a token bucket per client, this many at once, refilled at this many per second. */
  burst: number;
  perSecond: number;
  /** Also answer 429, without Retry-After, to each client's first request of each kind (tokens, operations, orders) and every Nth after it. */
  everyNth?: number;
}

/** The far flavor: a correct target on the other side of a network, with a delivery queue before its webhooks. */
export interface FarSettings {
  /** Every answer waits this long before the request is relayed to the service. */
  latencyMs: number;
  /** Each event is delivered after a delay drawn from this range, so that events of different flows cross. */
  eventDelayMs: { min: number; max: number };
  /** Every Nth event (the 1st, the N+1th, ...) is delivered a second time, a little later, with the same body; 0: never. */
  redeliverEvery: number;
  /** The seed of the draws: the same seed, the same delays in the same order of events. */
  seed: string;
  /** After a document verification, its records (4.4) are answered as not there yet (404) for this long. */
  recordsDelayMs: number;
  /** A certificate and its key (PEM): served over HTTPS. Unset: plain HTTP. */
  tls?: { key: string; cert: string };
}

export interface ReceivedRequest {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

/** One request a client sent, as it arrived, and the status it got. */
export interface RecordedExchange {
  at: number;
  /** When the answer was sent. */
  answeredAt?: number;
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
  status: number;
}

/** How the customer's callback address answered one delivery. */
export interface DeliveryAnswer {
  kind: string;
  sentAt: number;
  ms: number;
  /** undefined when there was no answer (refused, timed out). */
  status?: number;
  contentType?: string;
  body: string;
  error?: string;
}

export interface RunningSandbox {
  /** http://host:port */
  url: string;
  flavor: Flavor;
  layout: SandboxLayout;
  faults: readonly string[];
  /** How long the tokens it issues live (expires_in). */
  tokenLifetimeSeconds: number;
  close(): Promise<void>;
  /** Webhook deliveries the receiver answered. */
  readonly deliveries: number;
  /** HTTP requests received. */
  readonly requests: number;
  /** Settles once every webhook queued so far was delivered or given up. */
  webhooksIdle(): Promise<void>;
  /** The case an authenticationId names, if this sandbox issued it (client certification). */
  caseOf?(authenticationId: string): { inquiryId: string } | undefined;
  /** Whether an access token is one this sandbox issued for the service and has not expired. */
  checkToken?(token: string, service: 'identity' | 'stepup'): { ok: boolean; reason?: string };
  /** The rate-limited flavor: how many requests it answered 429, by kind. */
  readonly limited?: RateLimitedCounts;
  /** The far flavor: what its delivery queue did with each event, in the order they were queued. */
  readonly queued?: readonly QueuedEvent[];
}

/** One event in the far flavor's delivery queue. */
export interface QueuedEvent {
  /** Its place in the queue, from 1. */
  seq: number;
  kind: string;
  /** When the service handed it to the queue, and the delay drawn for it (ms). */
  queuedAt: number;
  delayMs: number;
  /** When each delivery of it was answered by the receiver (two for a redelivered event). */
  deliveredAt: number[];
  redelivered: boolean;
}

export interface RateLimitedCounts {
  tokens: number;
  operations: number;
  orders: number;
}
