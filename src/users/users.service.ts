import { Injectable } from '@nestjs/common';
import { type AuditRecord, AuditLog, changesOf, secretChange } from '../audit/audit-log.service.js';
import type { Actor } from '../common/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { DECOY_HASH, hashPassword, verifyPassword } from '../auth/password-hasher.js';
import { ReadPolicy } from '../auth/read-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import { normalizeError } from '../common/errors/normalize-error.js';
import { RateLimiter } from '../common/rate-limit/rate-limiter.js';
import { SignInLimiter } from '../common/rate-limit/sign-in-limiter.js';
import { AppConfig } from '../config/app-config.js';
import { normalizeEmail } from '../common/validation/transforms.js';
import type { Page, PageRequest } from '../common/pagination/cursor.js';
import type { Executor } from '../common/persistence/sql.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import type { WriteOptions } from '../common/persistence/write-options.js';
import { event } from '../events/blog-events.js';
import { EventPublisher } from '../events/event-publisher.js';
import { MediaService } from '../media/media.service.js';
import type { CreateUserDto } from './dto/create-user.dto.js';
import type { UpdateUserDto } from './dto/update-user.dto.js';
import type { User } from './user.entity.js';
import { UsersRepository } from './users.repository.js';

/** A new user's fields its `users.create` entry shows. */
export const CREATED_FIELDS = ['name', 'email', 'avatarUrl', 'role'] as const satisfies readonly (keyof User)[];

/**
 * The entries of one change to a user, one per kind (CONTRACT §16): its profile (`users.update`),
 * password (named, never valued), role, and commenting block. A field set to what it was is no change.
 */
function updateRecords(current: User, updated: User, passwordChanged: boolean): AuditRecord[] {
  const resource = { type: 'user', id: current.id };
  const records: AuditRecord[] = [];
  const profile = changesOf(current, updated, ['name', 'avatarUrl']);
  if (Object.keys(profile).length > 0) records.push({ action: 'users.update', resource, changes: profile });
  if (passwordChanged) records.push({ action: 'users.changePassword', resource, changes: secretChange('password') });
  const role = changesOf(current, updated, ['role']);
  if (Object.keys(role).length > 0) records.push({ action: 'users.setRole', resource, changes: role });
  const blocked = changesOf(current, updated, ['commentsBlocked']);
  if (Object.keys(blocked).length > 0) records.push({ action: updated.commentsBlocked ? 'users.block' : 'users.unblock', resource, changes: blocked });
  return records;
}

/** How recent a sign-in stands in for the current password (creating an API key, exporting one's personal data). */
export const REAUTHENTICATION_WINDOW_S = 300;

export interface UpdateOptions extends WriteOptions {
  /** Where the request came from: wrong `currentPassword` guesses count against it. */
  clientAddress?: string;
}

