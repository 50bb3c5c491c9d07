import { reach, type ReachFailure } from './http/network.ts';
import { operations, type ServiceName } from '../catalog/catalog.ts';
import type { SuiteConfig } from '../kit/config/suite-config.ts';
import { problemsIn, type Finding } from './doctor/findings.ts';
import { probeRoutes } from './doctor/route-probe.ts';
import { probeWebhookPath } from './doctor/webhook-probe.ts';
import type { Sender } from '../kit/http/sender.ts';
import type { Redactor } from '../kit/redact.ts';
import type { Credential, TokenSource } from '../kit/tokens.ts';
import type { WebhookReceiver } from './webhooks/receiver.ts';
import type { Network } from '../kit/config/suite-config.ts';

/** How long the preflight gives a host to accept a connection (and a TLS handshake). */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * How a host that could not be reached is described, by the kind of failure, the socket's own words in parentheses. A
 * certificate or a proxy problem is worded by its cause already, with what to set (runner/http/network.ts).
 */
const CAUSE: Record<Exclude<ReachFailure, 'certificate' | 'proxy'>, string> = {
  'no-answer': 'the host does not answer',
  refused: 'the host refused the connection',
  'not-found': 'the host name is not found (DNS)',
  other: 'the host cannot be reached',
};

/** Connects to the URL's host (TCP, then TLS for https, through its proxy) and hangs up: undefined when it answered, else why not, in one line. */
export async function unreachable(
  url: string,
  network?: Network,
  timeoutMs = CONNECT_TIMEOUT_MS,
): Promise<string | undefined> {
  const { problem, failure = 'other' } = await reach(url, network, timeoutMs);
  if (problem === undefined) return undefined;
  if (failure === 'certificate' || failure === 'proxy') return problem;
  // "ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:1)": the socket's message names its code already.
  return `${CAUSE[failure]} (${/^[A-Z_]+ \((.*)\)$/.exec(problem)?.[1] ?? problem})`;
}

interface CredentialUse {
  services: ServiceName[];
  credential: Credential;
  /** The variable holding the API key, and the one holding the token URL. */
  apiKeyVariable: string;
  tokenUrlVariable: string;
  /** Other variables holding the same key for the same token URL (a reseller key that is API_KEY's). */
  sameKey: string[];
}

/** The credentials a run uses besides each service's own, by variable, with what the doctor calls them. */
const EXTRA_CREDENTIALS: Record<string, string> = {
  RESELLER_API_KEY: 'reseller',
  ORDERS_NO_ENTITLEMENT_API_KEY: 'orders (a client without the entitlements)',
};

/** Every token endpoint and API key the run will use, once each, with the variables they come from. */
function credentialUses(config: SuiteConfig): CredentialUse[] {
  const uses = new Map<string, CredentialUse>();
  const add = (service: ServiceName, apiKey: string, apiKeyVariable: string) => {
    const target = config.services[service];
    const key = `${target.tokenUrl}\n${apiKey}`;
    const known = uses.get(key);
    if (known) {
      known.services.push(service);
      if (apiKeyVariable !== known.apiKeyVariable && !known.sameKey.includes(apiKeyVariable))
        known.sameKey.push(apiKeyVariable);
    } else
      uses.set(key, {
        services: [service],
        credential: { tokenUrl: target.tokenUrl, apiKey },
        apiKeyVariable,
        tokenUrlVariable: target.variables.tokenUrl,
        sameKey: [],
      });
  };
  for (const service of ['identity', 'stepup', 'orders'] as const)
    add(service, config.services[service].apiKey, config.services[service].variables.apiKey);
  if (config.reseller)
    for (const service of ['identity', 'stepup'] as const) add(service, config.reseller.apiKey, 'RESELLER_API_KEY');
  if (config.orders.noEntitlementApiKey)
    add('orders', config.orders.noEntitlementApiKey, 'ORDERS_NO_ENTITLEMENT_API_KEY');
  return [...uses.values()];
}

