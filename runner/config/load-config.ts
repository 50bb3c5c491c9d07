import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import jsonpointer from 'jsonpointer';
import { operations, tokenServiceOf } from '../../catalog/catalog.ts';
import { problem } from '../../schemas/config-problems.ts';
import { parseRoute, type Route } from '../../kit/config/route.ts';
import { parseTrigger } from '../../kit/config/trigger.ts';
import type { RequestTemplates, RoutedOperationId, ServiceTarget, SuiteConfig } from '../../kit/config/suite-config.ts';
import type { Profile } from '../../kit/verdict-marks.ts';
import { loadLedger, type LedgerEntry } from '../../schemas/ledger.ts';
import { readNetwork } from './network.ts';
import { chooseRunIdentity, type RunIdentity } from './run-identity.ts';
import { ConfigError, ConfigValues, type EmbeddedTarget } from './values.ts';
import { DEFAULT_WORKERS } from './worker-count.ts';

export { ConfigError } from './values.ts';

type Env = Record<string, string | undefined>;

export interface LoadOptions {
  /** Where relative paths of settings are read from. */
  repoRoot: string;
  /** The suite started the sandbox itself. */
  embedded: boolean;
  /** The embedded sandbox's target, as values: the user's variables win over it. */
  target?: EmbeddedTarget;
  /** The target posts its webhooks to this machine's receiver (default: embedded). */
  receiverReachable?: boolean;
  /** The seed and run tag a run takes when SEED and RUN_TAG are unset: chosen once, by resolveRun. */
  chosen?: RunIdentity;
}

/**
 * The variables, as runner/config/resolve.ts read them, validated into the configuration the checks read: it reads no
 * environment of its own. A real deployment cannot post webhooks to this machine's receiver without WEBHOOK_PUBLIC_URL.
 */
export function loadConfig(env: Env, options: LoadOptions): SuiteConfig {
  const values = ConfigValues.read(env, options.target);
  const problems: string[] = [];
  const routes = routesOf(values, problems);
  const triggers = triggersOf(values, problems);
  const templates = templatesOf(values, options.repoRoot, problems);
  const order = orderTemplateOf(values, options.repoRoot, problems);
  const network = networkOf(env, values, options, problems);
  const webhook = webhookOf(values, options, problems);
  const workers = workersOf(values, problems);
  const clients = clientsOf(values, problems);
  if (problems.length > 0) throw new ConfigError(problems);

  const chosen = options.chosen ?? chooseRunIdentity();
  const seed = values.text('SEED');
  return {
    embedded: options.embedded,
    profile: values.required('PROFILE') as Profile,
    ...workers,
    seed: seed ? Number(seed) : chosen.seed,
    runTag: values.text('RUN_TAG') ?? chosen.runTag,
    clientId: values.required('CLIENT_ID'),
    services: servicesOf(values),
    routes,
    strategies: {
      assessment: values.required('STRATEGY_ASSESSMENT'),
      documentVerification: values.required('STRATEGY_DOCUMENT_VERIFICATION'),
    },
    templates,
    ...clients,
    orders: {
      ...optional('noEntitlementApiKey', values.text('ORDERS_NO_ENTITLEMENT_API_KEY')),
      ...optional('noEntitlementClientId', values.text('ORDERS_NO_ENTITLEMENT_CLIENT_ID')),
      ...order,
      triggers,
    },
    webhook,
    http: {
      timeoutMs: values.integer('HTTP_TIMEOUT_MS'),
      retries503: values.integer('HTTP_503_RETRIES'),
      backoffBaseMs: values.integer('HTTP_BACKOFF_BASE_MS'),
      backoffMaxMs: values.integer('HTTP_BACKOFF_MAX_MS'),
      rateLimitBudgetMs: values.integer('RATE_LIMIT_BUDGET_MS'),
      network: network.network,
    },
    concurrency: { rounds: values.integer('CONCURRENCY_ROUNDS'), calls: values.integer('CONCURRENCY_CALLS') },
    documentReadyTimeoutMs: values.integer('DOCUMENT_READY_TIMEOUT_MS'),
    readAfterWriteTimeoutMs: values.integer('READ_AFTER_WRITE_TIMEOUT_MS'),
    ledger: ledgerFrom(resolve(options.repoRoot, values.required('CONFORMANCE_LEDGER'))),
    secrets: [...values.secrets(), ...network.secrets],
  };
}

