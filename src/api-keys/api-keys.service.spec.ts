import { beforeEach, describe, expect, it, type Mocked } from 'vitest';
import { codeOf, newTestService } from '../../test/support/unit.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import type { Actor } from '../common/actor.js';
import { DomainError } from '../common/errors/domain-error.js';
import { EventPublisher } from '../events/event-publisher.js';
import { UsersService } from '../users/users.service.js';
import { ApiKey } from './api-key.entity.js';
import { ApiKeysRepository, type KeyCredential } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';

// Who may create, see and revoke keys, what a key is stored as, and what it grants: no database.

const alice: Actor = { id: 2, role: 'author', issuedAt: Date.now() / 1000 };
const bob: Actor = { id: 3, role: 'author' };
const admin: Actor = { id: 1, role: 'admin' };
const alicesKey = (scopes: Actor['scopes']): Actor => ({ id: 2, role: 'author', scopes, apiKeyId: 8 });
const SECRET = 'a test secret of at least 32 characters';

const storedKey = (fields: Partial<ApiKey>): ApiKey =>
  Object.assign(new ApiKey(), { id: 8, userId: 2, name: 'Export', scopes: 'read', createdAt: new Date(1000), expiresAt: null, lastUsedAt: null, ...fields });

const credential = (fields: Partial<KeyCredential> = {}): KeyCredential => ({
  id: 8, userId: 2, role: 'author', scopes: 'read,write', createdAt: new Date(1_000_000), expiresAt: null, lastUsedAt: null, tokensValidAfter: null, ...fields,
});