@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly policy: AuthorizationPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
    private readonly signIns: SignInLimiter,
    private readonly readPolicy: ReadPolicy,
    private readonly media: MediaService,
    private readonly audit: AuditLog,
  ) {}

  /** Sign-up: RATE_LIMIT_SIGNUP_MAX per client address per window, counted before the password hash (each of many aliased sign-ups counts). */
  async signUp(input: CreateUserDto, clientAddress: string): Promise<User> {
    await this.limiter.consume(`signup-ip:${clientAddress}`, this.config.rateLimitSignupMax, this.config.rateLimitWindowS);
    return this.create(input);
  }

  /** Every new account is an author: admins are made by an admin, by ADMIN_EMAIL, or by the identity provider's role claim. */
  async create(input: CreateUserDto): Promise<User> {
    // Whoever signs up reads as the public: a media avatar must be public already.
    if (input.avatarUrl) await this.media.checkAvatar(input.avatarUrl, null);
    const values = {
      name: input.name,
      email: normalizeEmail(input.email),
      passwordHash: await hashPassword(input.password),
      avatarUrl: input.avatarUrl ?? null,
      role: 'author' as const,
    };
    try {
      const user = await this.transactions.run(async (manager) => {
        const created = await this.users.insert(values, manager);
        await this.audit.record(manager, null, { action: 'users.create', resource: { type: 'user', id: created.id }, changes: changesOf(null, created, CREATED_FIELDS) });
        return created;
      });
      this.events.changed();
      return user;
    } catch (error) {
      throw this.conflictOnDuplicateEmail(error);
    }
  }

  list(page: PageRequest): Promise<Page<User>> {
    return this.users.page(page, 'asc');
  }

  findById(id: number): Promise<User | null> {
    return this.users.findById(id);
  }

  exists(id: number): Promise<boolean> {
    return this.users.exists(id);
  }

  /** For batching: the users with these ids, in no particular order. */
  findByIds(ids: readonly number[]): Promise<User[]> {
    return this.users.findByIds(ids);
  }

  /** Names and avatars of these users (for pages that show who wrote what), in one statement. */
  async namesOf(ids: readonly number[]): Promise<Map<number, { name: string; avatarUrl: string | null }>> {
    const users = await this.users.findByIds([...new Set(ids)]);
    return new Map(users.map((user) => [user.id, { name: user.name, avatarUrl: user.avatarUrl }]));
  }

  async get(id: number): Promise<User> {
    const user = await this.findById(id);
    if (!user) throw DomainError.notFound('User', id);
    return user;
  }

  /** For sign-in only: the one read that loads the password hash. */
  findWithPasswordHash(email: string): Promise<User | null> {
    return this.users.findWithPasswordHash(normalizeEmail(email));
  }

  /**
   * Changing one's own password needs the current one (wrong guesses count as failed sign-ins
   * from `clientAddress`); any password change refuses every token issued and every API key
   * created before it. The last admin cannot be demoted.
   */
  async update(id: number, input: UpdateUserDto, actor: Actor | null, options: UpdateOptions = {}): Promise<User> {
    const who = this.authorizeUpdate(id, input, actor);
    const changes: Partial<User> = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.avatarUrl !== undefined) changes.avatarUrl = input.avatarUrl;
    if (input.role !== undefined) changes.role = input.role;
    if (input.commentsBlocked !== undefined) changes.commentsBlocked = input.commentsBlocked;
    if (input.password !== undefined) {
      if (who.id === id) await this.checkCurrentPassword(who, input.currentPassword, options.clientAddress);
      changes.passwordHash = await hashPassword(input.password);
      changes.tokensValidAfter = new Date();
    }

    const updated = await this.transactions.run(async (manager) => {
      const current = await this.users.findById(id, manager);
      if (!current) throw DomainError.notFound('User', id);
      if (changes.avatarUrl) await this.media.checkAvatar(changes.avatarUrl, who, manager);
      if (current.role === 'admin' && changes.role !== undefined && changes.role !== 'admin') await this.assertNotLastAdmin(id, manager, 'demoted');
      const updated = await this.users.updateVersioned(current, changes, options.expectedVersion, manager);
      const records = updateRecords(current, updated, changes.passwordHash !== undefined);
      if (records.length > 0) await this.audit.record(manager, who, ...records);
      return updated;
    });
    if (changes.role !== undefined || changes.passwordHash !== undefined) this.events.credentialsChanged(id);
    else this.events.changed();
    return updated;
  }

  /**
   * Each field given needs its own permission: the role users.setRole, commentsBlocked
   * users.blockCommenters (on anyone, so nobody unblocks themselves), the rest (and an empty
   * change) users.edit on the user.
   */
  private authorizeUpdate(id: number, input: UpdateUserDto, actor: Actor | null): Actor {
    const who = this.policy.requireActor(actor);
    const { role, commentsBlocked, ...rest } = input;
    const edits = Object.values(rest).some((value) => value !== undefined) || (role === undefined && commentsBlocked === undefined);
    if (edits) this.policy.authorize(who, 'users.edit', id);
    if (role !== undefined) this.policy.authorize(who, 'users.setRole', id);
    if (commentsBlocked !== undefined) this.policy.authorize(who, 'users.blockCommenters');
    return who;
  }

  /** Whether `reader` sees the user's commentsBlocked: the user themselves, or (with more than a read key) one who may block commenters. */
  revealsCommentsBlocked(reader: Actor | null | undefined, user: Pick<User, 'id'>): boolean {
    return !!reader && (reader.id === user.id || this.policy.mayRead(reader, 'users.blockCommenters'));
  }

  /**
   * Deletes the user with their posts, comments and the media they uploaded that no other user's
   * post uses (those pass to that post's author: MediaService.eraseUploadsOf), erases their name
   * and e-mail from the audit log (the entries stay, with the id), and announces every deletion.
   * The media's files go after the commit.
   */
  async delete(id: number, actor: Actor | null): Promise<void> {
    const who = this.policy.authorize(actor, 'users.edit', id);
    const deleteFiles = await this.transactions.run(async (manager) => {
      const current = await this.users.findById(id, manager);
      if (!current) throw DomainError.notFound('User', id);
      if (current.role === 'admin') await this.assertNotLastAdmin(id, manager, 'deleted');
      await this.audit.eraseUser(manager, id, current);
      await this.audit.record(manager, who, { action: 'users.delete', resource: { type: 'user', id }, changes: changesOf(current, null, ['role']) });
      const deleteFiles = await this.media.eraseUploadsOf(id, manager);
      const { posts, comments } = await this.users.cascade(id, manager);
      // Two deletes that both read the row: only the one whose DELETE removed it succeeds.
      if (!(await this.users.delete(id, manager))) throw DomainError.notFound('User', id);
      // Everything they wrote (by author); their posts by id, which the events of every comment on
      // them carry (whoever wrote it); and by id the replies of others (on others' posts) that go
      // with their comments.
      const postIds = posts.map((p) => p.id);
      const theirPosts = new Set(postIds);
      const replies = comments.filter((c) => c.authorId !== id && !theirPosts.has(c.postId)).map((c) => c.id);
      await this.events.eraseContent(manager, { authorId: [id], postId: postIds, ...(replies.length > 0 ? { commentId: replies } : {}) });
      await this.audit.eraseContent(manager, { authors: [id], posts: postIds, comments: comments.map((c) => c.id) });
      await this.events.record(
        manager,
        // A comment's deletion has the audience of the comment and its post as they were; a post's deletion is public (CONTRACT §7, ids only).
        ...comments.map((c) => event('commentDeleted', { id: c.id, postId: c.postId, authorId: c.authorId }, this.readPolicy.commentAudienceOf(c, c.post))),
        ...posts.map((p) => event('postDeleted', { id: p.id, authorId: p.authorId })),
      );
      return deleteFiles;
    });
    this.events.credentialsChanged(id);
    this.events.committed();
    await deleteFiles();
  }

  /** Signs the user out everywhere: every token issued and API key created so far is refused from the next operation on. */
  async revokeTokens(id: number, actor: Actor | null): Promise<void> {
    const who = this.policy.authorize(actor, 'users.edit', id);
    const revoked = await this.transactions.run(async (manager) => {
      if (!(await this.users.revokeTokens(id, new Date(), manager))) return false;
      await this.audit.record(manager, who, { action: 'users.signOutEverywhere', resource: { type: 'user', id } });
      return true;
    });
    if (!revoked) throw DomainError.notFound('User', id);
    this.events.credentialsChanged(id);
  }

  /**
   * For what a stolen token must not do alone (creating an API key): the actor signed in less
   * than REAUTHENTICATION_WINDOW_S ago (their token's `iat`, ours or the identity provider's), or
   * gives their own current password now. 400 without either (naming `field`, where the password
   * is given: a body field, or a header), 403 when wrong.
   */
  async confirmPresence(actor: Actor, currentPassword: string | undefined, clientAddress = 'unknown', field = 'currentPassword'): Promise<void> {
    if (currentPassword === undefined && actor.issuedAt !== undefined && Date.now() / 1000 - actor.issuedAt < REAUTHENTICATION_WINDOW_S) return;
    if (currentPassword === undefined) {
      const message = `is required unless your token is less than ${REAUTHENTICATION_WINDOW_S / 60} minutes old (sign in again, or give your password)`;
      throw DomainError.badInput(`${field} ${message}`, [{ field, message }]);
    }
    await this.checkCurrentPassword(actor, currentPassword, clientAddress);
  }

  /** The actor's own password; a wrong one counts as a failed sign-in (429 once over the sign-in limits). */
  private async checkCurrentPassword(actor: Actor, currentPassword: string | undefined, clientAddress = 'unknown'): Promise<void> {
    if (currentPassword === undefined) {
      throw DomainError.badInput('currentPassword is required to change your own password', [
        { field: 'currentPassword', message: 'is required to change your own password' },
      ]);
    }
    const stored = await this.users.passwordOf(actor.id);
    if (stored) await this.signIns.attempt(stored.email, clientAddress);
    if (!(await verifyPassword(currentPassword, stored?.passwordHash ?? DECOY_HASH))) {
      if (stored) await this.signIns.failed(stored.email, clientAddress);
      throw DomainError.forbidden('currentPassword is wrong');
    }
  }

  private async assertNotLastAdmin(id: number, executor: Executor, what: string): Promise<void> {
    const admins = await this.users.lockAdmins(executor);
    if (admins.every((admin) => admin === id)) throw DomainError.conflict(`The last admin cannot be ${what}; make another user an admin first`);
  }

  count(): Promise<number> {
    return this.users.count();
  }

  private conflictOnDuplicateEmail(error: unknown): unknown {
    if (normalizeError(error).code === 'CONFLICT') {
      return DomainError.conflict('A user with this e-mail address already exists');
    }
    return error;
  }
}
