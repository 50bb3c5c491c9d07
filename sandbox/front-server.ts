import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { sendJson } from './errors.ts';

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

/**
 * Starts the HTTP server of a front (HTTPS when given a certificate and its key); a handler that throws is answered 500
 * (or the connection dropped once answering began).
 */
export async function listenFront(
  options: { host?: string; port?: number; tls?: { key: string; cert: string } },
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  onFailure: (res: ServerResponse, error: unknown) => void,
): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
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
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
