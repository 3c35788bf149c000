import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/audit-log.service.js';
import { AuthService, type IssuedToken } from '../auth/auth.service.js';
import { DECOY_HASH, verifyPassword } from '../auth/password-hasher.js';
import { DomainError } from '../common/errors/domain-error.js';
import { SignInLimiter } from '../common/rate-limit/sign-in-limiter.js';
import { normalizeEmail } from '../common/validation/transforms.js';
import { UsersService } from '../users/users.service.js';

/** The longest e-mail address (RFC 5321 path): a failed sign-in's entry keeps no more of what was tried. */
const TRIED_EMAIL_MAX = 254;

/** Sign-in, the same for REST and GraphQL. */
@Injectable()
export class TokensService {
  constructor(
    private readonly auth: AuthService,
    private readonly users: UsersService,
    private readonly limits: SignInLimiter,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Sign-in, under limits that cannot be turned against a user (SignInLimiter): counted before
   * the password hash, so a document of many aliased sign-ins counts each one. Each sign-in and
   * each wrong one has its audit entry (the e-mail tried, never the password); one refused by the
   * limits (429) has none, so that a flood of refused attempts writes nothing.
   */
  async issueToken(rawEmail: string, password: string, clientAddress = 'unknown'): Promise<IssuedToken> {
    const email = normalizeEmail(rawEmail);
    await this.limits.attempt(email, clientAddress);
    const user = await this.users.findWithPasswordHash(email);
    // Verify against a decoy when the e-mail is unknown, so both failures take the same time.
    const valid = await verifyPassword(password, user?.passwordHash ?? DECOY_HASH);
    if (!user || !valid) {
      await this.limits.failed(email, clientAddress);
      await this.audit.recordAlone(null, {
        action: 'auth.signInFailed',
        resource: { type: 'user', id: user?.id ?? null },
        changes: { email: { from: null, to: [...rawEmail.trim()].slice(0, TRIED_EMAIL_MAX).join('') } },
      });
      throw DomainError.unauthenticated('The e-mail address or password is wrong');
    }
    await this.audit.recordAlone({ id: user.id, role: user.role }, { action: 'auth.signIn', resource: { type: 'user', id: user.id } });
    return this.auth.issue(user.id);
  }
}
