import { tokenServiceOf } from '../catalog/catalog.ts';
import {
  limitedClient,
  mainClient,
  resellerChildOrganizationId,
  resellerClient,
  resellerSharedContext,
  secondClient,
} from './credentials.ts';
import { flavorModule } from './flavors/index.ts';
import { operationRouteText, serviceBase, tokenPath } from './layout.ts';
import type { Flavor } from './types.ts';
import { expiredTokenFor } from './tokens.ts';

export interface SandboxTargetArgs {
  /** The sandbox origin, http://host:port. */
  url: string;
  flavor: Flavor;
  tokenSecret: string;
}

const orderTrigger = (status: number): string => `header:x-sandbox-respond=${status}`;

/** The environment with which the conformance suite targets a running sandbox (the variables of schemas/config.schema.json). */
export function sandboxTargetEnv(args: SandboxTargetArgs): Record<string, string> {
  const { tokenSecret } = args;
  const { layout: flavor, tokenKind } = flavorModule(args.flavor);
  const origin = args.url.replace(/\/+$/, '');
  const env: Record<string, string> = {
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
    ROUTE_ASSESSMENT: operationRouteText(flavor, 'assessment'),
    ROUTE_DOCUMENT_VERIFICATION: operationRouteText(flavor, 'documentVerification'),
    ROUTE_DOCUMENT_RECORDS: operationRouteText(flavor, 'documentRecords'),
    ROUTE_FETCH_ASSESSMENT: operationRouteText(flavor, 'fetchAssessment'),
    ROUTE_CASE_UPDATE: operationRouteText(flavor, 'caseUpdate'),
    ROUTE_STEP_UP: operationRouteText(flavor, 'stepUp'),
    RESELLER_API_KEY: resellerClient.apiKey,
    RESELLER_CLIENT_ID: resellerClient.clientId,
    RESELLER_SOURCE_CLIENT_ID: resellerChildOrganizationId,
    RESELLER_SHARED_CONTEXT: JSON.stringify(resellerSharedContext),
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
  return env;
}
