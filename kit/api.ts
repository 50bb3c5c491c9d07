import { randomUUID } from 'node:crypto';
import { operation, type OperationId } from '../catalog/catalog.ts';
import type { RoutedOperationId, SuiteConfig } from './config/suite-config.ts';
import { expandPath } from './config/route.ts';
import type { AtOnce, SendOptions, Sender } from './http/sender.ts';
import type { Exchange } from './http/exchange.ts';
import type { HeaderList } from './http/exchange.ts';
import type { Credential, TokenProvider } from './tokens.ts';
import { PreconditionFailure } from './verdict.ts';
import type { MessageChannel } from './checks/session-channel.ts';
import type { StepUpGate, StepUpTicket } from './webhooks/run-events.ts';
import { isObject } from '../schemas/json-value.ts';

export interface CallOptions {
  /** A JSON body; rawBody is sent as is instead. */
  body?: unknown;
  rawBody?: string | Buffer;
  pathParams?: Record<string, string>;
  query?: Record<string, string>;
  /** Header names (lower case) to leave out of the request. */
  omit?: string[];
  /** Headers to send instead of the defaults, or in addition to them. */
  set?: Record<string, string>;
  /** Act as the configured reseller: its credentials and client id. */
  asReseller?: boolean;
  /** Use this API key's token instead of the default one (e.g. a client without entitlements). */
  apiKey?: string;
  retry?: boolean;
  note?: string;
  /** A step-up's place on its channel, taken by the caller (a webhook flow judging its event); else the Api takes one. */
  stepUp?: StepUpTicket;
}

/** Stops the test as blocked by the target (Verdict.blocked). */
export type Blocked = (what: string, actual: string) => never;

export interface ApiParts {
  config: SuiteConfig;
  http: Sender;
  tokens: TokenProvider;
  /** Attaches an exchange to the test as evidence. */
  record: (exchange: Exchange) => Promise<void>;
  /** Reports a call as a step of the test. */
  step: <T>(title: string, body: () => Promise<T>) => Promise<T>;
  /** How the test stops when no token can be had. */
  blocked: Blocked;
  /**
   * The run's flows, when they cause events: every step-up on one channel waits for it and is registered, and every
   * request that may start a document verification session is registered beside them.
   */
  stepUps?: StepUpGate;
  /** The test the calls are made for, as the summary names it ("stepup › a step-up by email …"). */
  label?: string;
}

/** Sends the operations of part 4 with the headers each one lists, unless told to omit or replace one. */
export class Api {
  private readonly config: SuiteConfig;
  private readonly http: Sender;
  private readonly tokens: TokenProvider;
  private readonly record: ApiParts['record'];
  private readonly step: ApiParts['step'];
  private readonly blocked: Blocked;
  private readonly stepUps: StepUpGate | undefined;
  private readonly label: string | undefined;
  private readonly watchers: Array<(id: OperationId, exchange: Exchange) => void> = [];

  constructor(parts: ApiParts) {
    ({
      config: this.config,
      http: this.http,
      tokens: this.tokens,
      record: this.record,
      step: this.step,
      blocked: this.blocked,
      stepUps: this.stepUps,
      label: this.label,
    } = parts);
  }

  /** Hands every answer the Api receives from now on to `watcher` (the orders fixture judges error answers so). */
  watch(watcher: (id: OperationId, exchange: Exchange) => void): void {
    this.watchers.push(watcher);
  }

