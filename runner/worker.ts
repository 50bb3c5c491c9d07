import type { SuiteConfig } from '../kit/config/suite-config.ts';
import type { SendOptions, Sender } from '../kit/http/sender.ts';
import type { Redactor } from '../kit/redact.ts';
import { TokenProvider } from '../kit/tokens.ts';
import type { RunEvents } from '../kit/webhooks/run-events.ts';
import { BrokerClient } from './broker-client.ts';
import { HttpClient } from './http/client.ts';
import { LocalBudget, RateLimitedError } from './http/rate-limit.ts';
import { retryPolicyOf } from './http/retry.ts';
import { testKey, userAgent, withUserAgent } from './http/user-agent.ts';
import { NoAnswerError } from './http/wire.ts';
import { endpointSilent, TokenCache } from './tokens.ts';
import { PreconditionMemo } from './precondition-memo.ts';
import { tokenEndpointKey, type FailedPrecondition, type SharedPreconditions } from '../kit/shared-preconditions.ts';
import { EventsClient } from './webhooks/events-client.ts';

/**
 * What a worker process takes from the run, and the one module of the runner the fixtures import: its HTTP client,
 * the run's tokens, the preconditions its checks share and the run's webhook receiver, each through the broker the
 * global setup started (or, in a run without one, of the worker's own), and what the worker sent, told back to the run
 * when it ends.
 */
export interface WorkerRun {
  tokens: TokenProvider;
  /** The preconditions the run's checks share (kit/shared-preconditions.ts): the run's, or without a broker the worker's. */
  preconditions: SharedPreconditions;
  /** The run's receiver; undefined when WEBHOOK_MODE is off or no broker runs (a worker started alone). */
  events: RunEvents | undefined;
  /**
   * A test's sender: every request carries a User-Agent naming the test (tests/<file> and its titles), and a request
   * still answered 429 when the run's waiting budget is spent goes to `rateLimited`, which ends the test.
   */
  senderFor(
    test: { file: string; titles: readonly string[] },
    rateLimited: (sent: SendOptions, why: string) => never,
    notTried: (failure: FailedPrecondition) => never,
  ): Sender;
  /** Tells the run what this worker sent (the summary counts it). */
  leave(): Promise<void>;
}

export function joinRun(config: SuiteConfig, redactor: Redactor): WorkerRun {
  const broker = BrokerClient.fromEnv();
  const client = new HttpClient(retryPolicyOf(config.http), broker ?? new LocalBudget(config.http.rateLimitBudgetMs));
  const preconditions = broker ?? new PreconditionMemo();
  const tokenUrls = new Set(Object.values(config.services).map((service) => service.tokenUrl));
  return {
    tokens: new TokenProvider(broker ?? new TokenCache(client, redactor, preconditions), redactor),
    preconditions,
    events: config.webhook.mode !== 'off' && broker ? new EventsClient(broker, config.webhook.port) : undefined,
    senderFor(test, rateLimited, notTried) {
      const key = testKey(test.file, test.titles);
      const agent = userAgent(key);
      const marked = (options: SendOptions) => ({ ...options, headers: withUserAgent(options.headers, agent) });
      return {
        // A token endpoint that gave no answer to one request of the run is not waited for again: a later request to
        // it ends its test at once, not tried, with that first failure's evidence (kit/shared-preconditions.ts).
        send: async (options) => {
          const url = options.url.split('?')[0] ?? options.url;
          const endpoint = tokenUrls.has(url) ? tokenEndpointKey(url) : undefined;
          const silent = endpoint && (await preconditions.failure(endpoint));
          if (silent) return notTried(silent);
          return client.send(marked(options)).catch(async (error: unknown) => {
            if (error instanceof RateLimitedError) return rateLimited(options, error.message);
            if (endpoint && error instanceof NoAnswerError)
              await preconditions.fail(
                endpoint,
                endpointSilent(url, `${options.method} ${options.url}`, error, test.titles.join(' › ')),
              );
            throw error;
          });
        },
        sendAtOnce: (requests) => client.sendAtOnce(requests.map(marked)),
      };
    },
    leave: async () => {
      await broker?.report(client.stats);
    },
  };
}
