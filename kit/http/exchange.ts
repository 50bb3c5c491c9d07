import { isUtf8 } from 'node:buffer';
import type { Redactor } from '../redact.ts';
import { shellQuote } from './shell-quote.ts';
import { mediaTypeOf } from './media-type.ts';

/** Headers in the order they go on the wire, names as sent. */
export type HeaderList = Array<[string, string]>;

export interface Attempt {
  status: number | null;
  error?: string;
  retryAfter?: string;
  /** Time waited before the next attempt, or why there was none. */
  waitedMs?: number;
  note?: string;
}

/** One request and its answer, as the checks see them and as the report shows them (after redaction). */
export interface Exchange {
  label: string;
  /** What is unusual about this request, for the failure message ("x-client-id omitted"). */
  note?: string;
  /** `bytes`: the body exactly as sent, kept when its text (`body`, decoded as UTF-8) cannot carry it. */
  request: { method: string; url: string; headers: HeaderList; body?: string; bytes?: Buffer };
  status: number;
  headers: Record<string, string>;
  rawHeaders: HeaderList;
  text: string;
  /** The parsed body, or undefined when the body is not JSON. */
  json: unknown;
  jsonError?: string;
  attempts: Attempt[];
  durationMs: number;
  /** Where the bearer token of this request came from, so that a replay can obtain one the same way. */
  tokenFrom?: { url: string; keyVariable: string };
}

export function parseJson(text: string): { json: unknown; jsonError?: string } {
  if (text.trim() === '') return { json: undefined, jsonError: 'empty body' };
  try {
    return { json: JSON.parse(text) };
  } catch (error) {
    return { json: undefined, jsonError: (error as Error).message };
  }
}

export function mediaType(exchange: Pick<Exchange, 'headers'>): string | undefined {
  return mediaTypeOf(exchange.headers['content-type']);
}

/** What was sent, for a failure message: method, URL and note, then a curl command that sends it again. */
export function describeSent(exchange: Exchange, redactor: Redactor): string {
  const line = redactor.text(
    `${exchange.request.method} ${exchange.request.url}${exchange.note ? ` (${exchange.note})` : ''}`,
  );
  return `${line}\n  Replay:   ${curlOf(exchange, redactor)}`;
}

/** The longest request body a replay command carries inline; a longer one is in the test's attachment. */
const REPLAY_BODY_LIMIT = 2_000;

/** Whether a body's bytes survive as text in a shell word: valid UTF-8 and no NUL (which no shell argument holds). */
export const isShellText = (bytes: Buffer): boolean => isUtf8(bytes) && !bytes.includes(0);

/** Bytes with the secrets removed: latin1 maps each byte to one character and back, so ASCII secrets are found among them. */
function redactBytes(bytes: Buffer, redactor: Redactor): Buffer {
  return Buffer.from(redactor.text(bytes.toString('latin1')), 'latin1');
}

/**
 * A printf format that writes exactly these bytes: printable ASCII as is (% and \ escaped), every other byte as a
 * three-digit octal escape, which POSIX printf, bash, dash and zsh all read the same way.
 */
export function printfBytes(bytes: Buffer): string {
  let format = '';
  for (const byte of bytes) {
    if (byte === 0x25) format += '%%';
    else if (byte === 0x5c) format += '\\\\';
    else if (byte >= 0x20 && byte <= 0x7e) format += String.fromCharCode(byte);
    else format += `\\${byte.toString(8).padStart(3, '0')}`;
  }
  return format;
}

/** A first line that obtains a token as the run did (plain sed, no jq), setting $TOKEN for the curl that follows. */
function tokenLine(from: NonNullable<Exchange['tokenFrom']>): string {
  const form = 'grant_type=client_credentials&scope=k1_integration_api';
  return `TOKEN=$(curl -sS -X POST ${shellQuote(from.url)} -H "Authorization: Basic $${from.keyVariable}" -H 'Content-Type: application/x-www-form-urlencoded' --data ${shellQuote(form)} | sed -n 's/.*"access_token" *: *"\\([^"]*\\)".*/\\1/p')`;
}

/**
 * A shell command that sends the request again. Secrets stay in the shell: the API key as $API_KEY (or
 * $RESELLER_API_KEY), read from the same .env as the suite; the run's bearer token as $TOKEN, obtained by a first
 * line; any other secret as $SECRET. A deliberately wrong credential is sent as it was. The body is one single-quoted
 * argument, so the command runs wherever it is pasted, indented or not; a body that is not UTF-8 text is written by
 * printf byte for byte into curl's standard input.
 */
