import { beforeAll, beforeEach, describe, expect, it, type Mocked } from 'vitest';
import { codeOf, newTestService } from '../../test/support/unit.js';
import { AuthService } from '../auth/auth.service.js';
import { hashPassword } from '../auth/password-hasher.js';
import { DomainError } from '../common/errors/domain-error.js';
import { SignInLimiter } from '../common/rate-limit/sign-in-limiter.js';
import { User } from '../users/user.entity.js';
import { UsersService } from '../users/users.service.js';
import { TokensService } from './tokens.service.js';

// Sign-in: what counts as an attempt and as a failure, and what a success hands out. No database.

const ADDRESS = '198.51.100.4';
const issued = { accessToken: 'signed', tokenType: 'Bearer' as const, expiresIn: 3600 };

describe('TokensService', () => {
  let alice: User;
  let auth: Mocked<AuthService>;
  let users: Mocked<UsersService>;
  let limits: Mocked<SignInLimiter>;
  let service: TokensService;

  beforeAll(async () => {
    alice = Object.assign(new User(), { id: 2, email: 'alice@example.com', role: 'author', passwordHash: await hashPassword('alice-password') });
  });

  beforeEach(async () => {
    const unit = await newTestService(TokensService);
    ({ service } = unit);
    auth = unit.mock(AuthService);
    users = unit.mock(UsersService);
    limits = unit.mock(SignInLimiter);
    users.findWithPasswordHash.mockImplementation(async (email) => (email === alice.email ? alice : null));
    auth.issue.mockResolvedValue(issued);
  });

  it('issues a token for the right password, counts the attempt and no failure', async () => {
    expect(await service.issueToken('alice@example.com', 'alice-password', ADDRESS)).toBe(issued);
    expect(auth.issue).toHaveBeenCalledWith(2);
    expect(limits.attempt).toHaveBeenCalledWith('alice@example.com', ADDRESS);
    expect(limits.failed).not.toHaveBeenCalled();
  });

  it('counts a wrong password and an unknown e-mail alike as failures of that address and account, and answers both 401', async () => {
    expect(await codeOf(service.issueToken('alice@example.com', 'a wrong guess', ADDRESS))).toBe('UNAUTHENTICATED');
    expect(await codeOf(service.issueToken('nobody@example.com', 'alice-password', ADDRESS))).toBe('UNAUTHENTICATED');
    expect(limits.failed.mock.calls).toEqual([
      ['alice@example.com', ADDRESS],
      ['nobody@example.com', ADDRESS],
    ]);
    expect(auth.issue).not.toHaveBeenCalled();
  });

  it('counts under the normalized e-mail, so case and width do not make new counters', async () => {
    await codeOf(service.issueToken(' ALICE@Example.com', 'a wrong guess', ADDRESS));
    expect(limits.attempt).toHaveBeenCalledWith('alice@example.com', ADDRESS);
    expect(limits.failed).toHaveBeenCalledWith('alice@example.com', ADDRESS);
  });

  it('once over a limit, refuses before the password is looked at (429, no hash read, nothing issued)', async () => {
    limits.attempt.mockRejectedValueOnce(new DomainError('RATE_LIMITED', 'Too many sign-ins', undefined, { 'Retry-After': '60' }));
    expect(await codeOf(service.issueToken('alice@example.com', 'alice-password', ADDRESS))).toBe('RATE_LIMITED');
    expect(users.findWithPasswordHash).not.toHaveBeenCalled();
    expect(auth.issue).not.toHaveBeenCalled();
  });
});
