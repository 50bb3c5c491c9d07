import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { forwardedHeaders, listenFront, readWhole } from './front-server.ts';
import { sendJson } from './errors.ts';
import type { FarSettings, QueuedEvent } from './types.ts';
import { mulberry32 } from './seeded-random.ts';
import { Sleeps } from './sleeps.ts';

/** A seeded stream of numbers in [0, 1), from any text: the same seed, the same draws. */
const seededRandom = (seed: string): (() => number) =>
  mulberry32(createHash('sha256').update(seed).digest().readUInt32BE(0));

/** What the receiver is sent: the service's request as it came, but for the headers of the hop. */
interface Posted {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * The delivery queue of a deployment far away: the service posts its part-6 events to this queue (a real HTTP server
 * on loopback, answering at once), and the queue delivers each to the customer's receiver after a delay drawn from a
 * range, so that the events of different flows, and of one flow, cross; every Nth event is delivered a second time a
 * little later (a quarter of a fresh draw after the first delivery), with the same body, as an at-least-once queue does.
 */
export class DeliveryQueue {
  /** Deliveries the receiver answered, redeliveries included. */
  deliveries = 0;
  private readonly events: QueuedEvent[] = [];
  private readonly pending = new Set<Promise<void>>();
  private readonly sleeps = new Sleeps();
  private readonly random: () => number;
  private warned = false;

  constructor(
    private readonly target: URL | undefined,
    private readonly settings: Pick<FarSettings, 'eventDelayMs' | 'redeliverEvery' | 'seed'>,
    private readonly warn: (line: string) => void,
    private readonly timeoutMs = 5_000,
  ) {
    this.random = seededRandom(settings.seed);
  }

  /** What became of each event so far, in the order they were queued. */
  get queued(): readonly QueuedEvent[] {
    return this.events.map((event) => ({ ...event, deliveredAt: [...event.deliveredAt] }));
  }

  /** Starts the queue's own server; the service posts its events to the returned URL. */
  async listen(): Promise<{ url: string; close: () => Promise<void> }> {
    const inbox = await listenFront(
      { host: '127.0.0.1', port: 0 },
      async (req, res) => {
        const body = await readWhole(req);
        this.enqueue({ headers: forwardedHeaders(req), body });
        sendJson(res, 200, {});
      },
      (res) => sendJson(res, 500, {}),
    );
    return { url: `${inbox.url}/events`, close: inbox.close };
  }

  /** Settles when everything queued so far was delivered or given up. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  close(): void {
    this.sleeps.close();
  }

  private draw(): number {
    const { min, max } = this.settings.eventDelayMs;
    return min + Math.floor(this.random() * (max - min + 1));
  }

  private enqueue(posted: Posted): void {
    const seq = this.events.length + 1;
    const delayMs = this.draw();
    const every = this.settings.redeliverEvery;
    const redelivered = every > 0 && (seq - 1) % every === 0;
    // Drawn now, in the order of the queue, so that a seed gives the same delays whatever the receiver does.
    const againMs = redelivered ? Math.floor(this.draw() / 4) : 0;
    const kind = String(posted.headers['x-sandbox-event'] ?? 'event');
    const event: QueuedEvent = { seq, kind, queuedAt: Date.now(), delayMs, deliveredAt: [], redelivered };
    this.events.push(event);
    if (!this.target || this.sleeps.closed) return;
    const delivery = (async () => {
      await this.sleeps.sleep(delayMs);
      await this.post(posted, event);
      if (redelivered) {
        await this.sleeps.sleep(againMs);
        await this.post(posted, event);
      }
    })()
      .catch(() => undefined)
      .finally(() => this.pending.delete(delivery));
    this.pending.add(delivery);
  }

  private post(posted: Posted, event: QueuedEvent): Promise<void> {
    const target = this.target;
    if (!target || this.sleeps.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(
        target,
        {
          method: 'POST',
          headers: { ...posted.headers, 'content-length': posted.body.length },
          agent: false,
          timeout: this.timeoutMs,
        },
        (res) => {
          this.deliveries += 1;
          event.deliveredAt.push(Date.now());
          res.resume();
          res.on('end', () => resolve());
          res.on('error', () => resolve());
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (error) => {
        if (!this.sleeps.closed && !this.warned) {
          this.warned = true;
          this.warn(
            `sandbox: webhook delivery to ${target.href} failed (${error.message}); later failures are not logged`,
          );
        }
        resolve();
      });
      req.end(posted.body);
    });
  }
}
