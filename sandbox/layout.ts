import { operation, tokenEndpoint } from '../catalog/catalog.ts';
import type { Operation, OperationId, ServiceName, TokenServiceName } from '../catalog/catalog.ts';

/**
 * The paths a sandbox serves: the reference layout, the alternative one, and the gateway's (sandbox/gateway/). Each
 * flavor (sandbox/flavors/) names the layout it serves; its routes are that layout's column of catalog/operations.json.
 */
export type LayoutName = 'reference' | 'alternative' | 'gateway';

/** Paths of one layout; everything is served on one origin. */
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

function layout(
  identityTokenPrefix: string,
  stepupTokenPrefix: string,
  identityBase: string,
  stepupBase: string,
  ordersBase: string,
): SandboxLayout {
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

const layouts: Record<LayoutName, SandboxLayout> = {
  reference: layout(
    '/identity-auth',
    '/stepup-auth',
    '/business/identity-proofing/v1',
    '/business/step-up/v1',
    '/commerce',
  ),
  alternative: layout('/oauth2/identity', '/oauth2/stepup', '/api/idp', '/api/stepup', '/risk'),
  gateway: layout('/auth/identity', '/auth/stepup', '/gw/identity-proofing', '/gw/step-up', '/gw/commerce'),
};

export function sandboxLayout(name: LayoutName): SandboxLayout {
  return layouts[name];
}

/** The services with a token endpoint of their own: a token is issued for one of them. */
export type TokenAudience = TokenServiceName;

/** Where a token endpoint is served: `{prefix}/v1/token`. */
export function tokenPath(name: LayoutName, audience: TokenAudience): string {
  const layout = sandboxLayout(name);
  const prefix = audience === 'identity' ? layout.identityTokenPrefix : layout.stepupTokenPrefix;
  return prefix + tokenEndpoint.pathSuffix;
}

export function serviceBase(name: LayoutName, service: ServiceName): string {
  const layout = sandboxLayout(name);
  if (service === 'identity') return layout.identityBase;
  if (service === 'stepup') return layout.stepupBase;
  return layout.ordersBase;
}

export interface OperationRoute {
  method: string;
  /** The route below the service base, e.g. `/assessment/{caseId}`. */
  route: string;
}

/** Method and route of an operation in a layout, as catalog/operations.json gives them. */
export function operationRoute(name: LayoutName, id: OperationId): OperationRoute {
  const op = operation(id);
  const text =
    op.fixedRoute ?? { reference: op.defaultRoute, alternative: op.alternativeRoute, gateway: op.gatewayRoute }[name];
  if (!text) throw new Error(`catalog/operations.json gives no ${name} route for ${id}`);
  const [method, route, ...rest] = text.trim().split(/\s+/);
  if (!method || !route || rest.length > 0) throw new Error(`Route of ${id} is not "METHOD /path": ${text}`);
  return { method: method.toUpperCase(), route };
}

/** The text of a route as the suite's ROUTE_* variables carry it ("METHOD /path"). */
export function operationRouteText(name: LayoutName, id: OperationId): string {
  const { method, route } = operationRoute(name, id);
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
export function operationPath(name: LayoutName, op: Operation): string {
  return serviceBase(name, op.service) + operationRoute(name, op.id).route;
}
