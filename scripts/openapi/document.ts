import {
  interfaceInfo,
  operations,
  orderErrorTable,
  tokenEndpoint,
  tokenServiceOf,
  type Operation,
  type ServiceName,
} from '../../catalog/catalog.ts';
import { schemaDocument, schemaIds } from '../../schemas/registry.ts';
import { parseRoute, type Route } from '../../kit/config/route.ts';

/**
 * OpenAPI 3.1 descriptions of the interface as configured, one per service (identity, step-up, orders), each with
 * its own top-level `servers`: tools such as openapi-to-postman (Postman, Portman) ignore the servers of a path item
 * and would send every request of a single document to `/`. The routes come from the ROUTE_* variables (or their
 * defaults), the server from the service's base URL variable, the bodies from schemas/ (the components each document
 * references), the OAuth 2.0 client credentials scheme of part 5, the part 7 error responses of POST /v2/orders, and
 * the three part 6 events under `webhooks` of the step-up service, which sends them. Every fact comes from the
 * catalog and schemas/; nothing is restated.
 */

type Json = Record<string, unknown>;
const SCHEMA_BASE = 'https://conformance.example/schemas/';
const EVENT_SCHEMAS: Record<string, string> = {
  documentOnboarding: 'webhook-document-onboarding',
  documentResults: 'webhook-document-results',
  verificationSession: 'webhook-verification-session',
};
/** The schemas of the configuration and of the suite's own files, which are not part of the interface. */
const NOT_INTERFACE = new Set(['config', 'ledger']);

function componentName(schemaId: string): string {
  return schemaId.slice(SCHEMA_BASE.length).replace(/\.schema\.json$/, '');
}

/** A reference to a schema of schemas/ (with its #fragment, if any) as bundled under components.schemas. */
const ref = (schemaRef: string) => {
  const [file, fragment = ''] = schemaRef.split('#');
  return { $ref: `#/components/schemas/${componentName(file as string)}${fragment}` };
};
/** A schema of schemas/ as a component: $id and $schema dropped, references to other files pointed at their component. */
function asComponent(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asComponent);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$id' || key === '$schema') continue;
    if (key === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMA_BASE)) {
      out[key] = ref(inner).$ref;
    } else out[key] = asComponent(inner);
  }
  return out;
}

const securitySchemeOf = (service: ServiceName) => (tokenServiceOf(service) === 'identity' ? 'auth' : 'authStepUp');

export interface OpenApiTarget {
  /** Base URL per service, when configured. */
  baseUrls: Partial<Record<ServiceName, string>>;
  /** Token endpoint per service, when configured (the orders service's defaults to its token service's). */
  tokenUrls: Partial<Record<ServiceName, string>>;
  /** Route text per routed operation ("METHOD /path"), when configured. */
  routes: Partial<Record<string, string>>;
}

/** The part 6 events go in the document of the service that sends them. */
const EVENT_SENDER: ServiceName = 'stepup';
const SERVICE_TITLES: Record<ServiceName, string> = {
  identity: 'identity proofing service',
  stepup: 'step-up service',
  orders: 'order risk evaluation endpoint',
};

export const openApiServices: readonly ServiceName[] = ['identity', 'stepup', 'orders'];

function serverOf(service: ServiceName, target: OpenApiTarget): Json {
  const configured = target.baseUrls[service];
  const variable = `${service.toUpperCase()}_BASE_URL`;
  return configured
    ? { url: configured, description: variable }
    : {
        url: `{${service}BaseUrl}`,
        description: `${variable} (not configured)`,
        variables: { [`${service}BaseUrl`]: { default: `https://${service}.example`, description: variable } },
      };
}

function headerParameters(op: Operation): Json[] {
  const named = (op.mandatoryHeaders ?? []).filter((h) => h.startsWith('x-'));
  return [
    ...named.map((name) => ({ name, in: 'header', required: true, schema: { type: 'string', minLength: 1 } })),
    ...(op.optionalHeaders ?? []).map((name) => ({
      name,
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 1 },
    })),
  ];
}

function operationObject(op: Operation): Json {
  const parameters: Json[] = [
    ...op.pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string', minLength: 1 } })),
    ...(op.queryParams ?? []).map((q) => ({ name: q.name, in: 'query', required: false, schema: ref(q.schema) })),
    ...headerParameters(op),
  ];
  return {
    operationId: op.id,
    summary: op.title,
    description: `Part ${op.part} of the interface document. The method and path are configured (${op.routeEnv}); the document does not show them, nor the success status.`,
    tags: [op.service],
    ...(parameters.length ? { parameters } : {}),
    ...(op.hasBody && op.requestSchema
      ? { requestBody: { required: true, content: { 'application/json': { schema: ref(op.requestSchema) } } } }
      : {}),
    responses: {
      '2XX': {
        description: 'Success; the status code is not shown by the document.',
        ...(op.responseSchema ? { content: { 'application/json': { schema: ref(op.responseSchema) } } } : {}),
      },
    },
    security: [{ [securitySchemeOf(op.service)]: [tokenEndpoint.scope] }],
  };
}

