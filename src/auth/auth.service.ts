import { Injectable, Optional } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '../config/app-config.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { Actor } from '../common/actor.js';
import { AccountLookup } from './account-lookup.js';
import { ApiKeyVerifier, ExternalTokenVerifier, type VerifiedCredential } from './credential-verifiers.js';

export interface IssuedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
}

// The scheme is case-insensitive (RFC 9110 §11.1). The credential is a JWT or an API key.
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*|blog_[A-Za-z0-9_-]{1,200})$/i;
const API_KEY_PREFIX = 'blog_';

/** What authentication reads of one of our tokens, once its signature and claims are checked. */
interface TokenClaims {
  subject: string | undefined;
  expiresAt: number | undefined;
  issuedAt: number | undefined;
}

/** Tokens whose claims are kept (about 5 MB at most): far more than the clients of one instance use at once. */
const VERIFIED_TOKENS_MAX = 10_000;

/** The `alg` of a JWT's header, without trusting anything else in it. */
function algorithmOf(token: string): unknown {
  try {
    return (JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8')) as { alg?: unknown }).alg;
  } catch {
    return undefined;
  }
}

/**
 * Tokens in, actors out (and tokens out, for sign-in). Used by the HTTP guard and the
 * operation gate alike, so every transport authenticates the same way.
 */
@Injectable()
export class AuthService {
  private readonly verifiedTokens = new LRUCache<string, TokenClaims>({ max: VERIFIED_TOKENS_MAX });

  constructor(
    private readonly jwt: JwtService,
    private readonly accounts: AccountLookup,
    private readonly config: AppConfig,
    @Optional() private readonly apiKeys?: ApiKeyVerifier,
    @Optional() private readonly external?: ExternalTokenVerifier,
  ) {}

  /** A bearer token for this user, valid for JWT_EXPIRES_IN_S. */
  async issue(userId: number): Promise<IssuedToken> {
    // `iat` to the millisecond (a NumericDate may be fractional), so a token issued right after a
    // revocation is told apart from one issued right before it.
    const accessToken = await this.jwt.signAsync({ sub: String(userId), iat: Date.now() / 1000 }, { algorithm: 'HS256', expiresIn: this.config.jwtExpiresInS });
    return { accessToken, tokenType: 'Bearer', expiresIn: this.config.jwtExpiresInS };
  }

  /**
   * The actor behind an `Authorization` header value: null when there is none, 401 when it
   * is empty (or `Bearer` with nothing after it: a client that meant to send a credential and
   * lost it is told so, not served as anonymous), malformed, badly signed, expired, names a user who no longer exists, or was issued
   * before that user's revocation stamp (tokens, provider tokens and API keys alike).
   */
  async authenticate(authorization: string | undefined | null): Promise<Actor | null> {
    if (authorization === undefined || authorization === null) return null;
    const match = BEARER.exec(authorization.trim());
    if (!match) throw DomainError.unauthenticated('The Authorization header must be "Bearer <token>"');
    const credential = match[1];
    if (credential.startsWith(API_KEY_PREFIX)) {
      const verified = this.apiKeys ? await this.apiKeys.verify(credential) : null;
      if (!verified) throw DomainError.unauthenticated('The API key is invalid, expired or revoked');
      return admitted(verified, 'The API key was revoked (a password change or a sign-out everywhere)');
    }
    if (this.external && algorithmOf(credential) !== 'HS256') {
      return admitted(await this.external.verify(credential), "The identity provider's token was revoked (a password change or a sign-out everywhere); sign in again");
    }
    const { subject, expiresAt, issuedAt } = await this.claimsOf(credential);
    const id = subject !== undefined && /^[1-9]\d{0,9}$/.test(subject) ? Number(subject) : NaN;
    const user = Number.isSafeInteger(id) ? await this.accounts.findAccount(id) : null;
    if (!user) throw DomainError.unauthenticated('The bearer token is invalid or expired');
    // A token without `iat` counts as issued before any stamp.
    return admitted(
      { actor: { id: user.id, role: user.role, expiresAt, issuedAt }, issuedAt: issuedAt ?? -Infinity, validAfter: user.tokensValidAfter },
      'The bearer token was revoked (a password change or a sign-out everywhere); sign in again',
    );
  }

  /**
   * The claims of one of our HS256 tokens, or 401. jsonwebtoken's check (decode, parse, HMAC,
   * claims) cost about 25 µs of every authenticated request, so a token that passed it is kept,
   * by its whole text (only the very same bytes hit), and each later use checks its `exp` as
   * jsonwebtoken does: an expired one goes back to jsonwebtoken, which refuses it. A token with
   * `nbf`, or without `exp`, is checked every time. Revocation is not cached: `authenticate`
   * reads the user's stamp on every request.
   */
  private async claimsOf(token: string): Promise<TokenClaims> {
    const kept = this.verifiedTokens.get(token);
    if (kept !== undefined && kept.expiresAt !== undefined && Math.floor(Date.now() / 1000) < kept.expiresAt) return kept;
    let payload: { sub?: unknown; exp?: unknown; iat?: unknown; nbf?: unknown };
    try {
      payload = await this.jwt.verifyAsync<typeof payload>(token, { algorithms: ['HS256'] });
    } catch {
      this.verifiedTokens.delete(token);
      throw DomainError.unauthenticated('The bearer token is invalid or expired');
    }
    const claims: TokenClaims = {
      subject: typeof payload.sub === 'string' ? payload.sub : undefined,
      expiresAt: typeof payload.exp === 'number' ? payload.exp : undefined,
      issuedAt: typeof payload.iat === 'number' ? payload.iat : undefined,
    };
    if (claims.expiresAt !== undefined && payload.nbf === undefined) this.verifiedTokens.set(token, claims);
    return claims;
  }
}

/**
 * The one revocation rule, for every kind of credential: one issued (a token) or created (an
 * API key) before its user's stamp — the last password change or sign-out everywhere — is 401.
 */
function admitted({ actor, issuedAt, validAfter }: VerifiedCredential, revoked: string): Actor {
  if (validAfter && issuedAt * 1000 < validAfter.getTime()) throw DomainError.unauthenticated(revoked);
  return actor;
}
