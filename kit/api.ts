import type { OperationId } from '../catalog/catalog.ts';
import type { SuiteConfig } from './config/suite-config.ts';
import type { AtOnce, Sender } from './http/sender.ts';
import type { Exchange, HeaderList } from './http/exchange.ts';
import type { TokenProvider } from './tokens.ts';
import type { MessageChannel } from './webhooks/session-channel.ts';
import type { StepUpGate, StepUpTicket } from './webhooks/run-events.ts';
import { isObject } from '../schemas/json-value.ts';
import { OperationRequests, type Blocked, type RequestOptions } from './operation-requests.ts';
import { noteWrite, readShowingWrites, type ReadWait } from './reads-after-writes.ts';
import type { SharedPreconditions } from './shared-preconditions.ts';
import { accepted, rateLimited } from './http/consequence.ts';

export type { Blocked };

export interface CallOptions extends RequestOptions {
  /** A step-up's place on its channel, taken by the caller (a webhook flow judging its event); else the Api takes one. */
  stepUp?: StepUpTicket;
  /** A fetch by case id that must show these tags, not every write of the run (kit/reads-after-writes.ts). */
  mark?: readonly string[];
}

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
  /** The run's memo, whose breaker stops reads from waiting out READ_AFTER_WRITE_TIMEOUT_MS again (kit/reads-after-writes.ts). */
  shared?: SharedPreconditions;
  /** Told of every read sent again until it showed the run's write (the summary's read waits). */
  onReadWait?: (wait: ReadWait) => void;
}

/**
 * Sends the operations of part 4 (their requests as OperationRequests builds them): each call a step of the test and
 * recorded as its evidence, sent once more with a new token after a 401 of the run's own, a step-up registered with
 * the run's flows; every answer handed to the watchers.
 */
export class Api extends OperationRequests {
  private readonly http: Sender;
  private readonly record: ApiParts['record'];
  private readonly step: ApiParts['step'];
  private readonly stepUps: StepUpGate | undefined;
  private readonly label: string | undefined;
  private readonly reReads: Pick<ApiParts, 'shared' | 'onReadWait'>;
  private readonly watchers: Array<(id: OperationId, exchange: Exchange) => void> = [];

  constructor(parts: ApiParts) {
    super(parts.config, parts.tokens, parts.blocked);
    ({ http: this.http, record: this.record, step: this.step, stepUps: this.stepUps, label: this.label } = parts);
    this.reReads = {
      ...(parts.shared ? { shared: parts.shared } : {}),
      ...(parts.onReadWait ? { onReadWait: parts.onReadWait } : {}),
    };
  }

  /** Hands every answer the Api receives from now on to `watcher` (the orders fixture judges error answers so). */
  watch(watcher: (id: OperationId, exchange: Exchange) => void): void {
    this.watchers.push(watcher);
  }

  /**
   * One call of the operation. A write answered a success is noted, and a read that must show the run's writes is sent
   * again while it shows an earlier state (kit/reads-after-writes.ts): its last answer is the call's.
   */
  async call(id: OperationId, options: CallOptions = {}): Promise<Exchange> {
    const exchange = await this.flowCall(id, options);
    noteWrite(id, options, exchange);
    return readShowingWrites(
      id,
      options,
      exchange,
      (attempt) =>
        this.send(id, {
          ...options,
          note: [options.note, `read again (${attempt + 1}): reads may trail writes`].filter(Boolean).join('; '),
        }),
      {
        config: this.config,
        ...(this.reReads.shared ? { shared: this.reReads.shared } : {}),
        ...(this.reReads.onReadWait ? { onWait: this.reReads.onReadWait } : {}),
      },
    );
  }

  private async flowCall(id: OperationId, options: CallOptions): Promise<Exchange> {
    const ticket = await this.flowTicket(id, options);
    if (!this.stepUps || !ticket) return this.send(id, options);
    let taken = false;
    let inquiryId: string | undefined;
    try {
      const exchange = await this.send(id, options);
      taken = accepted(exchange);
      const answered = exchange.json;
      if (id === 'documentVerification' && isObject(answered) && typeof answered['inquiryId'] === 'string')
        inquiryId = answered['inquiryId'];
      return exchange;
    } finally {
      await this.stepUps.answered(ticket, taken, inquiryId);
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
        const request = await this.prepared(id, options);
        const tokenFrom = {
          url: this.credential(id, options).tokenUrl,
          keyVariable: options.asReseller ? 'RESELLER_API_KEY' : 'API_KEY',
        };
        const exchange = { ...(await this.http.send(request)), tokenFrom };
        await this.record(exchange);
        const renewed =
          exchange.status === 401 ? await this.renewedAuthorization(id, options, request.headers) : undefined;
        if (!renewed) return this.answered(id, exchange);
        // The run's token was refused: it is fetched again once (a token without expires_in lives until its first 401).
        const again = {
          ...(await this.http.send({
            ...request,
            headers: request.headers.map(([name, value]) => [name, isAuthorization(name) ? renewed : value]),
            note: [request.note, 'sent again with a new token after a 401'].filter(Boolean).join('; '),
          })),
          tokenFrom,
        };
        await this.record(again);
        return this.answered(id, again);
      },
    );
  }

  /**
   * Sends the calls truly at once, each on its own connection (Sender.sendAtOnce), without retries or a token renewed
   * after a 401: every answer is the call's own. Answers are recorded and handed to the watchers like any other, but a
   * 429.
   */
  async callAtOnce(calls: ReadonlyArray<{ id: OperationId; options?: CallOptions }>): Promise<AtOnce[]> {
    const ids = [...new Set(calls.map((c) => c.id))].join(', ');
    return this.step(`${calls.length} calls at once: ${ids}`, async () => {
      const requests = await Promise.all(calls.map((c) => this.prepared(c.id, { ...c.options, retry: false })));
      const answers = await this.http.sendAtOnce(requests);
      for (const [index, answer] of answers.entries()) {
        if (!('exchange' in answer)) continue;
        await this.record(answer.exchange);
        // A 429 is not an answer to judge (part 8 shows no limits): its round is discarded and counted apart.
        if (rateLimited(answer.exchange)) continue;
        const call = calls[index] as (typeof calls)[number];
        noteWrite(call.id, call.options ?? {}, answer.exchange);
        this.answered(call.id, answer.exchange);
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
    if (options.set && Object.keys(options.set).some(isAuthorization)) return undefined;
    const stale = sent.find(([name]) => isAuthorization(name))?.[1]?.replace(/^Bearer /, '');
    if (!stale) return undefined;
    const token = await this.tokens.renewAfter401(this.credential(id, options), stale);
    return token ? `Bearer ${token}` : undefined;
  }
}

const isAuthorization = (name: string) => name.toLowerCase() === 'authorization';

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
