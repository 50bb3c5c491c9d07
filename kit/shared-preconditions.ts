import type { SuiteConfig } from './config/suite-config.ts';
import type { FailedPrecondition } from './verdict.ts';

export type { FailedPrecondition };

/**
 * The preconditions the checks of a run share, each known by a key, so that one that failed is waited for once: every
 * later check standing on the same key is blocked at once with the first failure's evidence, marked "not tried"
 * (Verdict.notTried). The run keeps them in its broker (runner/precondition-memo.ts), so that every worker sees them:
 * - the run's token of a credential (a token endpoint and an API key: the main client, the reseller, the client without
 *   entitlements): runner/tokens.ts keeps it with the token itself;
 * - the run's document session whose records checks only read, one per caller (recordsToReadKey);
 * - the first delivery of the run's webhook receiver (firstDeliveryKey);
 * - a token endpoint that gave no answer at all (tokenEndpointKey): the run's token of every credential it serves, and
 *   the token checks' own requests to it, are not waited for again.
 * A key names one precondition exactly: the records of another inquiry, a token of another credential, another
 * receiver are other keys, and a check that needs one of them tries it itself.
 */

/**
 * What a claim of a key finds: the precondition met (its value), failed, or nobody's yet: then the claimer has a lease
 * to establish it (and settles or releases it), with the head start someone offered, if any.
 */
export type Claim<T> =
  | { state: 'met'; value: T }
  /** known: the failure was there when the claim was made (the claimer waited for nothing: not tried). */
  | { state: 'failed'; failure: FailedPrecondition; known: boolean }
  | { state: 'yours'; lease: string; headStart?: T };

/** The run's preconditions as a worker reaches them: through the run's broker, or a memo of the worker's own. */
export interface SharedPreconditions {
  /**
   * The key's value or failure; else a lease to establish it, held at most `leaseMs`. While another holds the key's
   * lease, waits until it is settled, released or runs out.
   */
  claim<T>(key: string, leaseMs: number): Promise<Claim<T>>;
  /** Ends a lease: the precondition met with `value`, or failed. */
  settle(key: string, lease: string, outcome: { value: unknown } | { failure: FailedPrecondition }): Promise<void>;
  /** Ends a lease without an outcome (the claimer could not tell): the next claim gets the key. */
  release(key: string, lease: string): Promise<void>;
  /** A head start for whoever claims the key first (a session already started): ignored once the key is claimed. */
  offer(key: string, headStart: unknown): Promise<void>;
  /** The key's failure, if one was recorded. */
  failure(key: string): Promise<FailedPrecondition | undefined>;
  /** Records the key's failure unless one is recorded already. */
  fail(key: string, failure: FailedPrecondition): Promise<void>;
}

/** Who reads the records of a document session: the main client, or the reseller for its child organisation. */
export type RecordsCaller = 'client' | 'reseller';

/** The run's document session whose records checks only read, of one caller, on one target. */
export const recordsToReadKey = (config: SuiteConfig, caller: RecordsCaller): string =>
  `records to read: ${config.services.identity.baseUrl} as ${caller === 'reseller' ? `reseller ${config.reseller?.clientId ?? ''}` : `client ${config.clientId}`}`;

/** A token endpoint, once a request to it got no answer (none within HTTP_TIMEOUT_MS, or no connection). */
export const tokenEndpointKey = (tokenUrl: string): string => `token endpoint answers: ${tokenUrl}`;

/** The first delivery of the webhook receiver on WEBHOOK_LISTEN. */
export const firstDeliveryKey = (config: SuiteConfig): string =>
  `first delivery: ${config.webhook.host}:${config.webhook.port}`;
