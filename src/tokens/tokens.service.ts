import { Injectable } from '@nestjs/common';
import { AuthService, type IssuedToken } from '../auth/auth.service.js';
import { DECOY_HASH, verifyPassword } from '../auth/password-hasher.js';
import { DomainError } from '../common/errors/domain-error.js';
import { SignInLimiter } from '../common/rate-limit/sign-in-limiter.js';
import { normalizeEmail } from '../common/validation/transforms.js';
import { UsersService } from '../users/users.service.js';

/** Sign-in, the same for REST and GraphQL. */
@Injectable()
export class TokensService {
  constructor(
    private readonly auth: AuthService,
    private readonly users: UsersService,
    private readonly limits: SignInLimiter,
  ) {}

  /**
   * Sign-in, under limits that cannot be turned against a user (SignInLimiter): counted before
   * the password hash, so a document of many aliased sign-ins counts each one.
   */
  async issueToken(rawEmail: string, password: string, clientAddress = 'unknown'): Promise<IssuedToken> {
    const email = normalizeEmail(rawEmail);
    await this.limits.attempt(email, clientAddress);
    const user = await this.users.findWithPasswordHash(email);
    // Verify against a decoy when the e-mail is unknown, so both failures take the same time.
    const valid = await verifyPassword(password, user?.passwordHash ?? DECOY_HASH);
    if (!user || !valid) {
      await this.limits.failed(email, clientAddress);
      throw DomainError.unauthenticated('The e-mail address or password is wrong');
    }
    return this.auth.issue(user.id);
  }
}
