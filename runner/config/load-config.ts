import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { operations, tokenServiceOf } from '../../catalog/catalog.ts';
import { describeConfigIssue, firstPerVariable, problem } from '../../schemas/config-problems.ts';
import { schemaIssues } from '../../schemas/registry.ts';
import { configSchema, configVariables, CONFIG_SCHEMA_ID } from '../../schemas/variables.ts';
import { parseRoute, type Route } from '../../kit/config/route.ts';
import { parseTrigger } from '../../kit/config/trigger.ts';
import jsonpointer from 'jsonpointer';
import type { RequestTemplates, RoutedOperationId, ServiceTarget, SuiteConfig } from '../../kit/config/suite-config.ts';

import type { Profile } from '../../kit/verdict-marks.ts';
import { loadLedger, type LedgerEntry } from '../../schemas/ledger.ts';
import { readNetwork } from './network.ts';
import { DEFAULT_WORKERS } from './worker-count.ts';

/** A configuration problem: one line per variable, naming it, its value (secrets redacted) and what is expected. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `Configuration is not valid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * The variables, as runner/config/resolve.ts read them, validated into the configuration the checks read: it reads no
 * environment of its own. embedded: the suite started the sandbox itself; receiverReachable: the target posts its
 * webhooks to this machine's receiver (default: embedded), as a real deployment cannot without WEBHOOK_PUBLIC_URL.
 */
