import { randomBytes } from 'node:crypto';
import { type OperationId } from '../../catalog/catalog.ts';
import { clientRequirements } from '../../catalog/client-catalog.ts';
import { freePort } from '../../runner/http/free-port.ts';
import { Redactor } from '../../kit/redact.ts';
import { runVerdict, type RunVerdict } from '../../reporters/run-verdict.ts';
import { verdictsFor, type RequirementVerdict, type TestRecord } from '../../reporters/verdicts.ts';
import { resellerClient } from '../../sandbox/credentials.ts';
import { flavorModule } from '../../sandbox/flavors/index.ts';
import { operationRouteText } from '../../sandbox/layout.ts';
import { startSandbox, type DeliveryAnswer, type Flavor, type RecordedExchange } from '../../sandbox/server.ts';
import { sandboxTargetEnv } from '../../sandbox/target-env.ts';
import { judgeClient, type ClientTarget, type ScenarioStep } from './judge.ts';

/** How long the certification waits for each webhook answer: its procedure's limit, not a deadline of the document. */
export const webhookAnswerWaitMs = 30_000;

export interface CertificationOptions {
  flavor: Flavor;
  /** Share of order calls answered 503 (0 leaves CLI-ORDER-RETRY not configured). */
  inject503: number;
  /** false: no part-6 event is delivered (the webhook rows are not configured). */
  webhooks: boolean;
  /** The client's webhook address; default a free local port given to the client as WEBHOOK_PORT. */
  webhookTarget?: string;
  scenario?: readonly ScenarioStep[];
  onTokenIssued?: (token: string) => void;
}

export interface CertificationOutcome {
  records: TestRecord[];
  verdicts: RequirementVerdict[];
  /** The certify profile's verdict (reporters/run-verdict.ts): words, exit code, reasons. */
  run: RunVerdict;
  requests: number;
  deliveries: number;
  /** What was judged: every request the client sent and every answer to a delivery, unredacted, and the target. */
  traffic: { exchanges: readonly RecordedExchange[]; deliveries: readonly DeliveryAnswer[]; target: ClientTarget };
}

export interface Certification {
  /** What the client is given: the sandbox's URLs, routes and credentials, its two child organisations, WEBHOOK_PORT. */
  env: Record<string, string>;
  sandboxUrl: string;
  webhookTarget?: string;
  /** Masks the run's credentials (API keys, the token secret) in whatever is written about it. */
  redactor: Redactor;
  /** Settles once every delivery queued so far was answered or given up (a client in this process closes its receiver after). */
  deliveriesIdle(): Promise<void>;
  /** Waits for the deliveries queued so far, stops the sandbox and judges what the client sent (certify profile). */
  finish(): Promise<CertificationOutcome>;
}

/**
 * One certification of a client: a sandbox that records every request (order calls answered 503 as asked, the part-6
 * events of the client's flows delivered to its webhook address), two child organisations with fresh identifiers, and
 * the judgement of the traffic once the client is done. npm run certify-client runs it around a command; the
 * self-tests run it around a client in their own process.
 */