describe('ApiKeysService', () => {
  let keys: Mocked<ApiKeysRepository>;
  let users: Mocked<UsersService>;
  let events: Mocked<EventPublisher>;
  let service: ApiKeysService;

  beforeEach(async () => {
    const unit = await newTestService(ApiKeysService, { real: [new AuthorizationPolicy()], env: { JWT_SECRET: SECRET } });
    ({ service } = unit);
    keys = unit.mock(ApiKeysRepository);
    users = unit.mock(UsersService);
    events = unit.mock(EventPublisher);
    users.exists.mockResolvedValue(true);
    keys.insert.mockImplementation(async (values) => storedKey(values));
    keys.deleteForUser.mockResolvedValue({ name: 'CI', userId: 2 });
  });

  describe('create', () => {
    it('is for people only: anonymous is 401, a key (even one that may write) is INSUFFICIENT_SCOPE', async () => {
      expect(await codeOf(service.create(2, { name: 'K', scopes: ['read'] }, null))).toBe('UNAUTHENTICATED');
      expect(await codeOf(service.create(2, { name: 'K', scopes: ['read'] }, alicesKey(['read', 'write'])))).toBe('INSUFFICIENT_SCOPE');
      expect(keys.insert).not.toHaveBeenCalled();
    });

    it("lets a user create their own keys and an admin anyone's, nobody else", async () => {
      expect(await codeOf(service.create(2, { name: 'K', scopes: ['read'] }, bob))).toBe('FORBIDDEN');
      await service.create(2, { name: 'K', scopes: ['read'] }, admin);
      expect(keys.insert).toHaveBeenCalledWith(expect.objectContaining({ userId: 2 }), expect.anything());
    });

    it('needs the presence of the person at the keyboard (UsersService.confirmPresence) before anything is stored', async () => {
      await service.create(2, { name: 'K', scopes: ['read'], currentPassword: 'pw' }, alice, '203.0.113.7');
      expect(users.confirmPresence).toHaveBeenCalledWith(alice, 'pw', '203.0.113.7');
      users.confirmPresence.mockRejectedValueOnce(DomainError.forbidden('currentPassword is wrong'));
      expect(await codeOf(service.create(2, { name: 'K', scopes: ['read'], currentPassword: 'wrong' }, alice))).toBe('FORBIDDEN');
      expect(keys.insert).toHaveBeenCalledTimes(1);
    });

    it('refuses an expiry in the past (400) and a user who does not exist (404)', async () => {
      expect(await codeOf(service.create(2, { name: 'K', scopes: ['read'], expiresAt: new Date(Date.now() - 1000) }, alice))).toBe('BAD_USER_INPUT');
      users.exists.mockResolvedValueOnce(false);
      expect(await codeOf(service.create(5, { name: 'K', scopes: ['read'] }, admin))).toBe('NOT_FOUND');
      expect(keys.insert).not.toHaveBeenCalled();
      expect(users.confirmPresence).not.toHaveBeenCalled();
    });

    it('shows the key once and stores only its keyed hash, with the scopes in one order', async () => {
      const created = await service.create(2, { name: 'K', scopes: ['write', 'read'] }, alice);
      expect(created.key).toMatch(/^blog_[A-Za-z0-9_-]{43}$/);
      expect(created.scopes).toEqual(['read', 'write']);
      const stored = keys.insert.mock.calls[0][0];
      expect(stored).toMatchObject({ userId: 2, name: 'K', scopes: 'read,write', expiresAt: null, lastUsedAt: null });
      expect(stored.keyHash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(stored)).not.toContain(created.key.slice(5));
      // The key verifies against what was stored.
      await service.verify(created.key);
      expect(keys.findCredential).toHaveBeenCalledWith(stored.keyHash);
    });

    it('keys its hash with JWT_SECRET: a stolen table alone verifies nothing', async () => {
      const other = await newTestService(ApiKeysService, { real: [new AuthorizationPolicy()], env: { JWT_SECRET: `${SECRET}, but another` } });
      await service.verify('blog_the-same-key');
      await other.service.verify('blog_the-same-key');
      expect(keys.findCredential.mock.calls[0][0]).not.toBe(other.mock(ApiKeysRepository).findCredential.mock.calls[0][0]);
    });
  });

  describe('list and revoke', () => {
    it("shows a user their keys with any credential (a read key too), others' to admins only, never the key", async () => {
      keys.listForUser.mockResolvedValue([storedKey({ keyHash: 'f'.repeat(64) })]);
      const listed = await service.list(2, alicesKey(['read']));
      expect(listed).toEqual([{ id: 8, name: 'Export', scopes: ['read'], createdAt: new Date(1000), expiresAt: null, lastUsedAt: null }]);
      expect(await codeOf(service.list(2, bob))).toBe('FORBIDDEN');
      expect(await codeOf(service.list(2, { ...admin, scopes: ['read'], apiKeyId: 9 }))).toBe('INSUFFICIENT_SCOPE');
      expect(await codeOf(service.list(2, admin))).toBe('resolved');
    });

    it('revokes for the user or an admin, says credentialsChanged (open sockets close), 404 for a key not theirs', async () => {
      expect(await codeOf(service.revoke(2, 8, bob))).toBe('FORBIDDEN');
      await service.revoke(2, 8, alice);
      expect(keys.deleteForUser).toHaveBeenCalledWith(2, 8, expect.anything());
      expect(events.credentialsChanged).toHaveBeenCalledWith(2);
      keys.deleteForUser.mockResolvedValueOnce(null);
      expect(await codeOf(service.revoke(2, 9, admin))).toBe('NOT_FOUND');
      expect(events.credentialsChanged).toHaveBeenCalledTimes(1);
    });
  });

  describe('verify', () => {
    it("is the key's user with the key's scopes, and hands AuthService the user's revocation stamp", async () => {
      const stamp = new Date(2_000_000);
      keys.findCredential.mockResolvedValue(credential({ role: 'admin', scopes: 'read', tokensValidAfter: stamp }));
      expect(await service.verify('blog_x')).toEqual({
        actor: { id: 2, role: 'admin', scopes: ['read'], apiKeyId: 8, expiresAt: undefined },
        issuedAt: 1000,
        validAfter: stamp,
      });
    });

    it('is null for an unknown or expired key', async () => {
      expect(await service.verify('blog_unknown')).toBeNull();
      keys.findCredential.mockResolvedValue(credential({ expiresAt: new Date(Date.now() - 1) }));
      expect(await service.verify('blog_x')).toBeNull();
    });

    it('writes lastUsedAt at most once a minute', async () => {
      keys.findCredential.mockResolvedValue(credential({ lastUsedAt: new Date(Date.now() - 10_000) }));
      await service.verify('blog_x');
      expect(keys.touch).not.toHaveBeenCalled();
      keys.findCredential.mockResolvedValue(credential({ lastUsedAt: new Date(Date.now() - 61_000) }));
      await service.verify('blog_x');
      expect(keys.touch).toHaveBeenCalledWith(8, expect.any(Date));
    });
  });
});
