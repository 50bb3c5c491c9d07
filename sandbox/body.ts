import type { IncomingMessage } from 'node:http';

export const maxBodyBytes = 1024 * 1024;
/** Past this, an oversized body is no longer drained: the connection is dropped after the answer. */
const maxDrainBytes = 8 * maxBodyBytes;

export type BodyRead = { kind: 'ok'; bytes: Buffer } | { kind: 'too-large' } | { kind: 'aborted' };

/** Reads the whole body; beyond maxBodyBytes the rest is drained and dropped so the client still gets its answer. */
export function readBody(req: IncomingMessage): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyRead): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
      else if (size > maxDrainBytes) {
        req.pause();
        settle({ kind: 'too-large' });
      }
    });
    req.on('end', () =>
      settle(size > maxBodyBytes ? { kind: 'too-large' } : { kind: 'ok', bytes: Buffer.concat(chunks) }),
    );
    req.on('error', () => settle({ kind: 'aborted' }));
    req.on('close', () => settle(size > maxBodyBytes ? { kind: 'too-large' } : { kind: 'aborted' }));
  });
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

/** The body as text, or undefined when it is not valid UTF-8. */
export function utf8Text(bytes: Buffer): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

export type JsonParse = { ok: true; value: unknown } | { ok: false; reason: string };

/** A JSON body; with invalidUtf8 'replace', invalid UTF-8 is decoded to U+FFFD instead of refused (a flavor's choice). */
export function parseJsonBody(bytes: Buffer, invalidUtf8: 'refuse' | 'replace' = 'refuse'): JsonParse {
  const text = invalidUtf8 === 'replace' ? lenientUtf8.decode(bytes) : utf8Text(bytes);
  if (text === undefined) return { ok: false, reason: 'the body is not valid UTF-8' };
  if (text.trim() === '') return { ok: false, reason: 'the body is empty' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: 'the body is not well-formed JSON' };
  }
}

/** The media type of a Content-Type value, lower-cased and without parameters; '' when absent. */
export function mediaType(value: string | undefined): string {
  return (value ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