export async function openCertification(options: CertificationOptions): Promise<Certification> {
  const { flavor } = options;
  const exchanges: RecordedExchange[] = [];
  const deliveries: DeliveryAnswer[] = [];
  const tokenSecret = randomBytes(24).toString('hex');
  const webhookPort = options.webhooks && !options.webhookTarget ? await freePort() : undefined;
  const webhookTarget = options.webhooks ? (options.webhookTarget ?? `http://127.0.0.1:${webhookPort}/`) : undefined;
  const sandbox = await startSandbox({
    flavor,
    tokenSecret,
    flaky503Rate: options.inject503,
    flaky503Scope: 'orders',
    onExchange: (exchange) => exchanges.push(exchange),
    onDelivery: (answer) => deliveries.push(answer),
    webhookRobustness: true,
    webhookTimeoutMs: webhookAnswerWaitMs,
    ...(options.onTokenIssued ? { onTokenIssued: options.onTokenIssued } : {}),
    ...(webhookTarget ? { webhookUrl: webhookTarget } : {}),
    warn: () => undefined,
  });
  const sandboxEnv = sandboxTargetEnv({ url: sandbox.url, flavor, tokenSecret });
  // Two child organisations with fresh identifiers for every run, each with its own sharedContext.
  const runTag = randomBytes(3).toString('hex');
  const children = ['a', 'b'].map((suffix) => `child-${runTag}-${suffix}`);
  const sharedContexts = Object.fromEntries(
    children.map((child) => [child, { resellerId: resellerClient.clientId, childOrganizationId: child }]),
  );
  const env: Record<string, string> = {
    ...sandboxEnv,
    RESELLER_CHILD_CLIENT_IDS: children.join(','),
    RESELLER_SOURCE_CLIENT_ID: children[0] as string,
    RESELLER_SHARED_CONTEXT: JSON.stringify(sharedContexts[children[0] as string]),
    RESELLER_CHILD_SHARED_CONTEXTS: JSON.stringify(sharedContexts),
    ...(webhookPort ? { WEBHOOK_PORT: String(webhookPort) } : {}),
  };
  const target: ClientTarget = {
    identityBaseUrl: env['IDENTITY_BASE_URL'] ?? '',
    stepupBaseUrl: env['STEPUP_BASE_URL'] ?? '',
    ordersBaseUrl: env['ORDERS_BASE_URL'] ?? '',
    identityTokenUrl: env['IDENTITY_TOKEN_URL'] ?? '',
    stepupTokenUrl: env['STEPUP_TOKEN_URL'] ?? '',
    routes: Object.fromEntries(
      (
        ['assessment', 'documentVerification', 'documentRecords', 'fetchAssessment', 'caseUpdate', 'stepUp'] as const
      ).map((id) => [id, operationRouteText(flavorModule(flavor).layout, id)]),
    ) as Partial<Record<OperationId, string>>,
    apiKeys: [env['API_KEY'] ?? '', env['RESELLER_API_KEY'] ?? ''],
    childClientIds: children,
    tokenLifetimeSeconds: sandbox.tokenLifetimeSeconds,
    caseOf: (id: string) => sandbox.caseOf?.(id),
    checkToken: (token: string, service: 'identity' | 'stepup') =>
      sandbox.checkToken?.(token, service) ?? { ok: false, reason: 'unknown' },
  };
  const notConfigured = new Map<string, string>([
    ...(options.inject503 === 0
      ? [
          ['CLI-ORDER-RETRY', 'not configured: --inject-503 0 answered no order call 503'],
          ['CLI-RETRY-DELAYS', 'not configured: --inject-503 0'],
        ]
      : []),
    ...(options.webhooks
      ? []
      : [
          ['CLI-WEBHOOK-ANSWER', 'not configured: --no-webhooks'],
          ['CLI-WEBHOOK-STATUS', 'not configured: --no-webhooks'],
        ]),
    ...(options.scenario ? [] : [['CLI-SCENARIO', 'not configured: give --scenario <file>']]),
  ] as Array<[string, string]>);
  const redactor = new Redactor(
    [env['API_KEY'], env['RESELLER_API_KEY'], tokenSecret].filter((s): s is string => Boolean(s)),
  );
  return {
    env,
    sandboxUrl: sandbox.url,
    redactor,
    ...(webhookTarget ? { webhookTarget } : {}),
    deliveriesIdle: () => sandbox.webhooksIdle(),
    async finish() {
      await sandbox.webhooksIdle();
      await sandbox.close();
      // The client's traffic judged as the server side's tests are, under the certify profile.
      const records = judgeClient({
        exchanges,
        deliveries,
        target,
        ...(options.scenario ? { scenario: options.scenario } : {}),
        notConfigured,
      }).map((record) => ({
        ...record,
        annotations: record.annotations.map((a) => ({
          ...a,
          ...(a.description ? { description: redactor.text(a.description) } : {}),
        })),
      }));
      const verdicts = verdictsFor(clientRequirements, records);
      const run = runVerdict(verdicts, 'certify', {
        problems: exchanges.length === 0 ? ['The client sent nothing'] : [],
      });
      return {
        records,
        verdicts,
        run,
        requests: exchanges.length,
        deliveries: deliveries.length,
        traffic: { exchanges, deliveries, target },
      };
    },
  };
}
