import { beforeEach, describe, expect, it, type Mocked } from 'vitest';
import { codeOf, newTestService } from '../../test/support/unit.js';
import { EventPublisher } from '../events/event-publisher.js';
import { User } from '../users/user.entity.js';
import { UsersRepository } from '../users/users.repository.js';
import { type ExternalClaims, ExternalAccountsService, NO_PASSWORD } from './external-accounts.service.js';
import { ExternalIdentitiesRepository, type ExternalIdentity } from './external-identities.repository.js';

// The account rules of single sign-on with the repositories replaced: no database.

const claims = (fields: Partial<ExternalClaims> = {}): ExternalClaims => ({
  issuer: 'https://id.test', subject: 'sub-1', issuedAt: 1000, expiresAt: 2000, email: 'carol@example.com', emailVerified: true, name: 'Carol', role: 'author', ...fields,
});
const link = (fields: Partial<ExternalIdentity> = {}): ExternalIdentity => ({ id: 7, userId: 9, role: 'author', rolesIssuedAt: 1000, orphanedAt: null, tokensValidAfter: null, ...fields });
const user = (fields: Partial<User> = {}): User => Object.assign(new User(), { id: 9, name: 'Carol', email: 'carol@example.com', role: 'author', ...fields });
const unique = () => Object.assign(new Error('unique'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });

