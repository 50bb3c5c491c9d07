import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { dirname } from 'node:path';
import { parseJson } from '../../kit/http/exchange.ts';
import type { DeliveryOutcome, DeliveryRecord } from '../../kit/webhooks/run-events.ts';
import type { Redactor } from '../../kit/redact.ts';
import { probeNonce } from './probe.ts';

export interface Delivery extends DeliveryRecord {
  /** The raw body bytes kept (at most the size limit). */
  body: Buffer;
}

export interface ReceiverOptions {
  host: string;
  /** 0 picks a free port (self-tests). */
  port: number;
  bodyLimitBytes?: number;
  /** A body not complete this long after the request head is recorded as incomplete (slow senders). */
  bodyTimeoutMs?: number;
  /** Appends every delivery, redacted, to this JSON-lines file: the run's evidence of what arrived, kept after the run. */
  journal?: { path: string; redactor: Redactor };
  /** Told of every delivery as it is stored (the run's step-up flows take their events so). */
  onDelivery?: (delivery: Delivery) => void;
}

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
const DEFAULT_BODY_TIMEOUT_MS = 10_000;
const PREVIEW_BYTES = 2048;
/**
 * Raw bodies kept in memory at most, over all deliveries: past it the oldest raw bodies are released (their parsed
 * JSON, preview and size stay), so that a flood of large deliveries cannot exhaust the worker's memory.
 */
export const MAX_RETAINED_BODY_BYTES = 32 * 1024 * 1024;
const LISTEN_RETRY_MS = 5_000;
/** Part 6 shows the customer's answer as an empty JSON object. */
const ANSWER = '{}';

type Waiter = {
  match: (d: Delivery) => boolean;
  since: number;
  resolve: (d: Delivery | undefined) => void;
  timer: NodeJS.Timeout;
};

/**
 * The customer's callback address of part 6: records every request it gets (method, path, headers, raw body,
 * parsed JSON or the parse error, arrival time) and answers {} as application/json. Nothing a sender does, however
 * malformed, stops it: a body over the limit is cut off and recorded as oversize, a body that never ends is
 * recorded as incomplete, and bytes that are not HTTP are recorded as such.
 */
export class WebhookReceiver {
  private server: Server | undefined;
  private readonly recorded: Delivery[] = [];
  /** Nonces of the tester's own probes (runner/webhooks/probe.ts) that arrived: never deliveries of the target. */
  private readonly probes = new Set<string>();
  private retainedBytes = 0;
  private nextToRelease = 0;
  private readonly waiters = new Set<Waiter>();
  private readonly bodyLimit: number;
  private readonly bodyTimeoutMs: number;

  constructor(private readonly options: ReceiverOptions) {
    this.bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  }

  get port(): number {
    const address = this.server?.address() as AddressInfo | null | undefined;
    if (!address) throw new Error('The webhook receiver is not listening');
    return address.port;
  }

  /** The local address it listens on (a target may reach it through another, public URL). */
  get url(): string {
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    return `http://${host}:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.options.journal) mkdirSync(dirname(this.options.journal.path), { recursive: true });
    const server = createServer({ requestTimeout: 0, headersTimeout: this.bodyTimeoutMs }, (req, res) =>
      this.receive(req, res),
    );
    server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) =>
      this.notHttp(error, socket),
    );
    const deadline = Date.now() + LISTEN_RETRY_MS;
    // A restarted worker may find the previous worker's receiver still letting go of the port.
    for (;;) {
      try {
        await new Promise<void>((resolve, reject) => {
          const listening = () => {
            server.off('error', failed);
            resolve();
          };
          const failed = (error: Error) => {
            server.off('listening', listening);
            reject(error);
          };
          server.once('error', failed);
          server.once('listening', listening);
          server.listen(this.options.port, this.options.host);
        });
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || Date.now() > deadline) {
          throw new Error(
            `The webhook receiver cannot listen on ${this.options.host}:${this.options.port}: ${(error as Error).message}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    this.server = server;
  }

  async close(): Promise<void> {
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(undefined);
    }
    this.waiters.clear();
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Whether the probe with this nonce arrived (it is answered like a delivery, and kept out of them). */
  sawProbe(nonce: string): boolean {
    return this.probes.has(nonce);
  }

  /** Every delivery so far, in arrival order. */
  deliveries(): readonly Delivery[] {
    return this.recorded;
  }

  /** The deliveries whose request arrived at or after `time` (ms since the epoch). */
  since(time: number): Delivery[] {
    return this.recorded.filter((d) => d.receivedAt >= time);
  }

  /** The first delivery since `since` that matches, waiting up to timeoutMs for it; undefined when none came. */
  waitFor(
    match: (d: Delivery) => boolean,
    { since, timeoutMs }: { since: number; timeoutMs: number },
  ): Promise<Delivery | undefined> {
    const found = this.since(since).find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        match,
        since,
        resolve,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          resolve(undefined);
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /** Resolves once no delivery has arrived for quietMs, or after maxMs. */
  async settle(quietMs: number, maxMs: number): Promise<void> {
    const deadline = Date.now() + maxMs;
    for (;;) {
      const last = this.recorded.at(-1)?.endedAt ?? 0;
      const quietUntil = last + quietMs;
      const now = Date.now();
      if (now >= quietUntil || now >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(quietUntil, deadline) - now));
    }
  }

