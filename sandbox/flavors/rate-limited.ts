import type { IncomingMessage, ServerResponse } from 'node:http';
import { startCore } from '../core.ts';
import { sendJson } from '../errors.ts';
import {
  composedSandbox,
  forward,
  forwardedHeaders,
  listenFront,
  readWhole,
  relay,
  sendBadGateway,
} from '../front-server.ts';
import { serviceBase, tokenPath } from '../layout.ts';
import type { RateLimitedCounts, RateLimits, RunningSandbox, SandboxOptions } from '../types.ts';
import { reference } from './reference.ts';

/**
 * A correct target that rate-limits, as real deployments do (part 8 leaves limits "not shown"; the deployment notes say
 * the token endpoint is rate-limited): a front before a reference sandbox. The token endpoints let a few requests per
 * client through in each window; every other operation is a token bucket per credential. Both answer 429 with
 * Retry-After (seconds on the token endpoints, an HTTP-date on the operations); the order endpoint's 429 is in the
 * part-7 envelope's shape. With `everyNth`, the first request of each client to each kind of endpoint (tokens,
 * operations, orders), and every Nth after it, is also answered 429, without Retry-After: limits met for certain, on
 * every kind, whatever the machine's speed.
 */
export const defaultRateLimits: RateLimits = { tokenRequests: 5, tokenWindowMs: 10_000, burst: 20, perSecond: 10 };

/** Who a request counts against: the client of its Basic credentials, the holder of its bearer token, or everyone else. */
function clientKey(req: IncomingMessage): string {
  const authorization = req.headers['authorization'] ?? '';
  const basic = /^basic\s+(\S+)/i.exec(authorization)?.[1];
  if (basic) return `client:${Buffer.from(basic, 'base64').toString('utf8').split(':')[0] ?? ''}`;
  return authorization ? `bearer:${authorization}` : 'anonymous';
}

class Window {
  private readonly counts = new Map<string, { start: number; count: number }>();
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** undefined when the request may pass, else the milliseconds until the client's window ends. */
  take(key: string, now: number): number | undefined {
    const entry = this.counts.get(key);
    if (!entry || now - entry.start >= this.windowMs) {
      this.counts.set(key, { start: now, count: 1 });
      return undefined;
    }
    entry.count += 1;
    return entry.count <= this.limit ? undefined : entry.start + this.windowMs - now;
  }
}

class Buckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
  ) {}

  /** undefined when the request may pass, else the milliseconds until a token is back. */
  take(key: string, now: number): number | undefined {
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return ((1 - bucket.tokens) / this.perSecond) * 1000;
  }
}

export async function startRateLimitedSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const limits = options.rateLimits ?? defaultRateLimits;
  const inner = await startCore({ ...options, host: '127.0.0.1', port: 0 }, reference, 'reference');
  const tokenPaths = new Set([tokenPath('reference', 'identity'), tokenPath('reference', 'stepup')]);
  const ordersPath = `${serviceBase('reference', 'orders')}/v2/orders`;
  const tokenWindow = new Window(limits.tokenRequests, limits.tokenWindowMs);
  const buckets = new Buckets(limits.burst, limits.perSecond);
  const limited: RateLimitedCounts = { tokens: 0, operations: 0, orders: 0 };

  const kindOf = (path: string): keyof RateLimitedCounts =>
    tokenPaths.has(path) ? 'tokens' : path === ordersPath ? 'orders' : 'operations';
  const seen = new Map<string, number>();
  const nth = (key: string): boolean => {
    if (!limits.everyNth) return false;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    return count % limits.everyNth === 1 % limits.everyNth;
  };

  /** A 429; waitMs undefined: no Retry-After. */
  const tooMany = (res: ServerResponse, kind: keyof RateLimitedCounts, waitMs: number | undefined): void => {
    limited[kind] += 1;
    if (kind === 'tokens') {
      const retryAfter: Record<string, string> =
        waitMs === undefined ? {} : { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) };
      return sendJson(
        res,
        429,
        { error: 'slow_down', error_description: 'too many token requests: reuse your token' },
        { ...retryAfter, 'cache-control': 'no-store' },
      );
    }
    // An HTTP-date has whole seconds: the first one at which a token is back.
    const retryAfter: Record<string, string> =
      waitMs === undefined
        ? {}
        : { 'retry-after': new Date(Math.ceil((Date.now() + waitMs) / 1000) * 1000).toUTCString() };
    if (kind === 'orders')
      return sendJson(res, 429, { message: 'too many requests', errorType: 'rate_limited', code: 429 }, retryAfter);
    sendJson(res, 429, { error: { code: 'rate_limited', message: 'too many requests' } }, retryAfter);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readWhole(req);
    const path = new URL(req.url ?? '/', 'http://front').pathname;
    if (!path.startsWith('/__sandbox/')) {
      const kind = kindOf(path);
      const client = clientKey(req);
      if (nth(`${kind} ${client}`)) return tooMany(res, kind, undefined);
      const waitMs = (kind === 'tokens' ? tokenWindow : buckets).take(client, Date.now());
      if (waitMs !== undefined) return tooMany(res, kind, waitMs);
    }
    relay(
      res,
      await forward(
        inner.url,
        req.method ?? 'GET',
        req.url ?? '/',
        forwardedHeaders(req),
        body.length ? body : undefined,
      ),
    );
  };
  const front = await listenFront(options, handle, sendBadGateway);
  return composedSandbox(inner, {
    front,
    flavor: 'rate-limited',
    extra: {
      get limited() {
        return { ...limited };
      },
    },
  });
}
