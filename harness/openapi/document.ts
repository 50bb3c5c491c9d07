import { interfaceInfo, operations, orderErrorTable, tokenEndpoint, tokenServiceOf, type Operation, type ServiceName, type TokenServiceName } from '../../catalog/catalog.ts';
import { schemaDocument, schemaIds } from '../../schemas/registry.ts';
import { parseRoute, type Route } from '../config/route.ts';

/**
 * An OpenAPI 3.1 description of the interface as configured: the routes from the ROUTE_* variables (or their
 * defaults), the servers from the base URL variables, the bodies from schemas/ (bundled under components.schemas),
 * the OAuth 2.0 client credentials scheme of part 5, the part 7 error responses of POST /v2/orders and the three
 * part 6 events under the top-level `webhooks`. Every fact comes from the catalog and schemas/; nothing is restated.
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
  tokenUrls: Partial<Record<TokenServiceName, string>>;
  /** Route text per routed operation ("METHOD /path"), when configured. */
  routes: Partial<Record<string, string>>;
}

function serverOf(service: ServiceName, target: OpenApiTarget): Json {
  const configured = target.baseUrls[service];
  const variable = `${service.toUpperCase()}_BASE_URL`;
  return configured
    ? { url: configured, description: `${variable}` }
    : { url: `{${service}BaseUrl}`, description: `${variable} (not configured)`, variables: { [`${service}BaseUrl`]: { default: `https://${service}.example`, description: variable } } };
}

function headerParameters(op: Operation): Json[] {
  const named = (op.mandatoryHeaders ?? []).filter((h) => h.startsWith('x-'));
  return [
    ...named.map((name) => ({ name, in: 'header', required: true, schema: { type: 'string', minLength: 1 } })),
    ...(op.optionalHeaders ?? []).map((name) => ({ name, in: 'header', required: false, schema: { type: 'string', minLength: 1 } })),
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
    ...(op.hasBody && op.requestSchema ? { requestBody: { required: true, content: { 'application/json': { schema: ref(op.requestSchema) } } } } : {}),
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
    const said = row.messages?.map((m) => `"${m}"`) ?? (row.messagePrefix ? [`"${row.messagePrefix}<reason>"`] : ['a message saying the service is unavailable']);
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
    responses: Object.fromEntries([...byStatus].map(([status, lines]) => [String(status), { description: lines.join('\n'), content: envelope }])),
    security: [{ [securitySchemeOf(op.service)]: [tokenEndpoint.scope] }],
  };
}

/** The OpenAPI 3.1 document of the configured interface. Throws naming the variable of a route that is not valid. */
export function openApiDocument(target: OpenApiTarget): Json {
  const paths: Record<string, Json> = {};
  for (const op of operations) {
    let route: Route;
    if (op.routeEnv && op.defaultRoute) {
      const text = target.routes[op.id] ?? op.defaultRoute;
      try {
        route = parseRoute(text, op.pathParams);
      } catch (error) {
        throw new Error(`${op.routeEnv}=${text} is not valid: expected ${(error as Error).message}`);
      }
    } else route = parseRoute(op.fixedRoute ?? '', op.pathParams);
    const item = (paths[route.path] ??= { servers: [serverOf(op.service, target)] });
    item[route.method.toLowerCase()] = op.id === 'createOrder' ? orderOperation(op) : operationObject(op);
  }
  const components = Object.fromEntries(
    schemaIds.map(componentName).filter((name) => !NOT_INTERFACE.has(name)).map((name) => [name, asComponent(schemaDocument(`${SCHEMA_BASE}${name}.schema.json`))]),
  );
  const flow = (service: TokenServiceName) => ({
    type: 'oauth2',
    description: `Part 5: OAuth 2.0 client credentials, HTTP Basic with the API key at the token endpoint (${service}); the only scope is ${tokenEndpoint.scope}.`,
    flows: { clientCredentials: { tokenUrl: target.tokenUrls[service] ?? `https://${service}.example/v1/token`, scopes: { [tokenEndpoint.scope]: 'The only scope.' } } },
  });
  const webhooks = Object.fromEntries(
    Object.entries(EVENT_SCHEMAS).map(([name, file]) => [
      name,
      {
        post: {
          summary: (schemaDocument(`${SCHEMA_BASE}${file}.schema.json`) as { title?: string }).title,
          description: 'Part 6: sent by the step-up service to the customer\'s webhook_callback_uri; the customer answers with a JSON body, shown as an empty object. Retries, signing and the expected status are not shown.',
          requestBody: { required: true, content: { 'application/json': { schema: ref(`${SCHEMA_BASE}${file}.schema.json`) } } },
          responses: { default: { description: 'A JSON body, shown as an empty object.', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: { title: interfaceInfo.title, version: interfaceInfo.version, description: 'Generated by npm run openapi from the conformance suite\'s catalog and schemas, with the routes and servers as configured.' },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    webhooks,
    components: { schemas: components, securitySchemes: { auth: flow('identity'), authStepUp: flow('stepup') } },
  };
}
