import { beforeEach, describe, expect, it, type Mocked } from 'vitest';
import { codeOf, newTestService } from '../../test/support/unit.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { PUBLIC_AUDIENCE, ReadPolicy } from '../auth/read-policy.js';
import { hashPassword } from '../auth/password-hasher.js';
import type { Actor } from '../common/actor.js';
import { RateLimiter } from '../common/rate-limit/rate-limiter.js';
import { SignInLimiter } from '../common/rate-limit/sign-in-limiter.js';
import { EventPublisher } from '../events/event-publisher.js';
import { MediaService } from '../media/media.service.js';
import { User } from './user.entity.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';

// The rules of UsersService with its repository replaced: no database, no Nest application.

const alice: Actor = { id: 2, role: 'author' };
const admin: Actor = { id: 1, role: 'admin' };

function user(fields: Partial<User> = {}): User {
  return Object.assign(new User(), {
    id: 2, name: 'Alice', email: 'alice@example.com', avatarUrl: null, role: 'author', createdAt: new Date(0), updatedAt: new Date(0), version: 1, ...fields,
  });
}

describe('UsersService', () => {
  let repository: Mocked<UsersRepository>;
  let limiter: Mocked<RateLimiter>;
  let signIns: Mocked<SignInLimiter>;
  let events: Mocked<EventPublisher>;
  let service: UsersService;

  beforeEach(async () => {
    const unit = await newTestService(UsersService, {
      real: [new AuthorizationPolicy(), new ReadPolicy()],
      env: { RATE_LIMIT_SIGNUP_MAX: '10', RATE_LIMIT_WINDOW_S: '60' },
    });
    ({ service } = unit);
    repository = unit.mock(UsersRepository);
    limiter = unit.mock(RateLimiter);
    signIns = unit.mock(SignInLimiter);
    events = unit.mock(EventPublisher);
    unit.mock(MediaService).eraseUploadsOf.mockResolvedValue(() => Promise.resolve());
    repository.insert.mockImplementation(async (values) => user(values));
    repository.findById.mockImplementation(async () => user());
    repository.updateVersioned.mockImplementation(async (current, changes) => user({ ...current, ...changes, version: current.version + 1 }));
    repository.exists.mockResolvedValue(true);
    repository.cascade.mockResolvedValue({
      posts: [
        { id: 5, authorId: 2, status: 'published' },
        { id: 6, authorId: 2, status: 'trashed' },
      ],
      comments: [{ id: 9, postId: 5, authorId: 3, status: 'approved', post: { status: 'published', authorId: 2 } }],
    });
    repository.delete.mockResolvedValue(true);
    repository.lockAdmins.mockResolvedValue([1, 4]);
    repository.passwordOf.mockImplementation(async () => ({ email: 'alice@example.com', passwordHash: await hashPassword('old password') }));
    repository.revokeTokens.mockResolvedValue(true);
  });

  it('signs up an author with a lower-cased e-mail and a password hash, never the password', async () => {
    await service.create({ name: 'Alice', email: 'Alice@Example.COM', password: 'correct horse' });
    const values = repository.insert.mock.calls[0][0] as Record<string, unknown>;
    expect(values).toMatchObject({ email: 'alice@example.com', role: 'author', avatarUrl: null });
    expect(values.passwordHash).toEqual(expect.any(String));
    expect(values.passwordHash).not.toContain('correct horse');
    expect(values).not.toHaveProperty('password');
  });

  it('turns a unique violation into CONFLICT', async () => {
    repository.insert.mockRejectedValueOnce(Object.assign(new Error('unique'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }));
    expect(await codeOf(service.create({ name: 'A', email: 'a@example.com', password: 'long enough pw' }))).toBe('CONFLICT');
  });

  it('lets only blockers set commentsBlocked, never on themselves alone, and needs every permission a body touches', async () => {
    const moderator: Actor = { id: 5, role: 'moderator' };
    expect(await codeOf(service.update(2, { commentsBlocked: false }, alice))).toBe('FORBIDDEN');
    expect(await codeOf(service.update(2, { commentsBlocked: true, name: 'X' }, moderator))).toBe('FORBIDDEN');
    expect(await codeOf(service.update(2, { role: 'editor' }, { id: 6, role: 'editor' }))).toBe('FORBIDDEN');
    expect(await codeOf(service.update(2, { commentsBlocked: true }, { ...moderator, scopes: ['read'], apiKeyId: 1 }))).toBe('INSUFFICIENT_SCOPE');
    expect(repository.updateVersioned).not.toHaveBeenCalled();
    await service.update(2, { commentsBlocked: true }, moderator);
    expect(repository.updateVersioned).toHaveBeenCalledWith(expect.objectContaining({ id: 2 }), { commentsBlocked: true }, undefined, expect.anything());
  });

  it('reveals commentsBlocked to the user and to blockers with more than a read key', () => {
    const target = user({ id: 2 });
    expect(service.revealsCommentsBlocked(alice, target)).toBe(true);
    expect(service.revealsCommentsBlocked({ ...alice, scopes: ['read'], apiKeyId: 1 }, target)).toBe(true);
    expect(service.revealsCommentsBlocked(null, target)).toBe(false);
    expect(service.revealsCommentsBlocked({ id: 3, role: 'author' }, target)).toBe(false);
    for (const role of ['moderator', 'editor', 'admin'] as const) expect(service.revealsCommentsBlocked({ id: 3, role }, target)).toBe(true);
    expect(service.revealsCommentsBlocked({ id: 3, role: 'moderator', scopes: ['read'], apiKeyId: 2 }, target)).toBe(false);
  });

  it("lets a user change only themselves, and only an admin change a role", async () => {
    expect(await codeOf(service.update(3, { name: 'X' }, alice))).toBe('FORBIDDEN');
    expect(await codeOf(service.update(2, { role: 'admin' }, alice))).toBe('FORBIDDEN');
    expect(repository.updateVersioned).not.toHaveBeenCalled();
    await service.update(2, { role: 'admin' }, admin);
    expect(repository.updateVersioned).toHaveBeenCalledWith(expect.objectContaining({ id: 2 }), { role: 'admin' }, undefined, expect.anything());
  });

  it('says credentialsChanged after a role or password change, not after a name change', async () => {
    await service.update(2, { name: 'New name' }, alice);
    expect(events.credentialsChanged).not.toHaveBeenCalled();
    await service.update(2, { password: 'a new password', currentPassword: 'old password' }, alice);
    expect(events.credentialsChanged).toHaveBeenCalledWith(2);
  });

  it('needs the current password to change one’s own, and stamps the tokens issued before as revoked', async () => {
    expect(await codeOf(service.update(2, { password: 'a new password' }, alice))).toBe('BAD_USER_INPUT');
    expect(await codeOf(service.update(2, { password: 'a new password', currentPassword: 'wrong guess' }, alice, { clientAddress: '203.0.113.5' }))).toBe('FORBIDDEN');
    expect(repository.updateVersioned).not.toHaveBeenCalled();
    // A wrong guess is a failed sign-in of that address and account.
    expect(signIns.attempt).toHaveBeenCalledWith('alice@example.com', '203.0.113.5');
    expect(signIns.failed).toHaveBeenCalledWith('alice@example.com', '203.0.113.5');
    signIns.attempt.mockRejectedValueOnce(Object.assign(new Error('limited'), { code: 'RATE_LIMITED' }));
    expect(await codeOf(service.update(2, { password: 'a new password', currentPassword: 'old password' }, alice))).toBe('RATE_LIMITED');
    expect(repository.updateVersioned).not.toHaveBeenCalled();
    await service.update(2, { password: 'a new password', currentPassword: 'old password' }, alice);
    const changes = repository.updateVersioned.mock.calls[0][1] as Partial<User>;
    expect(changes.passwordHash).toEqual(expect.any(String));
    expect(changes.tokensValidAfter).toBeInstanceOf(Date);
  });

  it('confirmPresence: a token under 5 minutes old, else the current password (400 without, 403 wrong, counted)', async () => {
    const nowS = Date.now() / 1000;
    await service.confirmPresence({ ...alice, issuedAt: nowS - 60 }, undefined, '203.0.113.6');
    expect(repository.passwordOf).not.toHaveBeenCalled();
    expect(await codeOf(service.confirmPresence({ ...alice, issuedAt: nowS - 301 }, undefined))).toBe('BAD_USER_INPUT');
    expect(await codeOf(service.confirmPresence(alice, undefined))).toBe('BAD_USER_INPUT');
    expect(await codeOf(service.confirmPresence({ ...alice, issuedAt: nowS - 301 }, 'wrong guess', '203.0.113.6'))).toBe('FORBIDDEN');
    expect(signIns.failed).toHaveBeenCalledWith('alice@example.com', '203.0.113.6');
    // Given, the password is checked even with a fresh token.
    expect(await codeOf(service.confirmPresence({ ...alice, issuedAt: nowS }, 'wrong guess'))).toBe('FORBIDDEN');
    await service.confirmPresence({ ...alice, issuedAt: nowS - 3600 }, 'old password');
  });

  it("lets an admin set another user's password without theirs", async () => {
    await service.update(2, { password: 'set by admin' }, admin);
    expect(repository.passwordOf).not.toHaveBeenCalled();
    expect(repository.updateVersioned).toHaveBeenCalled();
  });

  it('refuses to demote or delete the last admin (409), and allows it while another admin remains', async () => {
    repository.findById.mockResolvedValue(user({ id: 1, role: 'admin' }));
    repository.lockAdmins.mockResolvedValue([1]);
    expect(await codeOf(service.update(1, { role: 'author' }, admin))).toBe('CONFLICT');
    expect(await codeOf(service.delete(1, admin))).toBe('CONFLICT');
    expect(repository.delete).not.toHaveBeenCalled();
    repository.lockAdmins.mockResolvedValue([1, 4]);
    await service.update(1, { role: 'author' }, admin);
    await service.delete(1, admin);
    expect(repository.delete).toHaveBeenCalledWith(1, expect.anything());
  });

  it('revokeTokens: the user or an admin, then credentialsChanged', async () => {
    expect(await codeOf(service.revokeTokens(3, alice))).toBe('FORBIDDEN');
    await service.revokeTokens(2, alice);
    expect(repository.revokeTokens).toHaveBeenCalledWith(2, expect.any(Date), expect.anything());
    expect(events.credentialsChanged).toHaveBeenCalledWith(2);
    repository.revokeTokens.mockResolvedValueOnce(false);
    expect(await codeOf(service.revokeTokens(9, admin))).toBe('NOT_FOUND');
  });

  it('counts every sign-up against the address before hashing', async () => {
    await service.signUp({ name: 'A', email: 'a@example.com', password: 'long enough pw' }, '203.0.113.9');
    expect(limiter.consume).toHaveBeenCalledWith('signup-ip:203.0.113.9', 10, 60);
    limiter.consume.mockRejectedValueOnce(Object.assign(new Error('limited'), { code: 'RATE_LIMITED' }));
    expect(await codeOf(service.signUp({ name: 'B', email: 'b@example.com', password: 'long enough pw' }, '203.0.113.9'))).toBe('RATE_LIMITED');
    expect(repository.insert).toHaveBeenCalledTimes(1);
  });

  it('deletes with its cascade announced, comments first (each with the audience of its post), posts public, and says credentialsChanged', async () => {
    await service.delete(2, alice);
    expect(events.credentialsChanged).toHaveBeenCalledWith(2);
    expect(events.record).toHaveBeenCalledWith(
      expect.anything(),
      { name: 'commentDeleted', payload: { id: 9, postId: 5, authorId: 3 }, audience: PUBLIC_AUDIENCE },
      { name: 'postDeleted', payload: { id: 5, authorId: 2 }, audience: PUBLIC_AUDIENCE },
      { name: 'postDeleted', payload: { id: 6, authorId: 2 }, audience: PUBLIC_AUDIENCE },
    );
  });

  it('is NOT_FOUND to delete a user who does not exist, and announces nothing', async () => {
    repository.findById.mockResolvedValueOnce(null);
    expect(await codeOf(service.delete(2, admin))).toBe('NOT_FOUND');
    expect(events.record).not.toHaveBeenCalled();
    expect(events.committed).not.toHaveBeenCalled();
    expect(events.credentialsChanged).not.toHaveBeenCalled();
  });
});
