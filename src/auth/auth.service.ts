import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AppConfig } from '../config/app-config.js';
import { DomainError } from '../common/errors/domain-error.js';
import { RateLimiter } from '../common/rate-limit/rate-limiter.js';
import { UsersService } from '../users/users.service.js';
import type { Actor } from './actor.js';
import { DECOY_HASH, verifyPassword } from './password-hasher.js';

export interface IssuedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
}

// The scheme is case-insensitive (RFC 9110 §11.1).
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/i;

/**
 * Tokens in, actors out. Used by the HTTP guard, the GraphQL context and the WebSocket
 * connection handshake alike, so every transport authenticates the same way.
 */
@Injectable()
export class AuthService {
  constructor(
    private readonly jwt: JwtService,
    private readonly users: UsersService,
    private readonly config: AppConfig,
    private readonly limiter: RateLimiter,
  ) {}

  /**
   * Signs in. Attempts are limited per client address and per e-mail address
   * (RATE_LIMIT_AUTH_MAX per window), the same for REST and GraphQL.
   */
  async issueToken(email: string, password: string, clientAddress = 'unknown'): Promise<IssuedToken> {
    const { rateLimitAuthMax, rateLimitWindowS } = this.config;
    await this.limiter.consume(`auth-ip:${clientAddress}`, rateLimitAuthMax, rateLimitWindowS);
    await this.limiter.consume(`auth-email:${email.toLowerCase()}`, rateLimitAuthMax, rateLimitWindowS);
    const user = await this.users.findWithPasswordHash(email);
    // Verify against a decoy when the e-mail is unknown, so both failures take the same time.
    const valid = await verifyPassword(password, user?.passwordHash ?? DECOY_HASH);
    if (!user || !valid) throw DomainError.unauthenticated('The e-mail address or password is wrong');
    const accessToken = await this.jwt.signAsync(
      { sub: String(user.id) },
      { algorithm: 'HS256', expiresIn: this.config.jwtExpiresInS },
    );
    return { accessToken, tokenType: 'Bearer', expiresIn: this.config.jwtExpiresInS };
  }

  /**
   * The actor behind an `Authorization` header value: null when there is none, 401 when it
   * is malformed, badly signed, expired, or names a user who no longer exists.
   */
  async authenticate(authorization: string | undefined | null): Promise<Actor | null> {
    if (authorization === undefined || authorization === null || authorization === '') return null;
    const match = BEARER.exec(authorization.trim());
    if (!match) throw DomainError.unauthenticated('The Authorization header must be "Bearer <token>"');
    let subject: string | undefined;
    let expiresAt: number | undefined;
    try {
      const payload = await this.jwt.verifyAsync<{ sub?: unknown; exp?: unknown }>(match[1], { algorithms: ['HS256'] });
      subject = typeof payload.sub === 'string' ? payload.sub : undefined;
      expiresAt = typeof payload.exp === 'number' ? payload.exp : undefined;
    } catch {
      throw DomainError.unauthenticated('The bearer token is invalid or expired');
    }
    const id = subject !== undefined && /^[1-9]\d{0,9}$/.test(subject) ? Number(subject) : NaN;
    const user = Number.isSafeInteger(id) ? await this.users.findById(id) : null;
    if (!user) throw DomainError.unauthenticated('The bearer token is invalid or expired');
    return { id: user.id, role: user.role, expiresAt };
  }
}
