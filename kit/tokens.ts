import { tokenEndpoint } from '../catalog/catalog.ts';
import type { ServiceTarget } from './config/suite-config.ts';
import type { Exchange } from './http/exchange.ts';
import type { SendOptions } from './http/sender.ts';
import type { Redactor } from './redact.ts';
import { PreconditionFailure } from './verdict.ts';
import type { HeaderList } from './http/exchange.ts';

export interface TokenRequestOptions {
  method?: string;
  /** The whole Authorization value; null leaves the header out. Default: Basic <API_KEY>. */
  authorization?: string | null;
  /** null leaves Content-Type out. Default: application/x-www-form-urlencoded. */
  contentType?: string | null;
  /** Form fields; a field set to undefined is left out. Default: grant_type and scope of part 4.1. */
  form?: Record<string, string | undefined>;
  /** A body sent as is instead of the form (e.g. JSON). */
  rawBody?: string;
  /** How each header name is written on the wire (lower case otherwise), as CallOptions.headerCase. */
  headerCase?: (name: string) => string;
  note?: string;
}

/** Where a token comes from: a token endpoint and the API key sent to it as Basic credentials. */
export type Credential = Pick<ServiceTarget, 'tokenUrl' | 'apiKey'>;

export const validTokenForm = (): Record<string, string> => ({
  grant_type: tokenEndpoint.grantType,
  scope: tokenEndpoint.scope,
});

/** A token request of part 4.1, valid unless the options change one part of it. */
export function tokenRequest(target: Credential, options: TokenRequestOptions = {}): SendOptions {
  const headers: HeaderList = [];
  const authorization = options.authorization === undefined ? `Basic ${target.apiKey}` : options.authorization;
  if (authorization !== null) headers.push(['authorization', authorization]);
  const contentType = options.contentType === undefined ? tokenEndpoint.contentType : options.contentType;
  if (contentType !== null) headers.push(['content-type', contentType]);
  const method = options.method ?? tokenEndpoint.method;
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(options.form ?? validTokenForm()))
    if (value !== undefined) form.append(name, value);
  const body = options.rawBody ?? (method === 'GET' ? undefined : form.toString());
  const spell = options.headerCase;
  return {
    label: 'token',
    ...(options.note ? { note: options.note } : {}),
    method,
    url: method === 'GET' ? `${target.tokenUrl}?${form.toString()}` : target.tokenUrl,
    headers: spell ? headers.map(([name, value]) => [spell(name), value]) : headers,
    ...(body !== undefined ? { body } : {}),
  };
}

/**
 * Why no token could be had. refused: the credentials were refused (401, or 400 invalid_client); answer: another
 * answer without a token (a 201, a body that is not JSON, a 500); no-answer: the host did not answer; rate-limited:
 * still 429 when the run's waiting budget was spent.
 */
export interface TokenFailure {
  kind: 'refused' | 'answer' | 'no-answer' | 'rate-limited';
  /** One line, redacted by whoever shows it: what was sent and what came back. */
  message: string;
}

export type TokenOutcome =
  | { ok: true; token: string; expiresAt: number | null }
  /** known: the failure was there before this was asked (the run's token is fetched once): the asker was not tried. */
  | { ok: false; failure: TokenFailure; known?: boolean };

/** Gets the run's tokens: the broker in the runner process (runner/broker.ts), or a TokenCache of its own (runner/tokens.ts). */
export interface TokenSource {
  get(credential: Credential): Promise<TokenOutcome>;
  /** A request carrying `stale` was answered 401: a new token, fetched at most once per credential and run. */
  renew(credential: Credential, stale: string): Promise<TokenOutcome>;
}

/** One key per token endpoint and API key: a credential's token is fetched once for the run. */
export const credentialKey = (credential: Credential) => `${credential.tokenUrl}\n${credential.apiKey}`;

/** RFC 6749 §5.2: a 401, or a 400 whose error is invalid_client, says the client's credentials were refused. */
export function credentialsRefused(exchange: Pick<Exchange, 'status' | 'json'>): boolean {
  return (
    exchange.status === 401 ||
    (exchange.status === 400 && (exchange.json as { error?: unknown } | undefined)?.error === 'invalid_client')
  );
}

/** A worker's view of the run's tokens: asks the source once per credential, then reuses the token until it expires. */
export class TokenProvider {
  private readonly held = new Map<string, { token: string; expiresAt: number | null }>();

  constructor(
    private readonly source: TokenSource,
    private readonly redactor: Redactor,
  ) {}

  async token(credential: Credential): Promise<string> {
    const key = credentialKey(credential);
    const held = this.held.get(key);
    if (held && (held.expiresAt === null || held.expiresAt > Date.now())) return held.token;
    return this.take(key, await this.source.get(credential));
  }

  /** A new token after `stale` was answered 401, or undefined when none can be had (the 401 then stands). */
  async renewAfter401(credential: Credential, stale: string): Promise<string | undefined> {
    const outcome = await this.source.renew(credential, stale);
    if (!outcome.ok || outcome.token === stale) return undefined;
    return this.take(credentialKey(credential), outcome);
  }

  private take(key: string, outcome: TokenOutcome): string {
    if (!outcome.ok) throw new PreconditionFailure(this.redactor.text(outcome.failure.message), outcome.known === true);
    this.redactor.add(outcome.token);
    this.held.set(key, { token: outcome.token, expiresAt: outcome.expiresAt });
    return outcome.token;
  }
}

export function accessTokenOf(exchange: Exchange): string | undefined {
  const value = (exchange.json as { access_token?: unknown } | undefined)?.access_token;
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The access token an answer carries, whether its body is JSON or (wrongly) form-encoded: what must be redacted. */
export function issuedToken(exchange: Exchange): string | undefined {
  const fromJson = accessTokenOf(exchange);
  if (fromJson || exchange.json !== undefined) return fromJson;
  return new URLSearchParams(exchange.text.trim()).get('access_token') || undefined;
}