export function curlOf(exchange: Exchange, redactor: Redactor): string {
  const { method, url, headers, body, bytes } = exchange.request;
  const lines = [`curl -sS -i -X ${method} ${shellQuote(redactor.text(url))}`];
  let usesToken = false;
  for (const [name, value] of headers) {
    const redacted = redactor.text(value);
    if (name.toLowerCase() === 'authorization' && redacted !== value) {
      const scheme = value.split(/\s+/)[0] ?? '';
      const basic = /^basic$/i.test(scheme);
      usesToken ||= !basic;
      lines.push(`-H "${name}: ${scheme} ${basic ? `$${exchange.tokenFrom?.keyVariable ?? 'API_KEY'}` : '$TOKEN'}"`);
    } else lines.push(`-H ${shellQuote(`${name}: ${redacted.replace(/\[REDACTED\]/g, '$SECRET')}`)}`);
  }
  const prelude = usesToken && exchange.tokenFrom ? `${tokenLine(exchange.tokenFrom)}\n` : '';
  if (bytes !== undefined) {
    const format = printfBytes(redactBytes(bytes, redactor));
    if (format.length > REPLAY_BODY_LIMIT)
      lines.push(
        `--data-binary @body.bin  # the ${bytes.length}-byte body, not UTF-8 text, is the bodyBase64 of the test's attachment (base64 -d > body.bin)`,
      );
    else {
      lines[0] = `printf ${shellQuote(format)} | ${lines[0] as string}`;
      lines.push('--data-binary @-');
    }
  } else if (body !== undefined) {
    const redacted = redactor.text(body);
    lines.push(
      redacted.length > REPLAY_BODY_LIMIT
        ? `--data-binary @body.json  # the ${redacted.length}-character body is in the test's attachment`
        : `--data-binary ${shellQuote(redacted)}`,
    );
  }
  return prelude + lines.join(' \\\n    ');
}

/** A short account of the answer for a failure message: status, media type and the first part of the body. */
export function describeAnswer(exchange: Exchange, redactor: Redactor, limit = 400): string {
  const body =
    exchange.json !== undefined ? JSON.stringify(redactor.json(exchange.json)) : redactor.text(exchange.text);
  const shown = body.length > limit ? `${body.slice(0, limit)}... (${body.length} characters)` : body;
  return `${exchange.status} ${exchange.headers['content-type'] ?? '(no content-type)'} ${shown || '(empty body)'}`;
}

/** The exchange with every secret removed, for attachments and evidence files. */
export function redactExchange(exchange: Exchange, redactor: Redactor) {
  return {
    label: exchange.label,
    note: exchange.note,
    request: {
      method: exchange.request.method,
      url: redactor.text(exchange.request.url),
      headers: redactor.headers(exchange.request.headers),
      body: exchange.request.body === undefined ? undefined : redactBody(exchange.request.body, redactor),
      // A body that is not UTF-8 text, exactly as sent (its text above shows each invalid byte as U+FFFD), within the attachment's limit.
      ...(exchange.request.bytes === undefined || exchange.request.bytes.length > ATTACHED_BODY_LIMIT
        ? {}
        : { bodyBase64: redactBytes(exchange.request.bytes, redactor).toString('base64') }),
    },
    response: {
      status: exchange.status,
      headers: redactor.headers(exchange.rawHeaders),
      body: redactBody(exchange.text, redactor),
    },
    attempts: exchange.attempts,
    durationMs: Math.round(exchange.durationMs),
  };
}

/** Bodies larger than this are attached truncated (the report stays small enough to open; the size is stated). */
const ATTACHED_BODY_LIMIT = 64 * 1024;

function redactBody(text: string, redactor: Redactor): string {
  const { json } = text.length > ATTACHED_BODY_LIMIT ? { json: undefined } : parseJson(text);
  const redacted = json === undefined ? undefined : redactor.json(json);
  const pretty = redacted === undefined ? undefined : JSON.stringify(redacted, null, 2);
  // Deep nesting makes indentation explode (2000 levels: megabytes), so a large pretty form falls back to compact.
  const shown =
    pretty !== undefined && pretty.length <= ATTACHED_BODY_LIMIT
      ? pretty
      : redacted !== undefined
        ? JSON.stringify(redacted)
        : redactor.text(text);
  return shown.length > ATTACHED_BODY_LIMIT
    ? `${shown.slice(0, ATTACHED_BODY_LIMIT)}\n... (truncated: ${shown.length} characters in all)`
    : shown;
}
