import { beforeEach, describe, expect, it, type Mocked } from 'vitest';
import { codeOf, newTestService } from '../../test/support/unit.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import type { Actor } from '../common/actor.js';
import { EventPublisher } from '../events/event-publisher.js';
import { UsersService } from '../users/users.service.js';
import { Post } from './post.entity.js';
import { PostsRepository } from './posts.repository.js';
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

describe('PostsService', () => {
  let repository: Mocked<PostsRepository>;
  let users: Mocked<UsersService>;
  let events: Mocked<EventPublisher>;
  let service: PostsService;

  beforeEach(async () => {
    const unit = await newTestService(PostsService, { real: [new AuthorizationPolicy()] });
    ({ service } = unit);
    repository = unit.mock(PostsRepository);
    users = unit.mock(UsersService);
    events = unit.mock(EventPublisher);
    repository.findById.mockImplementation(async () => post());
    // The event of a new row, as the repository writes it with the row.
    repository.insertRecorded.mockImplementation(async (values) => post(values as Partial<Post>));
    events.created.mockImplementation((name) => ({ event: name }) as unknown as ReturnType<EventPublisher['created']>);
    repository.updateVersioned.mockImplementation(async (current, changes) => post({ ...current, ...changes, version: current.version + 1 }));
    repository.delete.mockResolvedValue(true);
    repository.cascadedComments.mockResolvedValue([{ id: 11, postId: 7, authorId: bob.id }]);
    repository.page.mockResolvedValue({ items: [], nextCursor: null });
    users.exists.mockResolvedValue(true);
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
