import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { HeaderList } from '../../kit/http/exchange.ts';
import { connectionOptions, namedProblem, proxyOf, proxyRefusal } from './network.ts';
import type { Network } from '../../kit/config/suite-config.ts';

/**
 * A request exactly as it goes on the wire: these headers in this order, and nothing else but Host,
 * Connection and (with a body) Content-Length, which HTTP/1.1 needs. Playwright's request context is not used
 * because it adds Content-Type, Accept and User-Agent of its own, and a conformance check that claims a header
 * was absent must be sure it was.
 */
export interface WireRequest {
  method: string;
  url: string;
  headers: HeaderList;
  body?: Buffer;
}

export interface WireResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  rawHeaders: HeaderList;
  body: Buffer;
  durationMs: number;
}

export class NoAnswerError extends Error {
  constructor(
    readonly request: Pick<WireRequest, 'method' | 'url'>,
    readonly reason: string,
    readonly retryable: boolean,
  ) {
    super(`${request.method} ${request.url} got no answer: ${reason}`);
    this.name = 'NoAnswerError';
  }
}

const RETRYABLE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/** The raw header list Node is given for a request: exactly its headers, plus Host and Content-Length where needed. */
export function wireHeaders(req: WireRequest, url: URL): string[] {
  const headers: string[] = [];
  // Given a raw header list, Node adds no Host of its own; HTTP/1.1 requires it (RFC 9112 section 3.2).
  if (!req.headers.some(([name]) => name.toLowerCase() === 'host')) headers.push('host', url.host);
  for (const [name, value] of req.headers) headers.push(name, value);
  // A body gets its Content-Length; so does a bodiless POST, PUT or PATCH, which Node would otherwise send chunked
  // (RFC 9110 section 8.6: a client sends Content-Length when the method gives content a meaning).
  const needsLength = req.body !== undefined || ['POST', 'PUT', 'PATCH'].includes(req.method.toUpperCase());
  if (needsLength && !req.headers.some(([name]) => name.toLowerCase() === 'content-length')) {
    headers.push('content-length', String(req.body?.length ?? 0));
  }
  return headers;
}

export interface SendControl {
  /** A connection of its own, closed after the answer, instead of one from the shared keep-alive pool. */
  ownConnection?: boolean;
  /**
   * Holds the request back once everything but its last body byte is written; the request ends when `release`
   * resolves. `ready` is called at that point, so that several requests can be released at the same moment.
   */
  holdLastByte?: { ready: () => void; release: Promise<void> };
}

/** Sends once, through the target's proxy and with TLS_CA_FILE's certificates when the network says so. */
export function sendOnce(
  req: WireRequest,
  timeoutMs: number,
  network?: Network,
  control: SendControl = {},
): Promise<WireResponse> {
  const url = new URL(req.url);
  const secure = url.protocol === 'https:';
  const headers = wireHeaders(req, url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const options = connectionOptions(url, network);
    // A connection of its own: no pooled socket (through a proxy, the tunnel's own CONNECT for this request).
    const agent = control.ownConnection && !proxyOf(url, network) ? false : options.agent;
    const outgoing = (secure ? httpsRequest : httpRequest)(url, { method: req.method, headers, ...options, agent });
    let connected = false;
    const tunnelled = () => connected || outgoing.reusedSocket;
    // A proxy's own refusal of the tunnel (407, 502) must not pass for the target's answer.
    outgoing.on('proxyConnect', (answer: { statusCode?: number; statusText?: string }) => {
      connected = answer.statusCode === 200;
      const proxy = proxyOf(url, network);
      if (!connected && proxy)
        outgoing.destroy(
          Object.assign(new Error(proxyRefusal(proxy, answer, `${url.hostname}:${url.port || (secure ? 443 : 80)}`)), {
            code: 'EPROXY',
          }),
        );
    });
    const timer = setTimeout(
      () => outgoing.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEOUT' })),
      timeoutMs,
    );
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', (error) => {
        clearTimeout(timer);
        reject(new NoAnswerError(req, error.message, true));
      });
      incoming.on('end', () => {
        clearTimeout(timer);
        const rawHeaders: HeaderList = [];
        for (let i = 0; i < incoming.rawHeaders.length; i += 2)
          rawHeaders.push([incoming.rawHeaders[i] as string, incoming.rawHeaders[i + 1] as string]);
        const joined: Record<string, string> = {};
        for (const [name, value] of rawHeaders) {
          const key = name.toLowerCase();
          joined[key] = joined[key] === undefined ? value : `${joined[key]}, ${value}`;
        }
        resolve({
          status: incoming.statusCode ?? 0,
          headers: joined,
          rawHeaders,
          body: Buffer.concat(chunks),
          durationMs: performance.now() - started,
        });
      });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      control.holdLastByte?.ready();
      const named = error.code === 'EPROXY' ? error.message : namedProblem(error, url, network, tunnelled());
      reject(
        new NoAnswerError(
          req,
          named ?? error.message,
          named === undefined && (RETRYABLE_CODES.has(error.code ?? '') || error.message === 'socket hang up'),
        ),
      );
    });
    const hold = control.holdLastByte;
    if (!hold || !req.body || req.body.length === 0) {
      hold?.ready();
      outgoing.end(req.body);
      return;
    }
    const body = req.body;
    outgoing.write(body.subarray(0, -1), () => {
      hold.ready();
      void hold.release.then(() => outgoing.end(body.subarray(-1)));
    });
  });
}