  private receive(req: IncomingMessage, res: ServerResponse): void {
    const receivedAt = Date.now();
    const chunks: Buffer[] = [];
    let kept = 0;
    let seen = 0;
    let ended = false;
    req.on('error', () => undefined);
    res.on('error', () => undefined);

    const end = (outcome: DeliveryOutcome, problem?: string): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      this.record({
        receivedAt,
        req,
        body: Buffer.concat(chunks, kept),
        bodyBytes: seen,
        outcome,
        ...(problem ? { problem } : {}),
      });
      if (outcome === 'complete') return answer(res, 200);
      // Stop reading: answer if the sender still listens, then drop the connection.
      if (!res.headersSent && !res.destroyed) answer(res, outcome === 'oversize' ? 413 : 408, () => req.destroy());
      else req.destroy();
    };
    const timer = setTimeout(
      () => end('incomplete', `the body was not complete ${this.bodyTimeoutMs} ms after the request head arrived`),
      this.bodyTimeoutMs,
    );

    req.on('data', (chunk: Buffer) => {
      if (ended) return;
      seen += chunk.length;
      const room = this.bodyLimit - kept;
      if (room > 0) {
        const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
        chunks.push(part);
        kept += part.length;
      }
      if (seen > this.bodyLimit)
        end(
          'oversize',
          `the body exceeded the receiver's limit of ${this.bodyLimit} bytes; reading stopped after ${seen} bytes`,
        );
    });
    req.on('end', () => end('complete'));
    req.on('close', () =>
      end('incomplete', `the sender closed the connection after ${seen} body bytes, before the body ended`),
    );
  }

  private notHttp(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void {
    // A reset or closed idle connection carries no request, and bytes after an answer that closed the connection are
    // the rest of a delivery already recorded (the oversize one): only what could not be read as HTTP is a delivery.
    if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || error.code === 'HPE_CLOSED_CONNECTION')
      return void socket.destroy();
    const now = Date.now();
    const body = error.rawPacket ?? Buffer.alloc(0);
    this.store({
      seq: 0,
      receivedAt: now,
      endedAt: now,
      method: '',
      path: '',
      headers: [],
      bodyBytes: body.length,
      outcome: 'not-http',
      problem: `not a readable HTTP request (${error.code ?? error.message})`,
      jsonError: 'not HTTP',
      body,
      bodyPreview: preview(body),
    });
    if (socket.writable)
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${ANSWER.length}\r\nConnection: close\r\n\r\n${ANSWER}`,
      );
    else socket.destroy();
  }

  private record(r: {
    receivedAt: number;
    req: IncomingMessage;
    body: Buffer;
    bodyBytes: number;
    outcome: DeliveryOutcome;
    problem?: string;
  }): void {
    const parsed =
      r.outcome === 'complete'
        ? parseJson(r.body.toString('utf8'))
        : { json: undefined, jsonError: 'the body was not read to its end' };
    const headers = pairs(r.req.rawHeaders);
    const probe = parsed.jsonError === undefined ? probeNonce({ headers, json: parsed.json }) : undefined;
    if (probe) return void this.probes.add(probe);
    this.store({
      seq: 0,
      receivedAt: r.receivedAt,
      endedAt: Date.now(),
      method: r.req.method ?? '',
      path: r.req.url ?? '',
      headers,
      bodyBytes: r.bodyBytes,
      outcome: r.outcome,
      ...(r.problem ? { problem: r.problem } : {}),
      ...(parsed.jsonError === undefined ? { json: parsed.json } : { jsonError: parsed.jsonError }),
      body: r.body,
      bodyPreview: preview(r.body),
    });
  }

  /** Raw body bytes the receiver holds now (bounded by MAX_RETAINED_BODY_BYTES). */
  get retainedBodyBytes(): number {
    return this.retainedBytes;
  }

  private store(delivery: Delivery): void {
    delivery.seq = this.recorded.length + 1;
    this.recorded.push(delivery);
    this.retainedBytes += delivery.body.length;
    while (this.retainedBytes > MAX_RETAINED_BODY_BYTES && this.nextToRelease < this.recorded.length) {
      const old = this.recorded[this.nextToRelease] as Delivery;
      this.retainedBytes -= old.body.length;
      old.body = Buffer.alloc(0);
      this.nextToRelease += 1;
    }
    this.journal(delivery);
    this.options.onDelivery?.(delivery);
    for (const waiter of [...this.waiters]) {
      if (delivery.receivedAt < waiter.since || !waiter.match(delivery)) continue;
      clearTimeout(waiter.timer);
      this.waiters.delete(waiter);
      waiter.resolve(delivery);
    }
  }

  private journal(delivery: Delivery): void {
    const journal = this.options.journal;
    if (!journal) return;
    const { redactor } = journal;
    const { body: _body, json, ...rest } = delivery;
    const entry: DeliveryRecord = {
      ...rest,
      headers: redactor.headers(delivery.headers),
      bodyPreview: redactor.text(delivery.bodyPreview),
      ...('json' in delivery ? { json: redactor.json(json) } : {}),
    };
    try {
      appendFileSync(journal.path, `${JSON.stringify(entry)}\n`);
    } catch {
      // The in-memory record stands; a journal that cannot be written only costs the restart case.
    }
  }
}

function answer(res: ServerResponse, status: number, then?: () => void): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': ANSWER.length,
    ...(status === 200 ? {} : { connection: 'close' }),
  });
  res.end(ANSWER, then);
}

function pairs(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([(raw[i] as string).toLowerCase(), raw[i + 1] as string]);
  return out;
}

function preview(body: Buffer): string {
  return body.subarray(0, PREVIEW_BYTES).toString('utf8');
}

/** Every delivery the journal holds, from every receiver of the run that wrote to it. */
export function readJournal(path: string): DeliveryRecord[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as DeliveryRecord);
}

/** The media type of a delivery's Content-Type, lower case, without parameters. */
