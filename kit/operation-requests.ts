import { randomUUID } from 'node:crypto';
import { operation, type OperationId } from '../catalog/catalog.ts';
import type { RoutedOperationId, SuiteConfig } from './config/suite-config.ts';
import { expandPath } from './config/route.ts';
import type { HeaderList } from './http/exchange.ts';
import type { SendOptions } from './http/sender.ts';
import type { Credential, TokenProvider } from './tokens.ts';
import { PreconditionFailure } from './verdict.ts';

/** What shapes a request of an operation besides the operation itself: its body, the headers left out or set, whose. */
export interface RequestOptions {
  /** A JSON body; rawBody is sent as is instead. */
  body?: unknown;
  rawBody?: string | Buffer;
  pathParams?: Record<string, string>;
  query?: Record<string, string>;
  /** Header names (lower case) to leave out of the request. */
  omit?: string[];
  /** Headers to send instead of the defaults, or in addition to them. */
  set?: Record<string, string>;
  /**
   * How each header name is written on the wire (they are lower case otherwise): a request variant that HTTP says is
   * the same request (RFC 9110 §5.1: field names are case-insensitive), e.g. `X-Client-Id` as Go writes it.
   */
  headerCase?: (name: string) => string;
  /** Act as the configured reseller: its credentials and client id. */
  asReseller?: boolean;
  /** Use this API key's token instead of the default one (e.g. a client without entitlements). */
  apiKey?: string;
  retry?: boolean;
  note?: string;
}

/**
 * Stops the test as blocked by the target (Verdict.blocked); notTried: the run's token had failed before the test asked
 * for it (Verdict.notTried).
 */
export type Blocked = (what: string, actual: string, notTried: boolean) => never;

/**
 * The request of an operation of part 4 as the configuration places it: its route, the headers operations.json lists
 * for it (a bearer token of its service from the run's tokens), its body; unless told to omit or replace a header.
 */
export class OperationRequests {
  constructor(
    protected readonly config: SuiteConfig,
    protected readonly tokens: TokenProvider,
    private readonly blocked: Blocked,
  ) {}

  url(id: OperationId, options: Pick<RequestOptions, 'pathParams' | 'query'> = {}): string {
    const op = operation(id);
    const base = this.config.services[op.service].baseUrl;
    const path = op.fixedRoute
      ? op.fixedRoute.split(' ')[1]
      : expandPath(this.config.routes[id as RoutedOperationId], options.pathParams ?? {});
    const query =
      options.query && Object.keys(options.query).length > 0 ? `?${new URLSearchParams(options.query).toString()}` : '';
    return `${base}${path}${query}`;
  }

  method(id: OperationId): string {
    const op = operation(id);
    return op.fixedRoute ? (op.fixedRoute.split(' ')[0] as string) : this.config.routes[id as RoutedOperationId].method;
  }

  /** The headers operations.json lists as sent for the operation (its mandatory ones and part 5.6's), then any extra set. */
  async headers(id: OperationId, options: RequestOptions = {}): Promise<HeaderList> {
    const omitted = new Set((options.omit ?? []).map((name) => name.toLowerCase()));
    const set = Object.fromEntries(
      Object.entries(options.set ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
    );
    const defaults = operation(id).sentHeaders;
    const headers: HeaderList = [];
    for (const name of defaults) {
      if (omitted.has(name)) continue;
      headers.push([name, set[name] ?? (await this.headerValue(name, id, options))]);
    }
    for (const [name, value] of Object.entries(set))
      if (!defaults.includes(name) && !omitted.has(name)) headers.push([name, value]);
    const spell = options.headerCase;
    return spell ? headers.map(([name, value]) => [spell(name), value]) : headers;
  }

  private async headerValue(name: string, id: OperationId, options: RequestOptions): Promise<string> {
    switch (name) {
      case 'x-client-id':
        return options.asReseller ? this.reseller().clientId : this.config.clientId;
      case 'x-correlation-id':
        return randomUUID();
      case 'content-type':
        return 'application/json';
      case 'authorization':
        return `Bearer ${await this.tokenFor(id, options)}`;
      default:
        throw new Error(`catalog/operations.json lists ${name} as sent for ${id}, but the Api has no value for it`);
    }
  }

  /** The request a call sends: method, URL, headers and body, and a note saying what it leaves out. */
  async prepared(id: OperationId, options: RequestOptions = {}): Promise<SendOptions> {
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const note = [options.note, ...(options.omit ?? []).map((h) => `without ${h}`)].filter(Boolean).join('; ');
    return {
      label: id,
      method: this.method(id),
      url: this.url(id, options),
      headers: await this.headers(id, options),
      ...(body !== undefined ? { body } : {}),
      ...(note ? { note } : {}),
      ...(options.retry === false ? { retry: false } : {}),
    };
  }

  protected credential(id: OperationId, options: Pick<RequestOptions, 'asReseller' | 'apiKey'>): Credential {
    const target = this.config.services[operation(id).service];
    return {
      tokenUrl: target.tokenUrl,
      apiKey: options.apiKey ?? (options.asReseller ? this.reseller().apiKey : target.apiKey),
    };
  }

  async tokenFor(id: OperationId, options: Pick<RequestOptions, 'asReseller' | 'apiKey'> = {}): Promise<string> {
    try {
      return await this.tokens.token(this.credential(id, options));
    } catch (error) {
      if (error instanceof PreconditionFailure)
        this.blocked(`no access token for the ${operation(id).service} service`, error.message, error.notTried);
      throw error;
    }
  }

  /** The run's token for the operation's service without standing on it: undefined when none can be had. */
  async tokenIfAny(
    id: OperationId,
    options: Pick<RequestOptions, 'asReseller' | 'apiKey'> = {},
  ): Promise<string | undefined> {
    try {
      return await this.tokens.token(this.credential(id, options));
    } catch (error) {
      if (error instanceof PreconditionFailure) return undefined;
      throw error;
    }
  }

  private reseller() {
    if (!this.config.reseller)
      throw new Error('No reseller is configured (RESELLER_API_KEY); the reseller checks should have been skipped');
    return this.config.reseller;
  }
}