/** The variables of the origins the run talks to: the network's proxy and CA apply to them. */
const targetVariables = [
  'IDENTITY_BASE_URL',
  'IDENTITY_TOKEN_URL',
  'STEPUP_BASE_URL',
  'STEPUP_TOKEN_URL',
  'ORDERS_BASE_URL',
  'ORDERS_TOKEN_URL',
] as const;

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value ? { [key]: value } : {}) as Partial<Record<K, V>>;

type RouteVariable = Extract<keyof EmbeddedTarget, `ROUTE_${string}`>;

/** Each operation's ROUTE_*: the user's, else the target's, else the catalog's default. */
function routesOf(values: ConfigValues, problems: string[]): Record<RoutedOperationId, Route> {
  const routes = {} as Record<RoutedOperationId, Route>;
  for (const op of operations) {
    if (!op.routeEnv || !op.defaultRoute) continue;
    const fromTarget = values.target?.[op.routeEnv as RouteVariable];
    const route = values.parsed(
      op.routeEnv,
      fromTarget,
      (text) => parseRoute(text, op.pathParams),
      problems,
      op.defaultRoute,
    );
    if (route) routes[op.id as RoutedOperationId] = route;
  }
  return routes;
}

function triggersOf(values: ConfigValues, problems: string[]): SuiteConfig['orders']['triggers'] {
  const triggers: SuiteConfig['orders']['triggers'] = {};
  for (const status of ['404', '500', '503'] as const) {
    const name = `ORDER_TRIGGER_${status}` as const;
    const trigger = values.parsed(name, values.target?.[name], parseTrigger, problems);
    if (trigger) triggers[status] = trigger;
  }
  return triggers;
}

const readTemplate = (repoRoot: string, path: string) =>
  readJsonObject(isAbsolute(path) ? path : resolve(repoRoot, path));

/** The request templates of the operations that have one (TEMPLATE_*). */
function templatesOf(values: ConfigValues, repoRoot: string, problems: string[]): RequestTemplates {
  const templates: RequestTemplates = {};
  for (const op of operations) {
    const path = op.templateEnv ? values.text(op.templateEnv) : undefined;
    if (!op.templateEnv || !path) continue;
    try {
      templates[op.id as RoutedOperationId] = readTemplate(repoRoot, path);
    } catch (error) {
      problems.push(
        problem(op.templateEnv, path, `a readable JSON file holding an object (${(error as Error).message})`),
      );
    }
  }
  return templates;
}

/** ORDER_TEMPLATE, read, and its pointers (ORDER_ID_POINTER, ORDER_FULFILLMENT_POINTER), each to a string in it. */
function orderTemplateOf(
  values: ConfigValues,
  repoRoot: string,
  problems: string[],
): Pick<SuiteConfig['orders'], 'template' | 'templatePath' | 'idPointer' | 'fulfillmentPointer'> {
  const templatePath = values.required('ORDER_TEMPLATE');
  const idPointer = values.required('ORDER_ID_POINTER');
  const fulfillmentPointer = values.required('ORDER_FULFILLMENT_POINTER');
  let template: Record<string, unknown> = {};
  try {
    // The default is the suite's own file (in the clone, or in the installed package), not one of the user's folder.
    template = values.isGiven('ORDER_TEMPLATE')
      ? readTemplate(repoRoot, templatePath)
      : readJsonObject(fileURLToPath(new URL(`../../${templatePath}`, import.meta.url)));
    for (const [name, pointer] of [
      ['ORDER_ID_POINTER', idPointer],
      ['ORDER_FULFILLMENT_POINTER', fulfillmentPointer],
    ] as const) {
      if (typeof jsonpointer.get(template, pointer) !== 'string')
        problems.push(problem(name, pointer, `a JSON pointer to a string in the order template ${templatePath}`));
    }
  } catch (error) {
    problems.push(
      problem(
        'ORDER_TEMPLATE',
        templatePath,
        `a readable JSON file holding an order object (${(error as Error).message})`,
      ),
    );
  }
  return { template, templatePath, idPointer, fulfillmentPointer };
}

