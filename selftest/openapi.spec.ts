import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { convertV2 } from 'openapi-to-postmanv2';
import { operations, type ServiceName } from '../catalog/catalog.ts';
import { parseRoute } from '../kit/config/route.ts';
import { openApiDocument, openApiFileName, openApiServices, type OpenApiTarget } from '../scripts/openapi/document.ts';
import { openApiCommand } from '../scripts/openapi.ts';
import { childEnv, inProcess } from './evidence-harness.ts';

type Json = Record<string, unknown>;

/** One validator for every document: it compiles the OpenAPI meta-schema once, and resolves each $ref in the document. */
const validator = new Validator();

/** Base URLs with a path prefix, as real deployments have them (docs: DEPLOYMENT-NOTES), so that a dropped prefix shows. */
const target: OpenApiTarget = {
  baseUrls: {
    identity: 'https://api.example.com/business/identity-proofing/v1',
    stepup: 'https://api.example.com/business/step-up/v1',
    orders: 'https://api.example.com/commerce',
  },
  tokenUrls: {
    identity: 'https://login.example.com/identity-auth/v1/token',
    stepup: 'https://login.example.com/stepup-auth/v1/token',
  },
  routes: { assessment: 'PUT /v9/assess', stepUp: 'POST /sessions/step-up' },
};

type PostmanRequest = { folder: string; method: string; url: string; accessTokenUrl?: string };

/** A Postman collection's requests as Postman sends them: its variables resolved in each URL, path parameters `:name`. */
function requestsOf(collection: Json): PostmanRequest[] {
  const variables = new Map(
    ((collection.variable ?? []) as Array<{ key: string; value: string }>).map((v) => [v.key, v.value]),
  );
  const resolve = (text: string, depth = 0): string =>
    depth > 5
      ? text
      : text.replace(/\{\{([^}]+)\}\}/g, (_, name: string) => resolve(variables.get(name) ?? `{{${name}}}`, depth + 1));
  const found: PostmanRequest[] = [];
  const walk = (items: Json[], folder: string): void => {
    for (const item of items) {
      if (Array.isArray(item.item)) walk(item.item as Json[], folder || String(item.name));
      else {
        const request = item.request as {
          method: string;
          url: { host?: string[]; path?: string[] };
          auth?: { oauth2?: Array<{ key: string; value: string }> };
        };
        const path = request.url.path?.length ? `/${request.url.path.join('/')}` : '';
        const accessTokenUrl = request.auth?.oauth2?.find((entry) => entry.key === 'accessTokenUrl')?.value;
        found.push({
          folder,
          method: request.method,
          url: resolve(`${(request.url.host ?? []).join('.')}${path}`),
          ...(accessTokenUrl ? { accessTokenUrl } : {}),
        });
      }
    }
  };
  walk((collection.item ?? []) as Json[], '');
  return found;
}

/** The document loaded into openapi-to-postmanv2 (what Postman and Portman import with), webhooks included. */
function toPostman(document: Json): Promise<Json> {
  return new Promise((resolve, reject) => {
    convertV2({ type: 'json', data: document }, { includeWebhooks: true }, (error, result) => {
      if (error || !result?.result)
        reject(new Error(`openapi-to-postmanv2 refused the document: ${error?.message ?? result?.reason}`));
      else resolve(result.output?.[0]?.data as Json);
    });
  });
}

/** What the consumer must produce for a service: each operation at the service's base URL plus its route. */
function expectedRequests(service: ServiceName, configured: OpenApiTarget): Array<{ method: string; url: string }> {
  return operations
    .filter((op) => op.service === service)
    .map((op) => {
      const route = parseRoute(
        (op.routeEnv && configured.routes[op.id]) || op.defaultRoute || op.fixedRoute || '',
        op.pathParams,
      );
      return {
        method: route.method,
        url: `${configured.baseUrls[service]}${route.path.replace(/\{([^}]+)\}/g, ':$1')}`,
      };
    })
    .sort((a, b) => a.url.localeCompare(b.url));
}

test("openapi-to-postmanv2 sends each request of each document to the service's base URL plus its route, with the service's token endpoint", async () => {
  const withOrdersTokens = {
    ...target,
    tokenUrls: { ...target.tokenUrls, orders: 'https://login.example.com/orders-auth/v1/token' },
  };
  // An orders token endpoint of its own changes only the orders document.
  const runs = [...openApiServices.map((service) => [target, service] as const), [withOrdersTokens, 'orders'] as const];
  for (const [configured, service] of runs) {
    const requests = requestsOf(await toPostman(openApiDocument(service, configured)));
    const calls = requests.filter((r) => r.folder !== 'Webhooks');
    expect(
      calls.map(({ method, url }) => ({ method, url })).sort((a, b) => a.url.localeCompare(b.url)),
      service,
    ).toEqual(expectedRequests(service, configured));
    const tokenUrl =
      service === 'stepup'
        ? configured.tokenUrls.stepup
        : (configured.tokenUrls[service] ?? configured.tokenUrls.identity);
    expect(
      calls.map((r) => r.accessTokenUrl),
      `${service}: token endpoint`,
    ).toEqual(calls.map(() => tokenUrl));
    // The consumer lists the events in a folder of their own, as requests to the receiver (its URL is the customer's).
    expect(requests.filter((r) => r.folder === 'Webhooks').length, `${service}: webhook events`).toBe(
      service === 'stepup' ? 3 : 0,
    );
  }
});

// Its exit code 2 is the script's catch around this call.
test('a route variable that is not valid is refused, naming it', () => {
  expect(() =>
    openApiDocument('identity', { baseUrls: {}, tokenUrls: {}, routes: { documentRecords: 'GET /records' } }),
  ).toThrow(/^ROUTE_DOCUMENT_RECORDS=GET \/records is not valid: expected a path containing exactly the placeholder/);
});

// In process (openApiCommand is the script's whole work; started as its npm script starts it: cli.spec.ts).
test("npm run openapi writes one description per service, of the configured routes, each valid OpenAPI 3.1 with every reference resolving inside it, and orders' listing the part 7 errors", async () => {
  const work = mkdtempSync(join(tmpdir(), 'openapi-'));
  try {
    const out = join(work, 'openapi');
    const env = childEnv(work, {
      ROUTE_CASE_UPDATE: 'PATCH /cases',
      STEPUP_BASE_URL: 'https://api.example.com/business/step-up/v1',
    });
    const run = await inProcess(() => openApiCommand(['--out', out], env));
    expect(run.code, run.stderr).toBe(0);
    const read = (service: string) =>
      JSON.parse(readFileSync(join(out, openApiFileName(service)), 'utf8')) as Json & {
        servers: Json[];
        paths: Record<string, Record<string, Json>>;
      };
    expect(read('identity').paths['/cases']?.patch?.operationId).toBe('caseUpdate');
    expect(read('stepup').servers).toEqual([
      { url: 'https://api.example.com/business/step-up/v1', description: 'STEPUP_BASE_URL' },
    ]);
    expect(openApiServices.map((service) => Object.keys(read(service).paths).length > 0)).not.toContain(false);
    for (const service of openApiServices)
      expect(await validator.validate(read(service)), service).toEqual({ valid: true });
    const { responses } = read('orders').paths['/v2/orders']?.post as { responses: Json };
    expect(Object.keys(responses).sort()).toEqual('400 401 403 404 409 500 503'.split(' '));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
