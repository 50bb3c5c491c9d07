import { operations, tokenServiceOf } from '../catalog/catalog.ts';
import {
  limitedClient,
  mainClient,
  resellerChildOrganizationId,
  resellerClient,
  resellerSharedContext,
  secondClient,
} from './credentials.ts';
import { flavorModule } from './flavors/index.ts';
import { operationRoute, serviceBase, tokenPath } from './layout.ts';
import type { Flavor } from './types.ts';
import { expiredTokenFor } from './tokens.ts';

export interface SandboxTargetArgs {
  /** The sandbox origin, http://host:port. */
  url: string;
  flavor: Flavor;
  tokenSecret: string;
}

/** An operation's method and path below its service's base URL. */
export interface TargetRoute {
  method: string;
  path: string;
}

/** The ROUTE_* variable of every operation that has one (catalog/operations.json). */
export type TargetRoutes = { [name: `ROUTE_${string}`]: TargetRoute };

/** What makes the order endpoint answer a row: a header the request carries. */
export interface TargetTrigger {
  kind: 'header';
  name: string;
  value: string;
}

/**
 * A running sandbox as a target: the values of the suite's variables (schemas/config.schema.json) that reach it, by
 * name, as plain data. A conformance run's resolver takes them as they are for its embedded sandbox (runner/config/);
 * a process started against a sandbox takes them as variables (sandboxTargetEnv).
 */
export interface SandboxTarget extends TargetRoutes {
  IDENTITY_BASE_URL: string;
  IDENTITY_TOKEN_URL: string;
  STEPUP_BASE_URL: string;
  STEPUP_TOKEN_URL: string;
  ORDERS_BASE_URL: string;
  ORDERS_TOKEN_URL: string;
  API_KEY: string;
  CLIENT_ID: string;
  STRATEGY_ASSESSMENT: string;
  STRATEGY_DOCUMENT_VERIFICATION: string;
  RESELLER_API_KEY: string;
  RESELLER_CLIENT_ID: string;
  RESELLER_SOURCE_CLIENT_ID: string;
  RESELLER_SHARED_CONTEXT: Record<string, unknown>;
  ORDERS_NO_ENTITLEMENT_API_KEY: string;
  SECOND_CLIENT_API_KEY: string;
  SECOND_CLIENT_ID: string;
  IDENTITY_EXPIRED_TOKEN: string;
  STEPUP_EXPIRED_TOKEN: string;
  ORDERS_EXPIRED_TOKEN: string;
  ORDER_TRIGGER_404: TargetTrigger;
  ORDER_TRIGGER_500: TargetTrigger;
  ORDER_TRIGGER_503: TargetTrigger;
}

const orderTrigger = (status: number): TargetTrigger => ({
  kind: 'header',
  name: 'x-sandbox-respond',
  value: `${status}`,
});

/** The sandbox at args.url as a target. */
export function sandboxTarget(args: SandboxTargetArgs): SandboxTarget {
  const { tokenSecret } = args;
  const { layout: flavor, tokenKind } = flavorModule(args.flavor);
  const origin = args.url.replace(/\/+$/, '');
  const routes: TargetRoutes = {};
  for (const op of operations) {
    if (!op.routeEnv) continue;
    const { method, route: path } = operationRoute(flavor, op.id);
    routes[op.routeEnv as `ROUTE_${string}`] = { method, path };
  }
  return {
    ...routes,
    IDENTITY_BASE_URL: origin + serviceBase(flavor, 'identity'),
    IDENTITY_TOKEN_URL: origin + tokenPath(flavor, 'identity'),
    STEPUP_BASE_URL: origin + serviceBase(flavor, 'stepup'),
    STEPUP_TOKEN_URL: origin + tokenPath(flavor, 'stepup'),
    ORDERS_BASE_URL: origin + serviceBase(flavor, 'orders'),
    ORDERS_TOKEN_URL: origin + tokenPath(flavor, tokenServiceOf('orders')),
    API_KEY: mainClient.apiKey,
    CLIENT_ID: 'conformance-client',
    STRATEGY_ASSESSMENT: 'default',
    STRATEGY_DOCUMENT_VERIFICATION: 'docv-default',
    RESELLER_API_KEY: resellerClient.apiKey,
    RESELLER_CLIENT_ID: resellerClient.clientId,
    RESELLER_SOURCE_CLIENT_ID: resellerChildOrganizationId,
    RESELLER_SHARED_CONTEXT: structuredClone(resellerSharedContext),
    ORDERS_NO_ENTITLEMENT_API_KEY: limitedClient.apiKey,
    SECOND_CLIENT_API_KEY: secondClient.apiKey,
    SECOND_CLIENT_ID: 'conformance-second-client',
    IDENTITY_EXPIRED_TOKEN: expiredTokenFor(tokenKind, tokenSecret, 'identity'),
    STEPUP_EXPIRED_TOKEN: expiredTokenFor(tokenKind, tokenSecret, 'stepup'),
    ORDERS_EXPIRED_TOKEN: expiredTokenFor(tokenKind, tokenSecret, 'orders'),
    ORDER_TRIGGER_404: orderTrigger(404),
    ORDER_TRIGGER_500: orderTrigger(500),
    ORDER_TRIGGER_503: orderTrigger(503),
  };
}

/** A target's values as the variables that carry them: a route as "METHOD /path", a trigger as header:<name>=<value>. */
export function targetVariables(target: SandboxTarget): Record<string, string> {
  const trigger = ({ name, value }: TargetTrigger) => `header:${name}=${value}`;
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(target)) if (typeof value === 'string') text[name] = value;
  for (const op of operations) {
    const route = op.routeEnv ? target[op.routeEnv as `ROUTE_${string}`] : undefined;
    if (op.routeEnv && route) text[op.routeEnv] = `${route.method} ${route.path}`;
  }
  return {
    ...text,
    RESELLER_SHARED_CONTEXT: JSON.stringify(target.RESELLER_SHARED_CONTEXT),
    ORDER_TRIGGER_404: trigger(target.ORDER_TRIGGER_404),
    ORDER_TRIGGER_500: trigger(target.ORDER_TRIGGER_500),
    ORDER_TRIGGER_503: trigger(target.ORDER_TRIGGER_503),
  };
}

/** The environment with which a process started against a running sandbox targets it. */
export function sandboxTargetEnv(args: SandboxTargetArgs): Record<string, string> {
  return targetVariables(sandboxTarget(args));
}
