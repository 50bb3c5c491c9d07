import type { OperationId } from '../catalog/catalog.ts';
import { header } from './context.ts';
import type { Exchange, SandboxContext } from './context.ts';
import type { HeaderMap } from './errors.ts';
import type { TokenAudience } from './layout.ts';
import type { TokenLeniency } from './tokens.ts';

/** A refusal's status: 401, or 400 for a malformed credential where the flavor answers so (RFC 6750 §3.1 invalid_request). */
export type BearerOutcome =
  { ok: true; clientId: string } | { ok: false; status: 400 | 401; reason: string; headers: HeaderMap };

export interface BearerOptions {
  /**
   * The operation of 4.2 to 4.7 checked, whose bearer-* faults apply; the order endpoint names none, so that those
   * faults break only the BEARER-* requirements, and takes its own expiry leniency.
   */
  operation?: OperationId;
  /** order-expired-accepted */
  acceptExpired?: boolean;
}

/** b64token of RFC 6750 section 2.1. */
const b64token = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Checks `Authorization: Bearer <token>` (RFC 6750). With no credentials at all, or credentials of another
 * scheme, the challenge carries no error code (RFC 6750 section 3.1); a bad token gets error="invalid_token".
 */
export function checkBearer(
  ctx: SandboxContext,
  ex: Exchange,
  audience: TokenAudience,
  options: BearerOptions,
): BearerOutcome {
  const on = (family: Parameters<SandboxContext['faults']['on']>[0]) =>
    options.operation !== undefined && ctx.faults.on(family, options.operation);
  const challenge = (error?: string): HeaderMap =>
    on('bearer-no-challenge') ? {} : { 'www-authenticate': error ? `Bearer error="${error}"` : 'Bearer' };
  const value = header(ex, 'authorization');
  if (value === undefined) {
    if (on('bearer-optional')) return { ok: true, clientId: 'anonymous' };
    return { ok: false, status: 401, reason: 'the Authorization header is missing', headers: challenge() };
  }
  const match = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+)(?: +(.*))?$/.exec(value.trim());
  const bare =
    match?.[2] === undefined && options.operation !== undefined && ctx.faults.has('bearer-bare-token-accepted');
  const scheme = bare ? 'Bearer' : (match?.[1] ?? '');
  const token = (bare ? value : (match?.[2] ?? '')).trim();
  if (
    (scheme.toLowerCase() !== 'bearer' && !on('bearer-any-scheme')) ||
    (on('bearer-scheme-case-sensitive') && scheme !== 'Bearer')
  ) {
    return { ok: false, status: 401, reason: 'the Authorization scheme is not Bearer', headers: challenge() };
  }
  if (token === '' || !b64token.test(token)) {
    const malformedRequest =
      (token === '' || /\s/.test(token)) &&
      options.operation !== undefined &&
      ctx.behaviour.malformedBearerStatus === 400;
    if (malformedRequest)
      return {
        ok: false,
        status: 400,
        reason: 'the Authorization header holds no single bearer token',
        headers: challenge('invalid_request'),
      };
    return {
      ok: false,
      status: 401,
      reason: 'the bearer token is empty or malformed',
      headers: challenge('invalid_token'),
    };
  }
  const leniency: TokenLeniency = {
    skipSignature: on('bearer-signature-unchecked'),
    acceptExpired: options.acceptExpired === true || on('bearer-expiry-unchecked'),
  };
  const checked = ctx.tokens.check(token, audience, leniency);
  if (!checked.ok)
    return {
      ok: false,
      status: 401,
      reason: `the bearer token is not accepted (${checked.reason})`,
      headers: challenge('invalid_token'),
    };
  return { ok: true, clientId: checked.clientId };
}