function orderOperation(op: Operation): Json {
  const byStatus = new Map<number, string[]>();
  for (const row of orderErrorTable) {
    const said =
      row.messages?.map((m) => `"${m}"`) ??
      (row.messagePrefix ? [`"${row.messagePrefix}<reason>"`] : ['a message saying the service is unavailable']);
    const line = `errorType ${row.errorTypes?.join(' or ') ?? '(other)'}: ${said.join('; ')}`;
    byStatus.set(row.status, [...(byStatus.get(row.status) ?? []), line]);
  }
  const envelope = { 'application/json': { schema: ref(`${SCHEMA_BASE}order-error-envelope.schema.json`) } };
  return {
    operationId: op.id,
    summary: op.title,
    description: `Part ${op.part}: only the error behaviour is given (part 7); request and response bodies are not shown.`,
    tags: [op.service],
    parameters: headerParameters(op),
    responses: Object.fromEntries(
      [...byStatus].map(([status, lines]) => [String(status), { description: lines.join('\n'), content: envelope }]),
    ),
    security: [{ [securitySchemeOf(op.service)]: [tokenEndpoint.scope] }],
  };
}

function routeOf(op: Operation, target: OpenApiTarget): Route {
  if (!op.routeEnv || !op.defaultRoute) return parseRoute(op.fixedRoute ?? '', op.pathParams);
  const text = target.routes[op.id] ?? op.defaultRoute;
  try {
    return parseRoute(text, op.pathParams);
  } catch (error) {
    throw new Error(`${op.routeEnv}=${text} is not valid: expected ${(error as Error).message}`);
  }
}

function webhooksObject(): Json {
  return Object.fromEntries(
    Object.entries(EVENT_SCHEMAS).map(([name, file]) => [
      name,
      {
        post: {
          summary: (schemaDocument(`${SCHEMA_BASE}${file}.schema.json`) as { title?: string }).title,
          description:
            "Part 6: sent by the step-up service to the customer's webhook_callback_uri; the customer answers with a JSON body, shown as an empty object. Retries, signing and the expected status are not shown.",
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref(`${SCHEMA_BASE}${file}.schema.json`) } },
          },
          responses: {
            default: {
              description: 'A JSON body, shown as an empty object.',
              content: { 'application/json': { schema: { type: 'object' } } },
            },
          },
        },
      },
    ]),
  );
}

/** The components a document needs: those its paths and webhooks reference, and those they reference in turn. */
function componentsReferencedBy(value: unknown): Json {
  const all = new Map(
    schemaIds
      .map(componentName)
      .filter((name) => !NOT_INTERFACE.has(name))
      .map((name) => [name, asComponent(schemaDocument(`${SCHEMA_BASE}${name}.schema.json`))]),
  );
  const needed = new Map<string, unknown>();
  const visit = (inner: unknown): void => {
    if (Array.isArray(inner)) inner.forEach(visit);
    else if (inner && typeof inner === 'object') {
      for (const [key, child] of Object.entries(inner)) {
        const name =
          key === '$ref' && typeof child === 'string' ? /^#\/components\/schemas\/([^/]+)/.exec(child)?.[1] : undefined;
        if (name && !needed.has(name) && all.has(name)) {
          needed.set(name, all.get(name));
          visit(all.get(name));
        } else visit(child);
      }
    }
  };
  visit(value);
  return Object.fromEntries([...needed].sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The OpenAPI 3.1 document of one service as configured: its operations under its own top-level server, and the
 * part 6 events when it is the service that sends them. Throws naming the variable of a route that is not valid.
 */
export function openApiDocument(service: ServiceName, target: OpenApiTarget): Json {
  const paths: Record<string, Json> = {};
  for (const op of operations.filter((o) => o.service === service)) {
    const route = routeOf(op, target);
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = op.id === 'createOrder' ? orderOperation(op) : operationObject(op);
  }
  const tokenService = tokenServiceOf(service);
  const scheme = securitySchemeOf(service);
  const webhooks = service === EVENT_SENDER ? { webhooks: webhooksObject() } : {};
  return {
    openapi: '3.1.0',
    info: {
      title: `${interfaceInfo.title}: ${SERVICE_TITLES[service]}`,
      version: interfaceInfo.version,
      description: `Generated by npm run openapi from the conformance suite's catalog and schemas, with the routes and the server as configured. One document per service, each with its own server; this one is the ${SERVICE_TITLES[service]}.`,
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [serverOf(service, target)],
    paths,
    ...webhooks,
    components: {
      schemas: componentsReferencedBy({ paths, ...webhooks }),
      securitySchemes: {
        [scheme]: {
          type: 'oauth2',
          description: `Part 5: OAuth 2.0 client credentials, HTTP Basic with the API key at the token endpoint of the ${SERVICE_TITLES[tokenService]}; the only scope is ${tokenEndpoint.scope}.`,
          flows: {
            clientCredentials: {
              tokenUrl:
                target.tokenUrls[service] ??
                target.tokenUrls[tokenService] ??
                `https://${tokenService}.example/v1/token`,
              scopes: { [tokenEndpoint.scope]: 'The only scope.' },
            },
          },
        },
      },
    },
  };
}

/** One document per service, in the order of openApiServices. */
export function openApiDocuments(target: OpenApiTarget): Record<ServiceName, Json> {
  return Object.fromEntries(openApiServices.map((service) => [service, openApiDocument(service, target)])) as Record<
    ServiceName,
    Json
  >;
}

/** The file npm run openapi writes a service's document to. */
export const openApiFileName = (service: string) => `openapi-${service}.json`;
