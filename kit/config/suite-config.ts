import type { OperationId, ServiceName } from '../../catalog/catalog.ts';
import type { LedgerEntry } from '../../schemas/ledger.ts';
import type { FailurePolicy } from '../verdict.ts';
import type { Profile } from '../verdict-marks.ts';
import type { Route } from './route.ts';
import type { Trigger } from './trigger.ts';

// The run's configuration as a check sees it: one typed value, resolved and validated by the runner
// (runner/config/) before any test runs, and handed to every worker as it is.

export type { Profile } from '../verdict-marks.ts';
export type RoutedOperationId = Exclude<OperationId, 'createOrder'>;

export interface ServiceTarget {
  baseUrl: string;
  tokenUrl: string;
  apiKey: string;
  expiredToken?: string;
  /** The variables these values came from, for messages that tell the user what to fix. */
  variables: { baseUrl: string; tokenUrl: string; apiKey: string; expiredToken: string };
}

/** Members that fill, per operation, the object-valued fields whose inner fields the document does not show. */
export type RequestTemplates = Partial<Record<RoutedOperationId, Record<string, unknown>>>;

export interface SuiteConfig {
  embedded: boolean;
  profile: Profile;
  /**
   * Tests at once; a project runs on up to a third of them (identity on half), at least one. CONFORMANCE_WORKERS when
   * set, else 2 until playwright.config.ts chooses from the target's round trip (runner/config/worker-count.ts).
   */
  workers: number;
  /** CONFORMANCE_WORKERS was set: the count is the user's, not measured. */
  workersSet: boolean;
  /** The most requests in flight to the target at once (TARGET_CONCURRENCY), halved run-wide when 429s come. */
  targetConcurrency: number;
  seed: number;
  /** Unique per run and part of every generated identifier, so reruns never collide on a persistent target. */
  runTag: string;
  clientId: string;
  services: Record<ServiceName, ServiceTarget>;
  routes: Record<RoutedOperationId, Route>;
  strategies: { assessment: string; documentVerification: string };
  templates: RequestTemplates;
  reseller?: { apiKey: string; clientId: string; sourceClientId: string; sharedContext: Record<string, unknown> };
  /** Another client of the service with credentials of its own (SECOND_CLIENT_*), for OBS-SECOND-CLIENT. */
  secondClient?: { apiKey: string; clientId: string };
  orders: {
    noEntitlementApiKey?: string;
    /** x-client-id of the client without entitlements; CLIENT_ID when unset. */
    noEntitlementClientId?: string;
    template: Record<string, unknown>;
    templatePath: string;
    idPointer: string;
    fulfillmentPointer: string;
    triggers: Partial<Record<'404' | '500' | '503', Trigger>>;
  };
  webhook: {
    mode: 'active' | 'passive' | 'off';
    /** Why the event checks are not configured when mode is off: the variable to set. */
    offReason?: string;
    host: string;
    port: number;
    publicUrl: string;
    waitMs: number;
    passiveWindowMs: number;
  };
  http: {
    timeoutMs: number;
    retries503: number;
    backoffBaseMs: number;
    backoffMaxMs: number;
    rateLimitBudgetMs: number;
    network: Network;
  };
  /** Rounds of the concurrency checks (0: not configured) and the calls sent at once in each (kit/concurrency.ts). */
  concurrency: { rounds: number; calls: number };
  /** Known failures from CONFORMANCE_LEDGER (default conformance-ledger.json, when it exists). */
  ledger: LedgerEntry[];
  /** How long document records (4.4) may take to appear after a verification started. */
  documentReadyTimeoutMs: number;
  /** How long a read that must show a write of the run is sent again while it shows an earlier state (reads may trail writes). */
  readAfterWriteTimeoutMs: number;
  /** Every configured secret value, so that redaction can remove it from any artifact. */
  secrets: string[];
  /**
   * 'record-only' records a failed MUST as its verdict mark without failing the test: only the proof run sets it, so
   * that a faulty sandbox does not cost a worker restart per failure. Not an environment variable.
   */
  failurePolicy?: FailurePolicy;
}

/** The proxy a target origin is reached through, and the variable it came from (messages name it). */
export interface ProxyRoute {
  /** As configured, credentials included: never shown. */
  url: string;
  variable: string;
  /** scheme://host:port, without credentials: what messages and the evidence show. */
  shown: string;
}

/**
 * How the suite reaches the target: the certificates of TLS_CA_FILE, added to Node's roots (not replacing them), and the
 * proxy of each target origin (HTTPS_PROXY and the curl conventions, decided once by the configuration). An origin
 * without a proxy here, such as the suite's own servers (embedded sandbox, receiver, broker), is reached directly.
 */
export interface Network {
  ca?: { file: string; certificates: string[] };
  proxies: Record<string, ProxyRoute>;
}
