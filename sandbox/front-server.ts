import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { sendJson } from './errors.ts';
import { listening } from './listen.ts';
import type { SandboxLayout } from './layout.ts';
import type { Flavor, RunningSandbox } from './types.ts';

/** An answer of the server behind a front. */
export interface InnerAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** Sends a request to the server behind a front (a real HTTP request on loopback). */
export function forward(
  origin: string,
  method: string,
  path: string,
  headers: Record<string, string | string[] | undefined>,
  body?: Buffer,
): Promise<InnerAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${origin}${path}`,
      { method, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export function readWhole(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const HOP_BY_HOP = ['connection', 'transfer-encoding', 'keep-alive'];

/** Passes an inner answer on as it is, but for the hop-by-hop headers. */
export function relay(res: ServerResponse, answer: InnerAnswer): void {
  res.writeHead(
    answer.status,
    Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.includes(name))) as Record<
      string,
      string
    >,
  );
  res.end(answer.body);
}

/** The caller's request headers, without those that describe this hop. */
export function forwardedHeaders(req: IncomingMessage): Record<string, string | string[] | undefined> {
  const headers = { ...req.headers };
  delete headers['host'];
  delete headers['content-length'];
  return headers;
}

/** A front's answer when the server behind it did not answer: 502, in the sandbox's error shape. */
export function sendBadGateway(res: ServerResponse): void {
  sendJson(res, 502, { error: { code: 'bad_gateway', message: 'the service behind the front did not answer' } });
}

/** A front's server: where callers reach it, how many requests it had, and how it closes. */
export interface FrontServer {
  url: string;
  requests: () => number;
  close: () => Promise<void>;
}

/**
 * Starts the HTTP server of a front (HTTPS when given a certificate and its key); a handler that throws is answered 500
 * (or the connection dropped once answering began).
 */
export async function listenFront(
  options: { host?: string; port?: number; tls?: { key: string; cert: string } },
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  onFailure: (res: ServerResponse, error: unknown) => void,
): Promise<FrontServer> {
  let requests = 0;
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    requests += 1;
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) onFailure(res, error);
      else res.destroy();
    });
  };
  const server = options.tls
    ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, listener)
    : createServer(listener);
  // A client that does not trust the certificate ends the handshake: nothing to answer, nothing to report.
  server.on('tlsClientError', () => undefined);
  const host = options.host ?? '127.0.0.1';
  const port = await listening(server, options.port ?? 0, host);
  return {
    url: `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What a flavor built around an inner sandbox changes of it; the rest is the inner sandbox's. */
export interface Composition<Extra extends object> {
  /** The front callers reach (its URL, its requests); without one, callers reach the inner sandbox itself. */
  front?: FrontServer;
  flavor?: Flavor;
  layout?: SandboxLayout;
  /** Webhook deliveries answered, when the flavor delivers them itself. */
  deliveries?: () => number;
  webhooksIdle?: () => Promise<void>;
  /** Servers of the flavor's own beside the inner sandbox, closed with it. */
  servers?: ReadonlyArray<{ close: () => Promise<void> }>;
  /** Stops what must stop before the servers close (a delivery queue). */
  stop?: () => void;
  /** Members of the flavor's own, getters kept live (the far flavor's queue, the rate-limited flavor's counts). */
  extra?: Extra;
}

/**
 * The running sandbox of a flavor built around an inner one (a front before it, servers beside it): the inner
 * sandbox's faults, tokens and cases, and its counts read live, but for what the composition changes; closed once,
 * every server with it.
 */
export function composedSandbox<Extra extends object = object>(
  inner: RunningSandbox,
  parts: Composition<Extra>,
): RunningSandbox & Extra {
  const { front } = parts;
  let closing: Promise<void> | undefined;
  const sandbox: RunningSandbox = {
    url: front?.url ?? inner.url,
    flavor: parts.flavor ?? inner.flavor,
    layout: parts.layout ?? inner.layout,
    faults: inner.faults,
    tokenLifetimeSeconds: inner.tokenLifetimeSeconds,
    get deliveries() {
      return parts.deliveries ? parts.deliveries() : inner.deliveries;
    },
    get requests() {
      return front ? front.requests() : inner.requests;
    },
    webhooksIdle: parts.webhooksIdle ?? (() => inner.webhooksIdle()),
    ...(inner.caseOf ? { caseOf: inner.caseOf } : {}),
    ...(inner.checkToken ? { checkToken: inner.checkToken } : {}),
    close() {
      parts.stop?.();
      const servers = [inner, ...(front ? [front] : []), ...(parts.servers ?? [])];
      closing ??= Promise.all(servers.map((server) => server.close())).then(() => undefined);
      return closing;
    },
  };
  return Object.defineProperties(sandbox, Object.getOwnPropertyDescriptors(parts.extra ?? {})) as RunningSandbox &
    Extra;
}

/** Whether an inner answer is a success (any 2xx). */
export const succeeded = (answer: InnerAnswer): boolean => answer.status >= 200 && answer.status < 300;

/** A body's JSON object; anything else (not JSON, an array, a scalar) is an empty one. */
export function jsonObject(bytes: Buffer): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
