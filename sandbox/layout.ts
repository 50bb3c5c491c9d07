import { operation, tokenEndpoint } from '../catalog/catalog.ts';
import type { Operation, OperationId, ServiceName } from '../catalog/catalog.ts';

/**
 * reference: our reading of the document; alternative: every open choice made differently; gateway: a service behind a
 * protobuf JSON gateway (sandbox/gateway/), in front of a reference sandbox.
 */
export type Flavor = 'reference' | 'alternative' | 'gateway';

export const flavors: readonly Flavor[] = ['reference', 'alternative', 'gateway'];

/** Paths of one sandbox flavor; everything is served on one origin. */
export interface SandboxLayout {
  /** The {auth_url} of each service: its token endpoint is this prefix + /v1/token. */
  identityTokenPrefix: string;
  stepupTokenPrefix: string;
  identityTokenPath: string;
  stepupTokenPath: string;
  identityBase: string;
  stepupBase: string;
  /** The order endpoint is this base + /v2/orders. */
  ordersBase: string;
}

function layout(identityTokenPrefix: string, stepupTokenPrefix: string, identityBase: string, stepupBase: string, ordersBase: string): SandboxLayout {
  return Object.freeze({
    identityTokenPrefix,
    stepupTokenPrefix,
    identityTokenPath: identityTokenPrefix + tokenEndpoint.pathSuffix,
    stepupTokenPath: stepupTokenPrefix + tokenEndpoint.pathSuffix,
    identityBase,
    stepupBase,
    ordersBase,
  });
}

const layouts: Record<Flavor, SandboxLayout> = {
  reference: layout('/identity-auth', '/stepup-auth', '/business/identity-proofing/v1', '/business/step-up/v1', '/commerce'),
  alternative: layout('/oauth2/identity', '/oauth2/stepup', '/api/idp', '/api/stepup', '/risk'),
  gateway: layout('/auth/identity', '/auth/stepup', '/gw/identity-proofing', '/gw/step-up', '/gw/commerce'),
};

export function sandboxLayout(flavor: Flavor): SandboxLayout {
  return layouts[flavor];
}

export type TokenAudience = 'identity' | 'stepup';

/** Where a token endpoint is served: `{prefix}/v1/token`. */
export function tokenPath(flavor: Flavor, audience: TokenAudience): string {
  const layout = sandboxLayout(flavor);
  const prefix = audience === 'identity' ? layout.identityTokenPrefix : layout.stepupTokenPrefix;
  return prefix + tokenEndpoint.pathSuffix;
}

export function serviceBase(flavor: Flavor, service: ServiceName): string {
  const layout = sandboxLayout(flavor);
  if (service === 'identity') return layout.identityBase;
  if (service === 'stepup') return layout.stepupBase;
  return layout.ordersBase;
}

export interface OperationRoute {
  method: string;
  /** The route below the service base, e.g. `/assessment/{caseId}`. */
  route: string;
}

/** Method and route of an operation for a flavor, as catalog/operations.json gives them. */
export function operationRoute(flavor: Flavor, id: OperationId): OperationRoute {
  const op = operation(id);
  const text = op.fixedRoute ?? { reference: op.defaultRoute, alternative: op.alternativeRoute, gateway: op.gatewayRoute }[flavor];
  if (!text) throw new Error(`catalog/operations.json gives no ${flavor} route for ${id}`);
  const [method, route, ...rest] = text.trim().split(/\s+/);
  if (!method || !route || rest.length > 0) throw new Error(`Route of ${id} is not "METHOD /path": ${text}`);
  return { method: method.toUpperCase(), route };
}

/** The text of a route as the suite's ROUTE_* variables carry it ("METHOD /path"). */
export function operationRouteText(flavor: Flavor, id: OperationId): string {
  const { method, route } = operationRoute(flavor, id);
  return `${method} ${route}`;
}

export interface PathPattern {
  template: string;
  regex: RegExp;
  params: string[];
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function compilePath(template: string): PathPattern {
  const params: string[] = [];
  const source = template
    .split(/(\{[A-Za-z][A-Za-z0-9]*\})/)
    .map((piece) => {
      const param = /^\{([A-Za-z][A-Za-z0-9]*)\}$/.exec(piece);
      if (param?.[1]) {
        params.push(param[1]);
        return '([^/]+)';
      }
      return escapeRegex(piece);
    })
    .join('');
  return { template, regex: new RegExp(`^${source}$`), params };
}

/** Full path template of an operation on the sandbox, e.g. `/business/identity-proofing/v1/assessment/{caseId}`. */
export function operationPath(flavor: Flavor, op: Operation): string {
  return serviceBase(flavor, op.service) + operationRoute(flavor, op.id).route;
}