  url(id: OperationId, options: Pick<CallOptions, 'pathParams' | 'query'> = {}): string {
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
  async headers(id: OperationId, options: CallOptions = {}): Promise<HeaderList> {
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
    return headers;
  }

  private async headerValue(name: string, id: OperationId, options: CallOptions): Promise<string> {
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

  async call(id: OperationId, options: CallOptions = {}): Promise<Exchange> {
    const ticket = await this.flowTicket(id, options);
    if (!this.stepUps || !ticket) return this.send(id, options);
    let accepted = false;
    let inquiryId: string | undefined;
    try {
      const exchange = await this.send(id, options);
      accepted = exchange.status >= 200 && exchange.status < 300;
      const answered = exchange.json;
      if (id === 'documentVerification' && isObject(answered) && typeof answered['inquiryId'] === 'string')
        inquiryId = answered['inquiryId'];
      return exchange;
    } finally {
      await this.stepUps.answered(ticket, accepted, inquiryId);
    }
  }

  /**
   * The call's place among the run's flows: a ticket the caller took is answered whatever the body; else a step-up on
   * one message channel takes its own, and a document verification, or a step-up with images alone, is registered as a
   * request that may start a document verification session.
   */
  private async flowTicket(id: OperationId, options: CallOptions): Promise<StepUpTicket | undefined> {
    if (!this.stepUps || (id !== 'stepUp' && id !== 'documentVerification')) return undefined;
    if (options.stepUp) return options.stepUp;
    const body = options.body ?? parsedRaw(options.rawBody);
    const label = this.label ? { label: this.label } : {};
    const inquiryId = isObject(body) && typeof body['inquiryId'] === 'string' ? { inquiryId: body['inquiryId'] } : {};
    if (id === 'documentVerification') return this.stepUps.beginDocument({ ...inquiryId, ...label });
    const channel = messageChannelOf(body);
    const images = isObject(body) && body['images'] !== undefined && body['images'] !== null;
    if (channel) return this.stepUps.begin(channel, 'none', { images, ...label });
    return images ? this.stepUps.beginDocument({ ...inquiryId, ...label, stepUp: true }) : undefined;
  }

  private async send(id: OperationId, options: CallOptions): Promise<Exchange> {
    const method = this.method(id);
    const url = this.url(id, options);
    return this.step(
      `${id}: ${method} ${new URL(url).pathname}${options.note ? ` (${options.note})` : ''}`,
      async () => {
        const headers = await this.headers(id, options);
        const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
        const note = [options.note, ...(options.omit ?? []).map((h) => `without ${h}`)].filter(Boolean).join('; ');
        const request = {
          label: id,
          method,
          url,
          headers,
          ...(body !== undefined ? { body } : {}),
          ...(note ? { note } : {}),
          ...(options.retry === false ? { retry: false } : {}),
        };
        const tokenFrom = {
          url: this.credential(id, options).tokenUrl,
          keyVariable: options.asReseller ? 'RESELLER_API_KEY' : 'API_KEY',
        };
        const exchange = { ...(await this.http.send(request)), tokenFrom };
        await this.record(exchange);
        const renewed = exchange.status === 401 ? await this.renewedAuthorization(id, options, headers) : undefined;
        if (!renewed) return this.answered(id, exchange);
        // The run's token was refused: it is fetched again once (a token without expires_in lives until its first 401).
        const again = {
          ...(await this.http.send({
            ...request,
            headers: headers.map(([name, value]) => [name, name === 'authorization' ? renewed : value]),
            note: [note, 'sent again with a new token after a 401'].filter(Boolean).join('; '),
          })),
          tokenFrom,
        };
        await this.record(again);
        return this.answered(id, again);
      },
    );
  }

  /** The request a call sends, without sending it: for calls sent together (callAtOnce). */
  async prepared(id: OperationId, options: CallOptions = {}): Promise<SendOptions> {
    const headers = await this.headers(id, options);
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    return {
      label: id,
      method: this.method(id),
      url: this.url(id, options),
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(options.note ? { note: options.note } : {}),
      retry: false,
    };
  }

  /**
   * Sends the calls truly at once, each on its own connection (Sender.sendAtOnce), without retries or a token renewed
   * after a 401: every answer is the call's own. Answers are recorded and handed to the watchers like any other, but a
   * 429.
   */
  async callAtOnce(calls: ReadonlyArray<{ id: OperationId; options?: CallOptions }>): Promise<AtOnce[]> {
    const ids = [...new Set(calls.map((c) => c.id))].join(', ');
    return this.step(`${calls.length} calls at once: ${ids}`, async () => {
      const requests = await Promise.all(calls.map((c) => this.prepared(c.id, c.options)));
      const answers = await this.http.sendAtOnce(requests);
      for (const [index, answer] of answers.entries()) {
        if (!('exchange' in answer)) continue;
        await this.record(answer.exchange);
        // A 429 is not an answer to judge (part 8 shows no limits): its round is discarded and counted apart.
        if (answer.exchange.status !== 429) this.answered(calls[index]?.id as OperationId, answer.exchange);
      }
      return answers;
    });
  }

  private answered(id: OperationId, exchange: Exchange): Exchange {
    for (const watcher of this.watchers) watcher(id, exchange);
    return exchange;
  }

  /** A new Authorization value when the request carried the run's own token (not one a check chose) and a new one can be had. */
  private async renewedAuthorization(
    id: OperationId,
    options: CallOptions,
    sent: HeaderList,
  ): Promise<string | undefined> {
    if (options.set && Object.keys(options.set).some((name) => name.toLowerCase() === 'authorization'))
      return undefined;
    const stale = sent.find(([name]) => name === 'authorization')?.[1]?.replace(/^Bearer /, '');
    if (!stale) return undefined;
    const token = await this.tokens.renewAfter401(this.credential(id, options), stale);
    return token ? `Bearer ${token}` : undefined;
  }

  private credential(id: OperationId, options: Pick<CallOptions, 'asReseller' | 'apiKey'>): Credential {
    const target = this.config.services[operation(id).service];
    return {
      tokenUrl: target.tokenUrl,
      apiKey: options.apiKey ?? (options.asReseller ? this.reseller().apiKey : target.apiKey),
    };
  }

  async tokenFor(id: OperationId, options: Pick<CallOptions, 'asReseller' | 'apiKey'> = {}): Promise<string> {
    try {
      return await this.tokens.token(this.credential(id, options));
    } catch (error) {
      if (error instanceof PreconditionFailure)
        this.blocked(`no access token for the ${operation(id).service} service`, error.message);
      throw error;
    }
  }

  private reseller() {
    if (!this.config.reseller)
      throw new Error('No reseller is configured (RESELLER_API_KEY); the reseller checks should have been skipped');
    return this.config.reseller;
  }
}

/** A raw body's JSON value, when it is JSON (a step-up sent with an odd Content-Type may still start a session). */
function parsedRaw(raw: string | Buffer | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw.toString()) as unknown;
  } catch {
    return undefined;
  }
}

/** The one message channel a step-up body names (a phone number or an email, not both): the sessions it may start. */
function messageChannelOf(body: unknown): MessageChannel | undefined {
  if (!isObject(body)) return undefined;
  const phone = typeof body['phoneNumber'] === 'string';
  const email = typeof body['email'] === 'string';
  if (phone === email) return undefined;
  return phone ? 'phone' : 'email';
}