/**
 * What the hosts and the token endpoints said: one finding per origin that cannot be reached, naming every variable
 * that points there, one per service for its token, and the services that got no token.
 */
async function hostsAndTokens(
  config: SuiteConfig,
  tokens: TokenSource,
  embeddedGiven?: ReadonlySet<string>,
): Promise<{ findings: Finding[]; tokenless: Map<ServiceName, string> }> {
  // Against the embedded sandbox, a URL the user did not set is the sandbox's own: named by the setting they have.
  const named = (variable: string) => (embeddedGiven && !embeddedGiven.has(variable) ? 'SANDBOX_PORT' : variable);
  const services = ['identity', 'stepup', 'orders'] as const;
  const uses = new Map<string, { variables: Set<string>; services: Set<ServiceName> }>();
  for (const service of services) {
    const target = config.services[service];
    for (const [variable, url] of [
      [target.variables.baseUrl, target.baseUrl],
      [target.variables.tokenUrl, target.tokenUrl],
    ] as const) {
      const origin = new URL(url).origin;
      const use = uses.get(origin) ?? { variables: new Set<string>(), services: new Set<ServiceName>() };
      use.variables.add(named(variable));
      use.services.add(service);
      uses.set(origin, use);
    }
  }
  const answers = new Map(
    await Promise.all(
      [...uses.keys()].map(async (origin) => [origin, await unreachable(origin, config.http.network)] as const),
    ),
  );
  const problems = new Map<string, string[]>();
  const add = (who: string, problem: string) => problems.set(who, [...(problems.get(who) ?? []), problem]);
  const tokenless = new Map<ServiceName, string>();
  const cutOff = new Set<ServiceName>();

  for (const [origin, use] of uses) {
    const problem = answers.get(origin);
    if (!problem) continue;
    const variables = [...use.variables];
    add(`${origin} (${variables.join(', ')})`, problem);
    for (const service of use.services) {
      cutOff.add(service);
      tokenless.set(service, `${variables.join(', ')}: ${problem}`);
    }
  }
  const credentials = credentialUses(config).filter((use) => !answers.get(new URL(use.credential.tokenUrl).origin));
  // The credentials beside the services' own (reseller, no entitlement): which token URLs issued them a token.
  const extra = new Map<string, { issued: string[]; failed: boolean }>();
  const noteExtra = (use: CredentialUse, issued: boolean) => {
    for (const variable of [use.apiKeyVariable, ...use.sameKey]) {
      if (!EXTRA_CREDENTIALS[variable]) continue;
      const entry = extra.get(variable) ?? { issued: [], failed: false };
      if (issued) entry.issued.push(use.tokenUrlVariable);
      else entry.failed = true;
      extra.set(variable, entry);
    }
  };
  await Promise.all(
    credentials.map(async (use) => {
      const outcome = await tokens.get(use.credential);
      noteExtra(use, outcome.ok);
      if (outcome.ok) return;
      const main = use.services.filter(
        (service) =>
          config.services[service].apiKey === use.credential.apiKey &&
          config.services[service].tokenUrl === use.credential.tokenUrl,
      );
      for (const service of main)
        tokenless.set(
          service,
          `no token from ${use.tokenUrlVariable} with ${use.apiKeyVariable}: ${outcome.failure.message}`,
        );
      if (outcome.failure.kind === 'answer') return;
      const what =
        outcome.failure.kind === 'refused'
          ? `the credentials in ${use.apiKeyVariable} were refused`
          : outcome.failure.kind === 'rate-limited'
            ? 'still rate-limited when RATE_LIMIT_BUDGET_MS was spent'
            : 'no answer';
      const who = use.apiKeyVariable === 'RESELLER_API_KEY' ? 'reseller' : use.services.join(', ');
      add(
        who,
        `a token request to ${use.tokenUrlVariable} with ${use.apiKeyVariable} as Basic credentials: ${what}: ${outcome.failure.message}`,
      );
    }),
  );
  const extraFindings: Finding[] = [...extra]
    .filter(([, entry]) => !entry.failed && entry.issued.length > 0)
    .map(([variable, entry]) => ({
      topic: 'reach',
      subject: EXTRA_CREDENTIALS[variable] as string,
      severity: 'ok',
      text: `${[...new Set(entry.issued)].join(' and ')} issued a token for ${variable}`,
    }));
  const findings: Finding[] = [...problems].map(([who, list]) => ({
    topic: 'reach',
    subject: who,
    severity: 'problem',
    text: [...new Set(list)].join('; '),
  }));
  for (const service of services) {
    if (cutOff.has(service) || [...problems.keys()].some((who) => who.split(', ').includes(service))) continue;
    const target = config.services[service];
    const missing = tokenless.get(service);
    findings.push(
      missing
        ? {
            topic: 'reach',
            subject: service,
            severity: 'warning',
            text: `its hosts answer, but ${missing} (the token checks will judge that answer)`,
          }
        : {
            topic: 'reach',
            subject: service,
            severity: 'ok',
            text: `${target.variables.baseUrl} and ${target.variables.tokenUrl} answer; ${target.variables.tokenUrl} issued a token for ${target.variables.apiKey}`,
          },
    );
  }
  return { findings: [...findings, ...extraFindings], tokenless };
}

