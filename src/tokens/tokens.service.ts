import { Injectable } from '@nestjs/common';
import { AuthService, type IssuedToken } from '../auth/auth.service.js';
import { DECOY_HASH, verifyPassword } from '../auth/password-hasher.js';
import { DomainError } from '../common/errors/domain-error.js';
import { RateLimiter } from '../common/rate-limit/rate-limiter.js';
import { AppConfig } from '../config/app-config.js';
import { normalizeEmail } from '../common/validation/transforms.js';
import { UsersService } from '../users/users.service.js';

const ACCOUNT_WINDOW_S = 3600;

/** Sign-in, the same for REST and GraphQL. */
@Injectable()
export class TokensService {
  constructor(
    private readonly auth: AuthService,
    private readonly users: UsersService,
    private readonly config: AppConfig,
    private readonly limiter: RateLimiter,
  ) {}

  /**
   * Sign-in limits that cannot be turned against a user: attempts per client address
   * (RATE_LIMIT_AUTH_MAX per window, counted before the password hash, so a document of many
   * aliased sign-ins counts each one), failures per (e-mail, address) pair, and failures per
   * e-mail from all addresses together (RATE_LIMIT_ACCOUNT_MAX per hour, against distributed
   * guessing). Failures from one address never stop the right password from another one
   * below that ceiling.
   */
  async issueToken(rawEmail: string, password: string, clientAddress = 'unknown'): Promise<IssuedToken> {
    const { rateLimitAuthMax, rateLimitAccountMax, rateLimitWindowS } = this.config;
    const email = normalizeEmail(rawEmail);
    const pairKey = `auth-pair:${clientAddress}:${email}`;
    const accountKey = `auth-account:${email}`;
    await this.limiter.refuseAtLimit(pairKey, rateLimitAuthMax);
    await this.limiter.refuseAtLimit(accountKey, rateLimitAccountMax);
    await this.limiter.consume(`auth-ip:${clientAddress}`, rateLimitAuthMax, rateLimitWindowS);
    const user = await this.users.findWithPasswordHash(email);
    // Verify against a decoy when the e-mail is unknown, so both failures take the same time.
    const valid = await verifyPassword(password, user?.passwordHash ?? DECOY_HASH);
    if (!user || !valid) {
      if (rateLimitAuthMax > 0) await this.limiter.countFailure(pairKey, rateLimitWindowS);
      if (rateLimitAccountMax > 0) await this.limiter.countFailure(accountKey, ACCOUNT_WINDOW_S);
      throw DomainError.unauthenticated('The e-mail address or password is wrong');
    }
    return this.auth.issue(user.id);
  }
}