describe('ExternalAccountsService', () => {
  let identities: Mocked<ExternalIdentitiesRepository>;
  let users: Mocked<UsersRepository>;
  let events: Mocked<EventPublisher>;
  let service: ExternalAccountsService;

  beforeEach(async () => {
    const unit = await newTestService(ExternalAccountsService);
    ({ service } = unit);
    identities = unit.mock(ExternalIdentitiesRepository);
    users = unit.mock(UsersRepository);
    events = unit.mock(EventPublisher);
    identities.find.mockResolvedValue(null);
    identities.relink.mockResolvedValue(true);
    identities.advanceRolesIssuedAt.mockResolvedValue(true);
    users.findById.mockImplementation(async () => user());
    users.findByEmail.mockResolvedValue(null);
    users.insert.mockImplementation(async (values) => user({ id: 9, ...values }));
    users.update.mockImplementation(async () => user());
    users.countWithRole.mockResolvedValue(2);
  });

  it('the first token creates a user without a usable password, and links the subject', async () => {
    const verified = await service.actorFor(claims({ role: 'admin' }));
    expect(verified).toEqual({ actor: { id: 9, role: 'admin', expiresAt: 2000, issuedAt: 1000, external: true }, issuedAt: 1000, validAfter: null });
    expect(users.insert.mock.calls[0][0]).toEqual({ name: 'Carol', email: 'carol@example.com', passwordHash: NO_PASSWORD, avatarUrl: null, role: 'admin' });
    expect(identities.insert).toHaveBeenCalledWith('https://id.test', 'sub-1', 9, 1000, expect.anything());
  });

  it('a concurrent first token that lost the race on the unique key reads the winner\'s user', async () => {
    identities.insert.mockRejectedValueOnce(unique());
    identities.find.mockResolvedValueOnce(null).mockResolvedValueOnce(null).mockResolvedValueOnce(link({ userId: 4 }));
    expect((await service.actorFor(claims())).actor.id).toBe(4);
  });

  it('a concurrent first token that committed between the two look-ups (its user seen, its link not yet) is the same user', async () => {
    // Read committed: the winner's commit lands after this token's look-up of the link and
    // before its look-up of the e-mail, so the e-mail seems taken by another account.
    users.findByEmail.mockResolvedValueOnce(user({ id: 4 }));
    identities.find.mockResolvedValueOnce(null).mockResolvedValueOnce(null).mockResolvedValueOnce(link({ userId: 4 }));
    expect((await service.actorFor(claims())).actor.id).toBe(4);
    expect(users.insert).not.toHaveBeenCalled();
  });

  it('an e-mail of another account refuses the token (401) and creates nothing', async () => {
    users.findByEmail.mockResolvedValueOnce(user({ id: 2 }));
    expect(await codeOf(service.actorFor(claims()))).toBe('UNAUTHENTICATED');
    expect(users.insert).not.toHaveBeenCalled();
    // Taken meanwhile (the unique e-mail index), with no link for this subject: refused too.
    users.insert.mockRejectedValueOnce(unique());
    expect(await codeOf(service.actorFor(claims()))).toBe('UNAUTHENTICATED');
  });

  it('a long name is cut to 100 characters, never inside a surrogate pair', async () => {
    await service.actorFor(claims({ name: 'a' + '😀'.repeat(150) }));
    const name = (users.insert.mock.calls[0][0] as { name: string }).name;
    expect([...name]).toHaveLength(100);
    expect(name.endsWith('😀')).toBe(true);
  });

  it('a first token without an e-mail is refused', async () => {
    expect(await codeOf(service.actorFor(claims({ email: undefined })))).toBe('UNAUTHENTICATED');
  });

  it('a first token whose e-mail the provider did not verify is refused: the address is neither taken nor looked up', async () => {
    expect(await codeOf(service.actorFor(claims({ emailVerified: false })))).toBe('UNAUTHENTICATED');
    expect(users.findByEmail).not.toHaveBeenCalled();
    expect(users.insert).not.toHaveBeenCalled();
    // A subject already linked is its user, whatever its token says of the address.
    identities.find.mockResolvedValue(link());
    expect((await service.actorFor(claims({ emailVerified: false, issuedAt: 1500 }))).actor.id).toBe(9);
  });

  it("the user's revocation stamp goes to AuthService with the token's iat; a revoked token changes no role", async () => {
    const stamp = new Date(1_200_000);
    identities.find.mockResolvedValue(link({ tokensValidAfter: stamp }));
    expect(await service.actorFor(claims({ role: 'admin', issuedAt: 1100 }))).toMatchObject({ issuedAt: 1100, validAfter: stamp, actor: { role: 'author' } });
    expect(users.update).not.toHaveBeenCalled();
    expect((await service.actorFor(claims({ role: 'admin', issuedAt: 1300 }))).actor.role).toBe('admin');
  });

  it('a newer token with another role changes it and says credentialsChanged; an older or equal one changes nothing', async () => {
    identities.find.mockResolvedValue(link({ rolesIssuedAt: 1000 }));
    expect((await service.actorFor(claims({ role: 'admin', issuedAt: 1000 }))).actor.role).toBe('author');
    expect((await service.actorFor(claims({ role: 'admin', issuedAt: 999 }))).actor.role).toBe('author');
    expect(users.update).not.toHaveBeenCalled();
    expect((await service.actorFor(claims({ role: 'admin', issuedAt: 1001 }))).actor.role).toBe('admin');
    expect(users.update).toHaveBeenCalledWith(9, { role: 'admin' }, undefined, expect.anything());
    expect(events.credentialsChanged).toHaveBeenCalledWith(9);
  });

  it('a newer token with the same role only records its iat', async () => {
    identities.find.mockResolvedValue(link());
    await service.actorFor(claims({ issuedAt: 1500 }));
    expect(identities.advanceRolesIssuedAt).toHaveBeenCalledWith(7, 1500);
    expect(users.update).not.toHaveBeenCalled();
    expect(events.credentialsChanged).not.toHaveBeenCalled();
  });

  it('a concurrent newer token applied first wins (the conditional iat update matches nothing)', async () => {
    identities.find.mockResolvedValue(link());
    identities.advanceRolesIssuedAt.mockResolvedValueOnce(false);
    expect((await service.actorFor(claims({ role: 'admin', issuedAt: 1001 }))).actor.role).toBe('author');
    expect(users.update).not.toHaveBeenCalled();
  });

  it('the last admin is not demoted', async () => {
    identities.find.mockResolvedValue(link({ role: 'admin' }));
    users.findById.mockResolvedValue(user({ role: 'admin' }));
    users.countWithRole.mockResolvedValue(1);
    expect((await service.actorFor(claims({ role: 'author', issuedAt: 1001 }))).actor.role).toBe('admin');
    expect(users.update).not.toHaveBeenCalled();
  });

  it('a deleted user: refused until a token issued after the deletion was noticed, which creates a new user', async () => {
    identities.find.mockResolvedValue(link({ userId: null, role: null }));
    expect(await codeOf(service.actorFor(claims()))).toBe('UNAUTHENTICATED');
    expect(identities.markOrphaned).toHaveBeenCalledWith(7, expect.any(Number));
    identities.find.mockResolvedValue(link({ userId: null, role: null, orphanedAt: 1500 }));
    expect(await codeOf(service.actorFor(claims({ issuedAt: 1500 })))).toBe('UNAUTHENTICATED');
    expect(users.insert).not.toHaveBeenCalled();
    users.insert.mockResolvedValueOnce(user({ id: 12 }));
    expect((await service.actorFor(claims({ issuedAt: 1501 }))).actor.id).toBe(12);
    expect(identities.relink).toHaveBeenCalledWith(7, 12, 1501, expect.anything());
  });
});
