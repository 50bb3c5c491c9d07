import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { tokenEndpoint, tokenServiceOf, type ServiceName } from '../catalog/catalog.ts';
import { mainClient } from './credentials.ts';
import type { TokenAudience } from './layout.ts';

/** HMAC-signed claims, or opaque values kept in memory (a flavor's choice: sandbox/flavors/). */
export type TokenKind = 'signed' | 'opaque';

/** The order endpoint takes the identity service's tokens. */
export type TokenService = ServiceName;

export function audienceOf(service: TokenService): TokenAudience {
  return tokenServiceOf(service);
}

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
}

export type TokenCheck =
  | { ok: true; clientId: string }
  | { ok: false; reason: 'malformed' | 'bad-signature' | 'unknown' | 'expired' | 'wrong-audience' };

export interface TokenLeniency {
  /** bearer-signature-unchecked */
  skipSignature?: boolean;
  /** bearer-expiry-unchecked, order-expired-accepted */
  acceptExpired?: boolean;
}

interface TokenClaims {
  sub: string;
  aud: TokenAudience;
  scope: string;
  exp: number;
  jti: string;
}

const opaqueTokenShape = /^[0-9a-f]{40}$/;
const signedTokenShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** 2000-01-01T00:00:00Z: the expiry of the deterministic expired tokens. */
const longAgo = 946_684_800;

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

function signedToken(secret: string, claims: TokenClaims): string {
  const payload = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

function opaqueExpiredToken(secret: string, service: TokenService): string {
  return createHmac('sha256', secret).update(`expired:${service}`).digest('hex').slice(0, 40);
}

/**
 * A well-formed token of the main client for the service that has already expired, the same for the same
 * secret, and that the sandbox recognises as genuine: the suite tests BEARER-EXPIRED with it.
 */
export function expiredTokenFor(kind: TokenKind, secret: string, service: TokenService): string {
  if (kind === 'opaque') return opaqueExpiredToken(secret, service);
  return signedToken(secret, {
    sub: mainClient.clientId,
    aud: audienceOf(service),
    scope: tokenEndpoint.scope,
    exp: longAgo,
    jti: `expired-${service}`,
  });
}

function parseClaims(text: string): TokenClaims | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const claims = value as Partial<Record<keyof TokenClaims, unknown>>;
  if (typeof claims.sub !== 'string' || typeof claims.exp !== 'number') return undefined;
  if (claims.aud !== 'identity' && claims.aud !== 'stepup') return undefined;
  return {
    sub: claims.sub,
    aud: claims.aud,
    scope: typeof claims.scope === 'string' ? claims.scope : '',
    exp: claims.exp,
    jti: typeof claims.jti === 'string' ? claims.jti : '',
  };
}

/** Mints and checks access tokens: HMAC-signed `payload.signature`, or opaque 40-hex-digit values kept in memory. */
export class TokenIssuer {
  private readonly opaque = new Map<string, { clientId: string; aud: TokenAudience; exp: number }>();

  constructor(
    readonly kind: TokenKind,
    private readonly secret: string,
    readonly lifetimeSeconds: number,
    /** Told every token issued (SANDBOX_ISSUED_TOKENS_FILE: the self-tests search the artifacts for them). */
    private readonly onIssued?: (accessToken: string) => void,
  ) {
    if (kind === 'opaque') {
      for (const service of ['identity', 'stepup', 'orders'] as const) {
        this.opaque.set(opaqueExpiredToken(secret, service), {
          clientId: mainClient.clientId,
          aud: audienceOf(service),
          exp: longAgo,
        });
      }
    }
  }

  issue(clientId: string, aud: TokenAudience, scope: string): IssuedToken {
    const exp = nowSeconds() + this.lifetimeSeconds;
    let accessToken: string;
    if (this.kind === 'opaque') {
      accessToken = randomBytes(20).toString('hex');
      this.opaque.set(accessToken, { clientId, aud, exp });
    } else {
      accessToken = signedToken(this.secret, { sub: clientId, aud, scope, exp, jti: randomUUID() });
    }
    this.onIssued?.(accessToken);
    return { accessToken, expiresIn: this.lifetimeSeconds };
  }

  check(token: string, aud: TokenAudience, leniency: TokenLeniency = {}): TokenCheck {
    const found = this.kind === 'opaque' ? this.lookUpOpaque(token, aud, leniency) : this.verifySigned(token, leniency);
    if (!found.ok) return found;
    if (found.exp <= nowSeconds() && !leniency.acceptExpired) return { ok: false, reason: 'expired' };
    if (found.aud !== aud) return { ok: false, reason: 'wrong-audience' };
    return { ok: true, clientId: found.clientId };
  }

  private lookUpOpaque(
    token: string,
    aud: TokenAudience,
    leniency: TokenLeniency,
  ): { ok: true; clientId: string; aud: TokenAudience; exp: number } | { ok: false; reason: 'malformed' | 'unknown' } {
    if (!opaqueTokenShape.test(token)) return { ok: false, reason: 'malformed' };
    const entry = this.opaque.get(token);
    if (entry) return { ok: true, ...entry };
    if (leniency.skipSignature)
      return { ok: true, clientId: mainClient.clientId, aud, exp: nowSeconds() + this.lifetimeSeconds };
    return { ok: false, reason: 'unknown' };
  }

  private verifySigned(
    token: string,
    leniency: TokenLeniency,
  ):
    | { ok: true; clientId: string; aud: TokenAudience; exp: number }
    | { ok: false; reason: 'malformed' | 'bad-signature' } {
    if (!signedTokenShape.test(token)) return { ok: false, reason: 'malformed' };
    const [payload = '', signature = ''] = token.split('.');
    if (!leniency.skipSignature) {
      const expected = Buffer.from(sign(this.secret, payload), 'utf8');
      const given = Buffer.from(signature, 'utf8');
      if (expected.length !== given.length || !timingSafeEqual(expected, given))
        return { ok: false, reason: 'bad-signature' };
    }
    const claims = parseClaims(payload);
    if (!claims) return { ok: false, reason: 'malformed' };
    return { ok: true, clientId: claims.sub, aud: claims.aud, exp: claims.exp };
  }
}
