import { request as httpRequest } from 'node:http';
import type { ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { FaultSet } from './faults.ts';
import { Sleeps } from './sleeps.ts';
import type { EventKind } from '../catalog/catalog.ts';
import type { DeliveryAnswer } from './types.ts';

export type WebhookKind = 'document-onboarding' | 'document-results' | 'verification-session';

/** The part-6 event each kind of delivery is (catalog/catalog.ts names them so). */
const eventOf: Readonly<Record<WebhookKind, EventKind>> = {
  'document-onboarding': 'onboarding',
  'document-results': 'results',
  'verification-session': 'session',
};

export interface WebhookEvent {
  kind: WebhookKind;
  body: Record<string, unknown>;
}

/**
 * Delivers the part-6 events to the configured receiver. The events of one flow go one after the other, in
 * order, each after the configured delay; flows do not wait for each other. A failing receiver is logged once
 * and never stops the sandbox.
 */
export class WebhookSender {
  /** Deliveries the receiver answered, whatever its status. */
  deliveries = 0;
  private readonly flows = new Set<Promise<void>>();
  private warned = false;
  private readonly inFlight = new Set<ClientRequest>();
  private readonly sleeps = new Sleeps();

  constructor(
    private readonly url: URL | undefined,
    private readonly delayMs: number,
    /** Headers of each delivery beyond the media type (the flavor's). */
    private readonly extraHeaders: () => Record<string, string>,
    private readonly faults: FaultSet,
    private readonly warn: (line: string) => void = console.warn,
    private readonly onAnswer?: (answer: DeliveryAnswer) => void,
    /** Client certification: after each flow, its last event again, then once more with a member part 6 does not list. */
    private readonly robustness = false,
    /** How long a delivery waits for the receiver's answer. */
    private readonly timeoutMs = 5_000,
  ) {}

  /** The last event of each kind queued: a faulty sandbox delivers it again instead of a new one. */
  private readonly last = new Map<WebhookKind, WebhookEvent>();

  /** The last event of a kind queued so far, if any. */
  lastOf(kind: WebhookKind): WebhookEvent | undefined {
    return this.last.get(kind);
  }

  /** Queues the events of one flow, delivered in the order given. */
  send(...events: WebhookEvent[]): void {
    for (const event of events) this.last.set(event.kind, event);
    if (!this.url || this.sleeps.closed || events.length === 0) return;
    const flow = (async () => {
      for (const event of events) {
        await this.sleeps.sleep(this.delayMs);
        await this.deliver(event.kind, JSON.stringify(event.body));
      }
      const last = events.at(-1);
      if (this.robustness && last) {
        await this.deliver(last.kind, JSON.stringify(last.body));
        await this.deliver(
          last.kind,
          JSON.stringify({ ...last.body, certificationProbe: 'a member part 6 does not list' }),
        );
      }
    })()
      .catch(() => undefined)
      .finally(() => this.flows.delete(flow));
    this.flows.add(flow);
  }

  /** Delivers one event at once, outside any flow and without the delay (a fault's stale event). */
  deliverNow(event: WebhookEvent): Promise<void> {
    return this.deliver(event.kind, JSON.stringify(event.body));
  }

  /** Settles when everything queued so far was delivered or given up. */
  async idle(): Promise<void> {
    while (this.flows.size > 0) await Promise.all([...this.flows]);
  }

  close(): void {
    this.sleeps.close();
    for (const req of this.inFlight) req.destroy();
    this.inFlight.clear();
  }

  private warnOnce(problem: string): void {
    if (this.warned) return;
    this.warned = true;
    this.warn(
      `sandbox: webhook delivery to ${this.url?.href ?? '(none)'} failed (${problem}); later failures are not logged`,
    );
  }

  private deliver(kind: WebhookKind, body: string): Promise<void> {
    const url = this.url;
    const { faults } = this;
    const never =
      faults.has('webhooks-never-sent') ||
      (kind === 'document-results' && faults.has('webhook-results-never-sent')) ||
      (kind === 'verification-session' && faults.has('webhook-session-never-sent'));
    if (!url || this.sleeps.closed || never) return Promise.resolve();
    const formEncoded = kind === 'document-onboarding' && faults.has('webhook-form-encoded-onboarding');
    return new Promise((resolve) => {
      const payload = Buffer.from(
        formEncoded ? new URLSearchParams(JSON.parse(body) as Record<string, string>).toString() : body,
        'utf8',
      );
      const contentType = formEncoded
        ? 'application/x-www-form-urlencoded'
        : faults.on('webhook-text-plain', eventOf[kind])
          ? 'text/plain; charset=utf-8'
          : 'application/json';
      const headers: Record<string, string | number> = {
        'content-type': contentType,
        'content-length': payload.length,
        'user-agent': 'identity-proofing-sandbox',
        'x-sandbox-event': kind,
        ...this.extraHeaders(),
      };
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      let req: ClientRequest;
      try {
        req = send(url, { method: 'POST', headers, agent: false, timeout: this.timeoutMs });
      } catch (error) {
        this.warnOnce(error instanceof Error ? error.message : String(error));
        resolve();
        return;
      }
      this.inFlight.add(req);
      const finish = (): void => {
        this.inFlight.delete(req);
        resolve();
      };
      const sentAt = Date.now();
      req.on('response', (res) => {
        this.deliveries += 1;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.length < 64 && chunks.push(chunk));
        res.on('end', () => {
          const contentType = res.headers['content-type'];
          this.onAnswer?.({
            kind,
            sentAt,
            ms: Date.now() - sentAt,
            status: res.statusCode ?? 0,
            ...(contentType ? { contentType } : {}),
            body: Buffer.concat(chunks).toString('utf8').slice(0, 4096),
          });
          finish();
        });
        res.on('error', finish);
        res.on('close', finish);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (error) => {
        if (!this.sleeps.closed) this.warnOnce(error.message);
        this.onAnswer?.({ kind, sentAt, ms: Date.now() - sentAt, body: '', error: error.message });
        finish();
      });
      req.end(payload);
    });
  }
}
