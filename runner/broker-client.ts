import { Agent, request } from 'node:http';
import type { ClientStats } from './http/client.ts';
import type { RateLimitBudget } from './http/rate-limit.ts';
import type { Credential, TokenOutcome, TokenSource } from '../kit/tokens.ts';
import type { Claim, FailedPrecondition, SharedPreconditions } from '../kit/shared-preconditions.ts';

/** Where workers find the run's broker (runner/broker.ts), set by the global setup. */
export const BROKER_ENV = { url: 'CONFORMANCE_BROKER_URL', secret: 'CONFORMANCE_BROKER_SECRET' } as const;

/**
 * A worker's line to the run's broker (runner/broker.ts): tokens, rate-limit waits, the preconditions the run's checks
 * share and, at the end, what it sent.
 */
export class BrokerClient implements TokenSource, RateLimitBudget, SharedPreconditions {
  constructor(
    private readonly url: string,
    private readonly secret: string,
  ) {}

  /** The broker the global setup started for this run, if any (a run without it keeps its tokens per worker). */
  // eslint-disable-next-line no-restricted-properties -- the broker's address, handed to the workers by the global setup
  static fromEnv(env: Record<string, string | undefined> = process.env): BrokerClient | undefined {
    const url = env[BROKER_ENV.url];
    const secret = env[BROKER_ENV.secret];
    return url && secret ? new BrokerClient(url, secret) : undefined;
  }

  get(credential: Credential): Promise<TokenOutcome> {
    return this.post('/token', credential);
  }

  renew(credential: Credential, stale: string): Promise<TokenOutcome> {
    return this.post('/renew', { ...credential, stale });
  }

  /** The run's cap as last heard from the broker, and at the start of the run; unknown until its first answer. */
  private cap?: { known: number; initial: number };
  private watching = false;

  async grant(ms: number, sentUnder?: number): Promise<boolean> {
    const answer = await this.post<{ granted: boolean; cap: number }>('/grant', { ms, cap: sentUnder ?? null });
    if (this.cap) this.cap.known = answer.cap;
    return answer.granted;
  }

  /**
   * Before any 429 lowered the run's cap, nothing to wait for: the workers keep to it by their number. After, a place
   * from the broker for every request. The cap is watched from the first request on (one request held open at the
   * broker, answered when the cap changes), so that a halving caused by another worker applies here too.
   */
  place(): { cap?: number; entered?: Promise<() => void> } {
    if (!this.watching) this.watchCap();
    if (!this.cap || this.cap.known >= this.cap.initial) return this.cap ? { cap: this.cap.known } : {};
    return { cap: this.cap.known, entered: this.enter() };
  }

  private async enter(): Promise<() => void> {
    const { place } = await this.post<{ place: number }>('/enter', {});
    return () => void this.post('/leave', { place }).catch(() => undefined);
  }

  private watchCap(): void {
    this.watching = true;
    const ask = (): void => {
      this.post<{ cap: number; initial: number }>('/cap', { known: this.cap?.known ?? null }).then(
        (answer) => {
          this.cap = { known: Math.min(answer.cap, this.cap?.known ?? answer.cap), initial: answer.initial };
          ask();
        },
        // The broker has closed (the run is ending): the cap as last heard stays.
        () => undefined,
      );
    };
    ask();
  }

  /** Asked again while another worker holds the key (each ask a long poll of the broker's). */
  async claim<T>(key: string, leaseMs: number): Promise<Claim<T>> {
    let waited = false;
    for (;;) {
      const answer = await this.post<Claim<T> | { state: 'held' }>('/precondition/claim', { key, leaseMs });
      if (answer.state !== 'held') return answer.state === 'failed' && waited ? { ...answer, known: false } : answer;
      waited = true;
    }
  }

  async settle(key: string, lease: string, outcome: { value: unknown } | { failure: FailedPrecondition }) {
    await this.post('/precondition/settle', { key, lease, ...outcome });
  }

  async release(key: string, lease: string): Promise<void> {
    await this.post('/precondition/release', { key, lease });
  }

  async offer(key: string, headStart: unknown): Promise<void> {
    await this.post('/precondition/offer', { key, headStart });
  }

  async failure(key: string): Promise<FailedPrecondition | undefined> {
    return (
      (await this.post<{ failure: FailedPrecondition | null }>('/precondition/failure', { key })).failure ?? undefined
    );
  }

  async fail(key: string, failure: FailedPrecondition): Promise<void> {
    await this.post('/precondition/fail', { key, failure });
  }

  async report(stats: ClientStats): Promise<void> {
    await this.post('/report', stats);
  }

  /** Asks the runner: a route of the broker or of what it serves (runner/webhooks/event-hub.ts). */
  async post<T>(path: string, body: unknown): Promise<T> {
    const url = `${this.url}${path}`;
    const payload = Buffer.from(JSON.stringify(body), 'utf8');
    const answer = await send(url, this.secret, payload).catch((error: unknown) => {
      // A kept connection the broker closed while it was idle fails before the request reached the broker (Node's
      // http documents it: reusedSocket): sent once more, on a new connection.
      if (error instanceof StaleConnection) return send(url, this.secret, payload);
      throw error;
    });
    if (answer.status < 200 || answer.status > 299)
      throw new Error(`The run's token broker answered ${answer.status} to ${path}: ${answer.text}`);
    return JSON.parse(answer.text) as T;
  }
}

/**
 * The worker's connections to the broker, kept between calls: a worker asks it a few times per test (tokens, flows,
 * preconditions), and a fetch of its own each cost a tenth of a whole run's CPU time.
 */
const brokerConnections = new Agent({ keepAlive: true });

class StaleConnection extends Error {}

function send(url: string, secret: string, payload: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: brokerConnections,
        headers: { 'x-broker-secret': secret, 'content-type': 'application/json', 'content-length': payload.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      reject(req.reusedSocket && error.code === 'ECONNRESET' ? new StaleConnection(error.message) : error),
    );
    req.end(payload);
  });
}