/** How the suite reaches the targets: TLS_CA_FILE and the proxy variables (runner/config/network.ts). */
function networkOf(env: Env, values: ConfigValues, options: LoadOptions, problems: string[]) {
  const caFile = values.text('TLS_CA_FILE');
  const network = readNetwork(env, {
    ...(caFile ? { caFile: isAbsolute(caFile) ? caFile : resolve(options.repoRoot, caFile) } : {}),
    targets: targetVariables.flatMap((name) => values.text(name) ?? []),
    embedded: options.embedded,
  });
  problems.push(...network.problems);
  return network;
}

/** The receiver (WEBHOOK_LISTEN, its public URL) and the webhook mode; a real target cannot post to this machine. */
function webhookOf(values: ConfigValues, options: LoadOptions, problems: string[]): SuiteConfig['webhook'] {
  const listen = values.required('WEBHOOK_LISTEN');
  const at = listen.lastIndexOf(':');
  const port = Number(listen.slice(at + 1));
  if (!(port >= 1 && port <= 65535))
    problems.push(problem('WEBHOOK_LISTEN', listen, 'host:port with a port from 1 to 65535'));
  const publicUrl = values.text('WEBHOOK_PUBLIC_URL');
  return {
    ...webhookMode(
      values.text('WEBHOOK_MODE') as SuiteConfig['webhook']['mode'] | undefined,
      (options.receiverReachable ?? options.embedded) || publicUrl !== undefined,
    ),
    host: listen.slice(0, at).replace(/^\[|\]$/g, ''),
    port,
    publicUrl: publicUrl ?? `http://${listen}/webhooks`,
    waitMs: values.integer('WEBHOOK_WAIT_MS'),
    passiveWindowMs: values.integer('WEBHOOK_PASSIVE_WINDOW_MS'),
  };
}

/** CONFORMANCE_WORKERS, at most TARGET_CONCURRENCY; unset, the default until the runner measures (run-workers.ts). */
function workersOf(
  values: ConfigValues,
  problems: string[],
): Pick<SuiteConfig, 'workers' | 'workersSet' | 'targetConcurrency'> {
  const cap = values.integer('TARGET_CONCURRENCY');
  if (!values.isGiven('CONFORMANCE_WORKERS')) {
    return { workers: Math.min(DEFAULT_WORKERS, cap), workersSet: false, targetConcurrency: cap };
  }
  const workers = values.integer('CONFORMANCE_WORKERS');
  if (workers > cap)
    problems.push(
      problem(
        'CONFORMANCE_WORKERS',
        values.required('CONFORMANCE_WORKERS'),
        `at most TARGET_CONCURRENCY (${values.required('TARGET_CONCURRENCY')}): the workers never exceed the requests the run keeps in flight`,
      ),
    );
  return { workers, workersSet: true, targetConcurrency: cap };
}