export interface PreflightParts {
  http: Sender;
  redactor: Redactor;
  /** The target is the embedded sandbox: it posts its webhooks from this machine. */
  targetIsHere: boolean;
  /** Against the embedded sandbox: the variables the user set (the others are the sandbox's, named by SANDBOX_PORT). */
  embeddedGiven?: ReadonlySet<string>;
  /** Which of the probes beyond hosts and tokens to run (default both). */
  probe?: { routes: boolean; webhook: boolean };
  /** The run's receiver, already listening on WEBHOOK_LISTEN (else the webhook probe listens there itself). */
  receiver?: WebhookReceiver;
}

/**
 * The probes worth a run's time against the embedded sandbox: the routes and the webhook URL the suite gave it itself
 * (WEBHOOK_PUBLIC_URL unset: the receiver's own address) are right by construction, so only those a variable changed are
 * probed (npm run doctor probes everything).
 */
export function embeddedProbes(userSet: ReadonlySet<string>): { routes: boolean; webhook: boolean } {
  return {
    routes: operations.some((op) => op.routeEnv !== undefined && userSet.has(op.routeEnv)),
    webhook: userSet.has('WEBHOOK_PUBLIC_URL'),
  };
}

/**
 * Before any test, in parallel where it can be: every configured host answers (DNS, TCP, TLS), every configured
 * credential gets a token (the run's token, kept by the source for the tests); then every route reaches its operation
 * (runner/doctor/route-probe.ts) and what is posted to WEBHOOK_PUBLIC_URL reaches WEBHOOK_LISTEN
 * (runner/doctor/webhook-probe.ts). Problems are definite and stop the run; a host that cannot be reached comes in one
 * line naming every variable that points to it and the kind of failure, a token problem in one line per service, naming
 * the variables, what was sent and what came back. Only an unreachable host or credentials refused
 * stop it there: any other answer of a token endpoint (a 201, a body that is not JSON, a 500) is for the token checks
 * to judge, and the routes of that service are not probed. npm run doctor runs the same probes and prints every finding.
 */
export async function preflight(config: SuiteConfig, tokens: TokenSource, parts: PreflightParts): Promise<Finding[]> {
  const reach = await hostsAndTokens(config, tokens, parts.embeddedGiven);
  if (problemsIn(reach.findings).length > 0) return reach.findings;
  const probe = parts.probe ?? { routes: true, webhook: true };
  const [routes, webhooks] = await Promise.all([
    probe.routes
      ? probeRoutes({ config, http: parts.http, tokens, redactor: parts.redactor, skip: reach.tokenless })
      : [],
    probe.webhook
      ? probeWebhookPath(config, {
          targetIsHere: parts.targetIsHere,
          ...(parts.receiver ? { receiver: parts.receiver } : {}),
        })
      : [],
  ]);
  return [...reach.findings, ...routes, ...webhooks];
}
