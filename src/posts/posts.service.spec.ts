import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import type { Actor } from '../common/actor.js';
import type { TransactionRunner } from '../common/persistence/transaction-runner.js';
import type { EventPublisher } from '../events/event-publisher.js';
import type { UsersService } from '../users/users.service.js';
import { Post } from './post.entity.js';
import type { PostsRepository } from './posts.repository.js';
import { PostsService } from './posts.service.js';

// The rules of PostsService with its repository replaced: no database, no Nest application.

const alice: Actor = { id: 2, role: 'author' };
const bob: Actor = { id: 3, role: 'author' };
const admin: Actor = { id: 1, role: 'admin' };

function post(fields: Partial<Post> = {}): Post {
  return Object.assign(new Post(), {
    id: 7, title: 'Hello', body: 'Text', authorId: alice.id, createdAt: new Date(0), updatedAt: new Date(0), version: 1, ...fields,
  });
}

const codeOf = (promise: Promise<unknown>) => promise.then(() => 'resolved', (error: { code?: string }) => error.code);

describe('PostsService', () => {
  let repository: {
    findById: ReturnType<typeof vi.fn>;
    insertRecorded: ReturnType<typeof vi.fn>;
    updateVersioned: ReturnType<typeof vi.fn>;
    delete: ReturnType<typeof vi.fn>;
    cascadedComments: ReturnType<typeof vi.fn>;
    page: ReturnType<typeof vi.fn>;
  };
  let users: { exists: ReturnType<typeof vi.fn> };
  let events: { record: ReturnType<typeof vi.fn>; committed: ReturnType<typeof vi.fn>; created: ReturnType<typeof vi.fn> };
  let service: PostsService;

  beforeEach(() => {
    repository = {
      findById: vi.fn(async () => post()),
      insertRecorded: vi.fn(async (values: Partial<Post>) => post(values)),
      updateVersioned: vi.fn(async (current: Post, changes: Partial<Post>) => ({ ...current, ...changes, version: current.version + 1 })),
      delete: vi.fn(async () => true),
      cascadedComments: vi.fn(async () => [{ id: 11, postId: 7, authorId: bob.id }]),
      page: vi.fn(async () => ({ items: [], nextCursor: null })),
    };
    users = { exists: vi.fn(async () => true) };
    // The event of a new row, as the repository writes it with the row.
    events = { record: vi.fn(async () => undefined), committed: vi.fn(), created: vi.fn((name: string) => ({ event: name })) };
    const transactions = { run: (work: (manager: object) => unknown) => work({}), single: (work: () => unknown) => work() };
    service = new PostsService(
      repository as unknown as PostsRepository,
      users as unknown as UsersService,
      new AuthorizationPolicy(),
      transactions as unknown as TransactionRunner,
      events as unknown as EventPublisher,
    );
  });

  describe('create', () => {
    it('needs a signed-in actor, and writes nothing without one', async () => {
      expect(await codeOf(service.create({ title: 'T', body: 'B' }, null))).toBe('UNAUTHENTICATED');
      expect(repository.insertRecorded).not.toHaveBeenCalled();
    });

    it('writes as the actor, postCreated with the row, through its own repository', async () => {
      await service.create({ title: 'T', body: 'B' }, bob);
      expect(repository.insertRecorded).toHaveBeenCalledWith(expect.objectContaining({ title: 'T', body: 'B', authorId: bob.id }), { event: 'postCreated' });
      expect(events.committed).toHaveBeenCalled();
    });

    it("lets only an admin write on someone else's behalf", async () => {
      expect(await codeOf(service.create({ title: 'T', body: 'B', authorId: alice.id }, bob))).toBe('FORBIDDEN');
      await service.create({ title: 'T', body: 'B', authorId: alice.id }, admin);
      expect(repository.insertRecorded).toHaveBeenLastCalledWith(expect.objectContaining({ authorId: alice.id }), expect.anything());
    });

    it('answers BAD_USER_INPUT when the foreign key says the author does not exist', async () => {
      repository.insertRecorded.mockRejectedValueOnce(Object.assign(new Error('fk'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }));
      expect(await codeOf(service.create({ title: 'T', body: 'B', authorId: 99 }, admin))).toBe('BAD_USER_INPUT');
      expect(events.record).not.toHaveBeenCalled();
      expect(events.committed).not.toHaveBeenCalled();
    });
  });

  describe('update', () => {
    it('is NOT_FOUND for a missing post and FORBIDDEN for somebody else’s', async () => {
      repository.findById.mockResolvedValueOnce(null);
      expect(await codeOf(service.update(7, { title: 'X' }, alice))).toBe('NOT_FOUND');
      expect(await codeOf(service.update(7, { title: 'X' }, bob))).toBe('FORBIDDEN');
      expect(repository.updateVersioned).not.toHaveBeenCalled();
      expect(events.record).not.toHaveBeenCalled();
      expect(events.committed).not.toHaveBeenCalled();
    });

    it('changes only the given fields, passes If-Match on, and announces postUpdated', async () => {
      const updated = await service.update(7, { body: 'New' }, admin, { expectedVersion: 1 });
      expect(repository.updateVersioned).toHaveBeenCalledWith(expect.objectContaining({ id: 7 }), { body: 'New' }, 1, expect.anything());
      expect(events.record).toHaveBeenCalledWith(expect.anything(), { name: 'postUpdated', payload: updated });
      expect(events.committed).toHaveBeenCalled();
    });
  });

  describe('delete', () => {
    it("announces the cascaded comments' deletion, then the post's", async () => {
      await service.delete(7, alice);
      expect(events.record).toHaveBeenCalledWith(
        expect.anything(),
        { name: 'commentDeleted', payload: { id: 11, postId: 7, authorId: bob.id } },
        { name: 'postDeleted', payload: { id: 7, authorId: alice.id } },
      );
    });

    it('is NOT_FOUND when a concurrent delete removed the row first, and announces nothing', async () => {
      repository.delete.mockResolvedValueOnce(false);
      expect(await codeOf(service.delete(7, alice))).toBe('NOT_FOUND');
      expect(events.record).not.toHaveBeenCalled();
      expect(events.committed).not.toHaveBeenCalled();
    });
  });

  it("listForAuthor is NOT_FOUND for a user who does not exist, and pages by author otherwise", async () => {
    users.exists.mockResolvedValueOnce(false);
    expect(await codeOf(service.listForAuthor(5, { limit: 2 }))).toBe('NOT_FOUND');
    await service.listForAuthor(5, { limit: 2, after: 9 });
    expect(repository.page).toHaveBeenCalledWith({ limit: 2, after: 9, authorId: 5 }, 'desc', { column: 'authorId', value: 5 });
  });
});