export function loadConfig(
  env: Env,
  options: {
    repoRoot: string;
    embedded: boolean;
    receiverReachable?: boolean;
    /** The seed and run tag a run takes when SEED and RUN_TAG are unset: chosen once, by resolveRun. */
    chosen?: { seed: number; runTag: string };
  },
): SuiteConfig {
  const problems: string[] = [];
  const raw: Record<string, unknown> = {};
  for (const name of configVariables) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    if (configSchema.properties[name]?.$ref === '#/$defs/jsonObject') {
      try {
        raw[name] = JSON.parse(value);
      } catch (error) {
        problems.push(problem(name, value, `valid JSON (${(error as Error).message})`));
      }
    } else {
      raw[name] = value;
    }
  }
  for (const issue of schemaIssues(CONFIG_SCHEMA_ID, raw)) problems.push(describeConfigIssue(issue, raw));
  if (problems.length > 0) throw new ConfigError(firstPerVariable(problems));

  const text = (name: string): string | undefined =>
    (raw[name] as string | undefined) ?? (configSchema.properties[name]?.default as string | undefined);
  const required = (name: string): string => text(name) as string;
  const integer = (name: string): number => Number(required(name));

  const routes = {} as Record<RoutedOperationId, Route>;
  for (const op of operations) {
    if (!op.routeEnv || !op.defaultRoute) continue;
    const value = text(op.routeEnv) ?? op.defaultRoute;
    try {
      routes[op.id as RoutedOperationId] = parseRoute(value, op.pathParams);
    } catch (error) {
      problems.push(problem(op.routeEnv, value, (error as Error).message));
    }
  }

  const triggers: SuiteConfig['orders']['triggers'] = {};
  for (const status of ['404', '500', '503'] as const) {
    const name = `ORDER_TRIGGER_${status}`;
    const value = text(name);
    if (!value) continue;
    try {
      triggers[status] = parseTrigger(value);
    } catch (error) {
      problems.push(problem(name, value, (error as Error).message));
    }
  }

  const readTemplate = (path: string) => readJsonObject(isAbsolute(path) ? path : resolve(options.repoRoot, path));
  const templates: RequestTemplates = {};
  for (const op of operations) {
    const path = op.templateEnv ? text(op.templateEnv) : undefined;
    if (!op.templateEnv || !path) continue;
    try {
      templates[op.id as RoutedOperationId] = readTemplate(path);
    } catch (error) {
      problems.push(
        problem(op.templateEnv, path, `a readable JSON file holding an object (${(error as Error).message})`),
      );
    }
  }

  const templatePath = required('ORDER_TEMPLATE');
  let template: Record<string, unknown> = {};
  try {
    // The default is the suite's own file (in the clone, or in the installed package), not one of the user's folder.
    const isDefault = raw['ORDER_TEMPLATE'] === undefined;
    template = readTemplate(
      isDefault ? fileURLToPath(new URL(`../../${templatePath}`, import.meta.url)) : templatePath,
    );
    for (const name of ['ORDER_ID_POINTER', 'ORDER_FULFILLMENT_POINTER']) {
      if (typeof jsonpointer.get(template, required(name)) !== 'string') {
        problems.push(
          problem(name, required(name), `a JSON pointer to a string in the order template ${templatePath}`),
        );
      }
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

  const caFile = text('TLS_CA_FILE');
  const targets = [
    'IDENTITY_BASE_URL',
    'IDENTITY_TOKEN_URL',
    'STEPUP_BASE_URL',
    'STEPUP_TOKEN_URL',
    'ORDERS_BASE_URL',
    'ORDERS_TOKEN_URL',
  ].flatMap((name) => text(name) ?? []);
  const network = readNetwork(env, {
    ...(caFile ? { caFile: isAbsolute(caFile) ? caFile : resolve(options.repoRoot, caFile) } : {}),
    targets,
    embedded: options.embedded,
  });
  problems.push(...network.problems);

  const [host, portText] = splitListen(required('WEBHOOK_LISTEN'));
  const port = Number(portText);
  if (!(port >= 1 && port <= 65535))
    problems.push(problem('WEBHOOK_LISTEN', required('WEBHOOK_LISTEN'), 'host:port with a port from 1 to 65535'));
  if (text('CONFORMANCE_WORKERS') !== undefined && integer('CONFORMANCE_WORKERS') > integer('TARGET_CONCURRENCY')) {
    problems.push(
      problem(
        'CONFORMANCE_WORKERS',
        required('CONFORMANCE_WORKERS'),
        `at most TARGET_CONCURRENCY (${required('TARGET_CONCURRENCY')}): the workers never exceed the requests the run keeps in flight`,
      ),
    );
  }
  if (text('SECOND_CLIENT_ID') !== undefined && text('SECOND_CLIENT_ID') === text('CLIENT_ID')) {
    problems.push(
      problem(
        'SECOND_CLIENT_ID',
        required('SECOND_CLIENT_ID'),
        'a client id other than CLIENT_ID: the second client is another client',
      ),
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const service = (prefix: 'IDENTITY' | 'STEPUP' | 'ORDERS', tokenUrlVariable: string): ServiceTarget => {
    const apiKeyVariable = text(`${prefix}_API_KEY`) ? `${prefix}_API_KEY` : 'API_KEY';
    const expiredToken = text(`${prefix}_EXPIRED_TOKEN`);
    return {
      baseUrl: required(`${prefix}_BASE_URL`).replace(/\/+$/, ''),
      tokenUrl: required(tokenUrlVariable),
      apiKey: required(apiKeyVariable),
      ...(expiredToken ? { expiredToken } : {}),
      variables: {
        baseUrl: `${prefix}_BASE_URL`,
        tokenUrl: tokenUrlVariable,
        apiKey: apiKeyVariable,
        expiredToken: `${prefix}_EXPIRED_TOKEN`,
      },
    };
  };
  const services: SuiteConfig['services'] = {
    identity: service('IDENTITY', 'IDENTITY_TOKEN_URL'),
    stepup: service('STEPUP', 'STEPUP_TOKEN_URL'),
    orders: service(
      'ORDERS',
      text('ORDERS_TOKEN_URL') ? 'ORDERS_TOKEN_URL' : `${tokenServiceOf('orders').toUpperCase()}_TOKEN_URL`,
    ),
  };
  const resellerKey = text('RESELLER_API_KEY');
  const seedText = text('SEED');

  return {
    embedded: options.embedded,
    profile: required('PROFILE') as Profile,
    workers:
      text('CONFORMANCE_WORKERS') !== undefined
        ? integer('CONFORMANCE_WORKERS')
        : Math.min(DEFAULT_WORKERS, integer('TARGET_CONCURRENCY')),
    workersSet: text('CONFORMANCE_WORKERS') !== undefined,
    targetConcurrency: integer('TARGET_CONCURRENCY'),
    seed: seedText ? Number(seedText) : (options.chosen?.seed ?? Math.floor(Math.random() * 1e9)),
    runTag: text('RUN_TAG') ?? options.chosen?.runTag ?? Math.random().toString(36).slice(2, 10),
    clientId: required('CLIENT_ID'),
    services,
    routes,
    strategies: {
      assessment: required('STRATEGY_ASSESSMENT'),
      documentVerification: required('STRATEGY_DOCUMENT_VERIFICATION'),
    },
    templates,
    ...(resellerKey
      ? {
          reseller: {
            apiKey: resellerKey,
            clientId: text('RESELLER_CLIENT_ID') ?? required('CLIENT_ID'),
            sourceClientId: required('RESELLER_SOURCE_CLIENT_ID'),
            sharedContext: raw.RESELLER_SHARED_CONTEXT as Record<string, unknown>,
          },
        }
      : {}),
    ...(text('SECOND_CLIENT_API_KEY')
      ? { secondClient: { apiKey: required('SECOND_CLIENT_API_KEY'), clientId: required('SECOND_CLIENT_ID') } }
      : {}),
    orders: {
      ...(text('ORDERS_NO_ENTITLEMENT_API_KEY') ? { noEntitlementApiKey: text('ORDERS_NO_ENTITLEMENT_API_KEY') } : {}),
      ...(text('ORDERS_NO_ENTITLEMENT_CLIENT_ID')
        ? { noEntitlementClientId: text('ORDERS_NO_ENTITLEMENT_CLIENT_ID') }
        : {}),
      template,
      templatePath,
      idPointer: required('ORDER_ID_POINTER'),
      fulfillmentPointer: required('ORDER_FULFILLMENT_POINTER'),
      triggers,
    },
    webhook: {
      ...webhookMode(
        text('WEBHOOK_MODE') as SuiteConfig['webhook']['mode'] | undefined,
        (options.receiverReachable ?? options.embedded) || text('WEBHOOK_PUBLIC_URL') !== undefined,
      ),
      host,
      port,
      publicUrl: text('WEBHOOK_PUBLIC_URL') ?? `http://${required('WEBHOOK_LISTEN')}/webhooks`,
      waitMs: integer('WEBHOOK_WAIT_MS'),
      passiveWindowMs: integer('WEBHOOK_PASSIVE_WINDOW_MS'),
    },
    http: {
      timeoutMs: integer('HTTP_TIMEOUT_MS'),
      retries503: integer('HTTP_503_RETRIES'),
      backoffBaseMs: integer('HTTP_BACKOFF_BASE_MS'),
      backoffMaxMs: integer('HTTP_BACKOFF_MAX_MS'),
      rateLimitBudgetMs: integer('RATE_LIMIT_BUDGET_MS'),
      network: network.network,
    },
    concurrency: { rounds: integer('CONCURRENCY_ROUNDS'), calls: integer('CONCURRENCY_CALLS') },
    documentReadyTimeoutMs: integer('DOCUMENT_READY_TIMEOUT_MS'),
    readAfterWriteTimeoutMs: integer('READ_AFTER_WRITE_TIMEOUT_MS'),
    ledger: ledgerFrom(resolve(options.repoRoot, required('CONFORMANCE_LEDGER'))),
    secrets: [
      ...configVariables
        .filter((name) => configSchema.properties[name]?.secret && text(name))
        .map((name) => text(name) as string),
      ...network.secrets,
    ],
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

function splitListen(listen: string): [string, string] {
  const at = listen.lastIndexOf(':');
  return [listen.slice(0, at).replace(/^\[|\]$/g, ''), listen.slice(at + 1)];
}
