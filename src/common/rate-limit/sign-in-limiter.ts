import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { RateLimiter } from './rate-limiter.js';

/** Failures per e-mail from all addresses are counted over an hour (RATE_LIMIT_ACCOUNT_MAX). */
const ACCOUNT_WINDOW_S = 3600;

/**
 * The sign-in limits, for every check of a password: signing in (POST /tokens, createToken) and
 * the `currentPassword` of a password change or of a new API key all count in the same
 * counters. Per client address: RATE_LIMIT_AUTH_MAX attempts per window (counted before the
 * hash); per (e-mail, address): as many failures; per e-mail from all addresses:
 * RATE_LIMIT_ACCOUNT_MAX failures per hour. Failures from one address never stop the right
 * password from another one below that ceiling. `email` is already normalized.
 */
@Injectable()
export class SignInLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
  ) {}

  /** Before a password is checked: 429 RATE_LIMITED once over a limit; counts the attempt of the address. */
  async attempt(email: string, clientAddress: string): Promise<void> {
    const { rateLimitAuthMax, rateLimitAccountMax, rateLimitWindowS } = this.config;
    await this.limiter.refuseAtLimit(pairKey(email, clientAddress), rateLimitAuthMax);
    await this.limiter.refuseAtLimit(accountKey(email), rateLimitAccountMax);
    await this.limiter.consume(`auth-ip:${clientAddress}`, rateLimitAuthMax, rateLimitWindowS);
  }

  /** After a wrong password. */
  async failed(email: string, clientAddress: string): Promise<void> {
    const { rateLimitAuthMax, rateLimitAccountMax, rateLimitWindowS } = this.config;
    if (rateLimitAuthMax > 0) await this.limiter.countFailure(pairKey(email, clientAddress), rateLimitWindowS);
    if (rateLimitAccountMax > 0) await this.limiter.countFailure(accountKey(email), ACCOUNT_WINDOW_S);
  }
}

const pairKey = (email: string, clientAddress: string) => `auth-pair:${clientAddress}:${email}`;
const accountKey = (email: string) => `auth-account:${email}`;
