import type { HttpClient } from './http/client.ts';
import { RateLimitedError } from './http/rate-limit.ts';
import { NoAnswerError } from './http/wire.ts';
import { describeAnswer, type Exchange } from '../kit/http/exchange.ts';
import type { Redactor } from '../kit/redact.ts';
import { tokenEndpointKey, type FailedPrecondition, type SharedPreconditions } from '../kit/shared-preconditions.ts';
import {
  accessTokenOf,
  credentialKey,
  credentialsRefused,
  issuedToken,
  tokenRequest,
  type Credential,
  type TokenOutcome,
  type TokenSource,
} from '../kit/tokens.ts';
import { accepted } from '../kit/http/consequence.ts';

/** Margin before expires_in runs out at which a token is no longer handed out. */
export function expiryOf(lifetimeSeconds: unknown, now = Date.now()): number | null {
  const lifetime = Number(lifetimeSeconds);
  if (!Number.isFinite(lifetime) || lifetime <= 0) return null;
  const margin = lifetime > 120 ? 60 : lifetime / 2;
  return now + (lifetime - margin) * 1000;
}

/**
 * One token per credential, fetched once and reused until expires_in minus a margin (without expires_in: until a
 * 401, then fetched again once). A failure to get one is remembered for the run, whatever it was (refused, another
 * answer, no answer within HTTP_TIMEOUT_MS, still rate-limited), so that every check standing on it ends at once with
 * the same account of it: a token endpoint that does not answer costs its timeout once. An outcome asked for after its
 * failure was known says so (`known`: the check that asked waited for nothing, and was not tried).
 */
export class TokenCache implements TokenSource {
  private readonly entries = new Map<string, Promise<TokenOutcome>>();
  /** Each key's failure, once its fetch has ended in one. */
  private readonly failed = new Map<string, TokenOutcome & { ok: false }>();
  private readonly renewed = new Set<string>();
  /** Token requests sent for the run's tokens (not counting the token checks' own). */
  fetched = 0;

  constructor(
    private readonly http: HttpClient,
    /** Learns every token issued before anything describes an answer that carries one. */
    private readonly redactor: Redactor,
    /** The run's memo: a token endpoint that gave no answer is known there, for every credential it serves. */
    private readonly memo?: SharedPreconditions,
  ) {}

  async get(credential: Credential): Promise<TokenOutcome> {
    const key = credentialKey(credential);
    const failed = this.failed.get(key);
    if (failed) return { ...failed, known: true };
    const silent = await this.memo?.failure(tokenEndpointKey(credential.tokenUrl));
    if (silent && !this.entries.has(key))
      return { ok: false, failure: { kind: 'no-answer', message: silent.what }, known: true };
    const cached = this.entries.get(key);
    if (cached) {
      return cached.then((outcome) =>
        outcome.ok && outcome.expiresAt !== null && outcome.expiresAt <= Date.now()
          ? this.fetchInto(key, credential)
          : outcome,
      );
    }
    return this.fetchInto(key, credential);
  }

  async renew(credential: Credential, stale: string): Promise<TokenOutcome> {
    const key = credentialKey(credential);
    const current = await this.entries.get(key);
    if (current?.ok && current.token !== stale) return current;
    if (this.renewed.has(key))
      return {
        ok: false,
        failure: {
          kind: 'answer',
          message: "the run's token was answered 401 after it had already been fetched again once",
        },
      };
    this.renewed.add(key);
    return this.fetchInto(key, credential);
  }

  private fetchInto(key: string, credential: Credential): Promise<TokenOutcome> {
    const pending = this.fetch(credential).then((outcome) => {
      if (!outcome.ok && this.entries.get(key) === pending) this.failed.set(key, outcome);
      return outcome;
    });
    this.entries.set(key, pending);
    return pending;
  }

  private async fetch(credential: Credential): Promise<TokenOutcome> {
    this.fetched += 1;
    let exchange: Exchange;
    try {
      exchange = await this.http.send(tokenRequest(credential));
    } catch (error) {
      if (error instanceof RateLimitedError)
        return { ok: false, failure: { kind: 'rate-limited', message: error.message } };
      if (error instanceof NoAnswerError) {
        await this.memo?.fail(
          tokenEndpointKey(credential.tokenUrl),
          endpointSilent(credential.tokenUrl, `POST ${credential.tokenUrl}`, error),
        );
        return { ok: false, failure: { kind: 'no-answer', message: error.message } };
      }
      throw error;
    }
    this.redactor.add(issuedToken(exchange));
    const token = accessTokenOf(exchange);
    // Any success: the document shows only that the answer contains access_token (TOK-ISSUED); the exact 200 is TOK-STATUS-200.
    if (accepted(exchange) && token)
      return { ok: true, token, expiresAt: expiryOf((exchange.json as { expires_in?: unknown }).expires_in) };
    const answer = `${exchange.request.method} ${credential.tokenUrl} was answered ${describeAnswer(exchange, this.redactor, 200)}`;
    return { ok: false, failure: { kind: credentialsRefused(exchange) ? 'refused' : 'answer', message: answer } };
  }
}

/**
 * A token endpoint that gave no answer, as the run's memo keeps it (kit/shared-preconditions.ts, tokenEndpointKey):
 * `sent` is the request that met it ("METHOD url").
 */
export function endpointSilent(tokenUrl: string, sent: string, error: NoAnswerError, by?: string): FailedPrecondition {
  return {
    what: `the token endpoint ${tokenUrl} gave no answer: ${error.message}`,
    evidence: { sent, expected: 'an answer', actual: error.message },
    ...(by ? { by } : {}),
  };
}