/** Each service's base URL, token endpoint and API key (its own, else API_KEY), and the variables they came from. */
function servicesOf(values: ConfigValues): SuiteConfig['services'] {
  const service = (prefix: 'IDENTITY' | 'STEPUP' | 'ORDERS', tokenUrlVariable: string): ServiceTarget => {
    const apiKeyVariable = values.text(`${prefix}_API_KEY`) ? `${prefix}_API_KEY` : 'API_KEY';
    return {
      baseUrl: values.required(`${prefix}_BASE_URL`).replace(/\/+$/, ''),
      tokenUrl: values.required(tokenUrlVariable),
      apiKey: values.required(apiKeyVariable),
      ...optional('expiredToken', values.text(`${prefix}_EXPIRED_TOKEN`)),
      variables: {
        baseUrl: `${prefix}_BASE_URL`,
        tokenUrl: tokenUrlVariable,
        apiKey: apiKeyVariable,
        expiredToken: `${prefix}_EXPIRED_TOKEN`,
      },
    };
  };
  return {
    identity: service('IDENTITY', 'IDENTITY_TOKEN_URL'),
    stepup: service('STEPUP', 'STEPUP_TOKEN_URL'),
    orders: service(
      'ORDERS',
      values.text('ORDERS_TOKEN_URL') ? 'ORDERS_TOKEN_URL' : `${tokenServiceOf('orders').toUpperCase()}_TOKEN_URL`,
    ),
  };
}

/** The reseller (RESELLER_*) and the second client (SECOND_CLIENT_*, another client than CLIENT_ID), when configured. */
function clientsOf(values: ConfigValues, problems: string[]): Pick<SuiteConfig, 'reseller' | 'secondClient'> {
  const resellerKey = values.text('RESELLER_API_KEY');
  const secondKey = values.text('SECOND_CLIENT_API_KEY');
  const secondId = values.text('SECOND_CLIENT_ID');
  if (secondId !== undefined && secondId === values.text('CLIENT_ID'))
    problems.push(
      problem('SECOND_CLIENT_ID', secondId, 'a client id other than CLIENT_ID: the second client is another client'),
    );
  return {
    ...(resellerKey
      ? {
          reseller: {
            apiKey: resellerKey,
            clientId: values.text('RESELLER_CLIENT_ID') ?? values.required('CLIENT_ID'),
            sourceClientId: values.required('RESELLER_SOURCE_CLIENT_ID'),
            sharedContext: values.object('RESELLER_SHARED_CONTEXT') as Record<string, unknown>,
          },
        }
      : {}),
    ...(secondKey && secondId ? { secondClient: { apiKey: secondKey, clientId: secondId } } : {}),
  };
}

/** The ledger's entries; a malformed ledger is a configuration error naming CONFORMANCE_LEDGER. */
function ledgerFrom(path: string): LedgerEntry[] {
  try {
    return loadLedger(path);
  } catch (error) {
    throw new ConfigError([
      `CONFORMANCE_LEDGER: ${(error instanceof Error ? error.message : String(error)).replace(/\n\s*/g, '; ')}`,
    ]);
  }
}

/**
 * Active mode only where the target can deliver: the embedded sandbox, or a receiver URL the target can reach
 * (WEBHOOK_PUBLIC_URL). A real target cannot post to the tester's loopback, so without one the event checks are not
 * configured, naming the variable. WEBHOOK_MODE, when set, is taken as it is.
 */
function webhookMode(
  chosen: SuiteConfig['webhook']['mode'] | undefined,
  reachable: boolean,
): Pick<SuiteConfig['webhook'], 'mode' | 'offReason'> {
  if (chosen)
    return { mode: chosen, ...(chosen === 'off' ? { offReason: 'WEBHOOK_MODE=off: no webhook receiver' } : {}) };
  if (reachable) return { mode: 'active' };
  return {
    mode: 'off',
    offReason:
      'WEBHOOK_PUBLIC_URL is not set: the target cannot reach a receiver on this machine (set it to the URL the target posts to, or WEBHOOK_MODE=passive)',
  };
}

function readJsonObject(path: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('the file does not hold a JSON object');
  return parsed as Record<string, unknown>;
}
