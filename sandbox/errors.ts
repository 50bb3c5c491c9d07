import type { ServerResponse } from 'node:http';

export type HeaderMap = Record<string, string | number | readonly string[]>;

export function sendText(
  res: ServerResponse,
  status: number,
  contentType: string,
  text: string,
  headers: HeaderMap = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const body = Buffer.from(text, 'utf8');
  res.writeHead(status, { ...headers, 'content-type': contentType, 'content-length': body.length });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: HeaderMap = {}): void {
  sendText(res, status, 'application/json; charset=utf-8', JSON.stringify(value), headers);
}

/**
 * A refusal by an operation of 4.2 to 4.7 or by a sandbox route. The spec does not show these bodies;
 * the sandbox answers `{"error":{"code","message"}}`.
 */
export interface Refusal {
  status: number;
  code: string;
  message: string;
  headers?: HeaderMap;
}

export function refusal(status: number, code: string, message: string, headers?: HeaderMap): Refusal {
  return headers ? { status, code, message, headers } : { status, code, message };
}

export function sendRefusal(res: ServerResponse, r: Refusal): void {
  sendJson(res, r.status, { error: { code: r.code, message: r.message } }, r.headers ?? {});
}
