import { beforeEach, describe, expect, it, type Mocked } from 'vitest';
import { codeOf, newTestService, UNIT_EXECUTOR } from '../../test/support/unit.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import type { Actor } from '../common/actor.js';
import { EventPublisher } from '../events/event-publisher.js';
import { AuditLog } from '../audit/audit-log.service.js';
import { PUBLIC_AUDIENCE, ReadPolicy } from '../auth/read-policy.js';
import { Post } from '../posts/post.entity.js';
import { PostsService } from '../posts/posts.service.js';
import { Comment } from './comment.entity.js';
import { CommentsRepository } from './comments.repository.js';
import { CommentsService } from './comments.service.js';
import { CommentModerationService } from './comment-moderation.service.js';

// Who may comment, edit and delete, and what each write announces: no database.

const alice: Actor = { id: 2, role: 'author' };
const bob: Actor = { id: 3, role: 'author' };
const admin: Actor = { id: 1, role: 'admin' };
const readOnlyKey: Actor = { id: 3, role: 'author', scopes: ['read'], apiKeyId: 8 };

function comment(fields: Partial<Comment> = {}): Comment {
  return Object.assign(new Comment(), {
    id: 11, postId: 7, parentId: null, status: 'approved', body: 'Nice', authorId: alice.id, createdAt: new Date(0), updatedAt: new Date(0), version: 1, ...fields,
  });
}

function post(fields: Partial<Post> = {}): Post {
  return Object.assign(new Post(), { id: 7, title: 'T', body: 'B', authorId: bob.id, status: 'published', createdAt: new Date(0), updatedAt: new Date(0), version: 1, ...fields });
}

const foreignKeyViolation = () => Object.assign(new Error('fk'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });

describe('CommentsService', () => {
  let repository: Mocked<CommentsRepository>;
  let posts: Mocked<PostsService>;
  let events: Mocked<EventPublisher>;
  let audit: Mocked<AuditLog>;
  let service: CommentsService;

  beforeEach(async () => {
    const unit = await newTestService(CommentsService, { real: [new AuthorizationPolicy(), new ReadPolicy()] });
    ({ service } = unit);
    repository = unit.mock(CommentsRepository);
    posts = unit.mock(PostsService);
    events = unit.mock(EventPublisher);
    // Admission and the events of a change are the moderation service's (its own spec and e2e spec): approved at once here.
    const moderation = unit.mock(CommentModerationService);
    const realModeration = new CommentModerationService(null as never, null as never, new AuthorizationPolicy(), new ReadPolicy(), null as never, null as never, null as never, null as never, null as never);
    moderation.admit.mockResolvedValue('approved');
    moderation.changeEvents.mockImplementation((before, after, on) => realModeration.changeEvents(before, after, on));
    repository.findById.mockImplementation(async () => comment());
    // The comment locked with its post joined in (update): the post of posts.findById.
    repository.findManyForUpdate.mockImplementation(async () => [Object.assign(comment(), { post: (await posts.findById(7)) ?? undefined })]);
    repository.updateVersioned.mockImplementation(async (current, changes) => comment({ ...current, ...changes, version: current.version + 1 }));
    repository.delete.mockResolvedValue(true);
    repository.thread.mockResolvedValue([{ id: 11, postId: 7, authorId: alice.id, status: 'approved' }]);
    // The event of a new row, as the repository writes it with the row.
    repository.insertRecorded.mockImplementation(async (values) => comment(values as Partial<Comment>));
    events.created.mockImplementation((name) => ({ event: name }) as unknown as ReturnType<EventPublisher['created']>);
    // Its audit entry likewise.
    audit = unit.mock(AuditLog);
    audit.created.mockImplementation((_actor, action) => ({ audit: action }) as unknown as ReturnType<AuditLog['created']>);
    posts.findById.mockResolvedValue(post());
    posts.exists.mockResolvedValue(true);
    posts.get.mockResolvedValue(post());
  });

  describe('create', () => {
    it('needs a signed-in actor with the write scope, and writes nothing otherwise', async () => {
      expect(await codeOf(service.create(7, { body: 'Hi' }, null))).toBe('UNAUTHENTICATED');
      expect(await codeOf(service.create(7, { body: 'Hi' }, readOnlyKey))).toBe('INSUFFICIENT_SCOPE');
      expect(repository.insertRecorded).not.toHaveBeenCalled();
    });

    it('writes as the actor on the post of the path, with commentCreated in the same write', async () => {
      const created = await service.create(7, { body: 'Hi' }, bob);
      expect(repository.insertRecorded).toHaveBeenCalledWith({ body: 'Hi', postId: 7, authorId: bob.id, status: 'approved' }, { event: 'commentCreated' }, { audit: 'comments.create' });
      expect(events.created).toHaveBeenCalledWith('commentCreated', PUBLIC_AUDIENCE);
      expect(audit.created).toHaveBeenCalledWith(bob, 'comments.create', 'comment', {
        body: { from: null, to: 'Hi' },
        postId: { from: null, to: 7 },
        parentId: { from: null, to: null },
        status: { from: null, to: 'approved' },
      });
      expect(created).toMatchObject({ postId: 7, authorId: bob.id });
      expect(events.committed).toHaveBeenCalled();
    });

    it('is NOT_FOUND when the foreign key refuses a post that does not exist, and announces nothing', async () => {
      repository.insertRecorded.mockRejectedValueOnce(foreignKeyViolation());
      posts.exists.mockResolvedValueOnce(false);
      expect(await codeOf(service.create(99, { body: 'Hi' }, bob))).toBe('NOT_FOUND');
      expect(posts.exists).toHaveBeenCalledWith(99);
      expect(events.committed).not.toHaveBeenCalled();
    });

    it('passes on a foreign key violation when the post is there (the author vanished): not a missing post', async () => {
      const error = foreignKeyViolation();
      repository.insertRecorded.mockRejectedValueOnce(error);
      await expect(service.create(7, { body: 'Hi' }, bob)).rejects.toBe(error);
    });
  });

  it("is NOT_FOUND on a draft the writer may not see; a comment on one the author sees is restricted to the post's owner", async () => {
    posts.findById.mockResolvedValue(post({ status: 'draft' }));
    expect(await codeOf(service.create(7, { body: 'Hi' }, alice))).toBe('NOT_FOUND');
    expect(await codeOf(service.update(11, { body: 'X' }, alice))).toBe('NOT_FOUND');
    expect(await codeOf(service.delete(11, alice))).toBe('NOT_FOUND');
    expect(repository.insertRecorded).not.toHaveBeenCalled();
    await service.create(7, { body: 'Hi' }, bob);
    expect(events.created).toHaveBeenCalledWith('commentCreated', { audience: 'restricted', owner: bob.id });
  });

  describe('create a reply', () => {
    const parent = (fields: Partial<{ postId: number; authorId: number; status: 'approved' | 'pending' | 'spam' | 'hidden'; depth: number }> = {}) => ({
      id: 11, postId: 7, authorId: alice.id, status: 'approved' as const, depth: 1, ...fields,
    });

    it('writes parentId and the depth one below its parent, up to COMMENTS_MAX_DEPTH (5 by default)', async () => {
      repository.findParent.mockResolvedValueOnce(parent({ depth: 4 }));
      await service.create(7, { body: 'Re', parentId: 11 }, bob);
      expect(repository.insertRecorded).toHaveBeenCalledWith({ body: 'Re', parentId: 11, depth: 5, postId: 7, authorId: bob.id, status: 'approved' }, { event: 'commentCreated' }, { audit: 'comments.create' });
      repository.findParent.mockResolvedValueOnce(parent({ depth: 5 }));
      const error = await service.create(7, { body: 'Re', parentId: 11 }, bob).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'parentId' }] });
      expect(repository.insertRecorded).toHaveBeenCalledTimes(1);
    });

    it('is BAD_USER_INPUT naming parentId when the parent is deleted between its read and the insert (its foreign key)', async () => {
      repository.findParent.mockResolvedValueOnce(parent());
      repository.insertRecorded.mockRejectedValueOnce(foreignKeyViolation());
      repository.exists.mockResolvedValueOnce(false);
      const error = await service.create(7, { body: 'Re', parentId: 11 }, bob).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'parentId' }] });
      expect(repository.exists).toHaveBeenCalledWith(11);
    });

    it('is BAD_USER_INPUT naming parentId for a missing parent, one on another post, or one the writer may not see', async () => {
      for (const found of [null, parent({ postId: 8 }), parent({ status: 'spam' }), parent({ status: 'pending' })]) {
        repository.findParent.mockResolvedValueOnce(found);
        const error = await service.create(7, { body: 'Re', parentId: 11 }, bob).catch((caught: unknown) => caught);
        expect(error).toMatchObject({ code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'parentId' }] });
      }
      expect(repository.insertRecorded).not.toHaveBeenCalled();
      // Its own pending comment the writer sees, and may answer.
      repository.findParent.mockResolvedValueOnce(parent({ status: 'pending', authorId: bob.id }));
      await service.create(7, { body: 'Re', parentId: 11 }, bob);
      expect(repository.insertRecorded).toHaveBeenCalledTimes(1);
    });
  });

  describe('update', () => {
    it('is NOT_FOUND for a missing comment, FORBIDDEN for somebody else’s, and changes nothing then', async () => {
      repository.findManyForUpdate.mockResolvedValueOnce([]);
      expect(await codeOf(service.update(11, { body: 'X' }, alice))).toBe('NOT_FOUND');
      expect(await codeOf(service.update(11, { body: 'X' }, bob))).toBe('FORBIDDEN');
      expect(repository.updateVersioned).not.toHaveBeenCalled();
      expect(events.record).not.toHaveBeenCalled();
      expect(events.committed).not.toHaveBeenCalled();
    });

    it('lets its author and an admin change it, passes If-Match on, and announces commentUpdated', async () => {
      await service.update(11, { body: 'Mine' }, alice);
      const updated = await service.update(11, { body: 'Moderated' }, admin, { expectedVersion: 1 });
      expect(repository.updateVersioned).toHaveBeenLastCalledWith(expect.objectContaining({ id: 11 }), { body: 'Moderated' }, 1, UNIT_EXECUTOR);
      expect(events.record).toHaveBeenLastCalledWith(UNIT_EXECUTOR, { name: 'commentUpdated', payload: updated, audience: PUBLIC_AUDIENCE });
      expect(events.committed).toHaveBeenCalledTimes(2);
    });
  });

  describe('delete', () => {
    it('lets only its author or an admin delete it', async () => {
      expect(await codeOf(service.delete(11, bob))).toBe('FORBIDDEN');
      expect(repository.delete).not.toHaveBeenCalled();
      await service.delete(11, admin);
      expect(repository.delete).toHaveBeenCalledWith(11, UNIT_EXECUTOR);
    });

    it('announces commentDeleted with the ids subscribers filter on', async () => {
      await service.delete(11, alice);
      expect(events.record).toHaveBeenCalledWith(UNIT_EXECUTOR, { name: 'commentDeleted', payload: { id: 11, postId: 7, authorId: alice.id }, audience: PUBLIC_AUDIENCE });
      expect(events.eraseContent).toHaveBeenCalledWith(UNIT_EXECUTOR, { commentId: [11] });
      expect(events.committed).toHaveBeenCalled();
    });

    it('takes the replies under it along: a commentDeleted each, with the audience each had, and their content erased', async () => {
      repository.thread.mockResolvedValueOnce([
        { id: 11, postId: 7, authorId: alice.id, status: 'approved' },
        { id: 12, postId: 7, authorId: bob.id, status: 'pending' },
        { id: 13, postId: 7, authorId: bob.id, status: 'spam' },
      ]);
      await service.delete(11, alice);
      expect(repository.delete).toHaveBeenCalledWith(11, UNIT_EXECUTOR);
      expect(events.eraseContent).toHaveBeenCalledWith(UNIT_EXECUTOR, { commentId: [11, 12, 13] });
      expect(events.record).toHaveBeenCalledWith(
        UNIT_EXECUTOR,
        { name: 'commentDeleted', payload: { id: 11, postId: 7, authorId: alice.id }, audience: PUBLIC_AUDIENCE },
        { name: 'commentDeleted', payload: { id: 12, postId: 7, authorId: bob.id }, audience: { audience: 'moderated', owner: bob.id } },
        { name: 'commentDeleted', payload: { id: 13, postId: 7, authorId: bob.id }, audience: { audience: 'moderated', owner: null } },
      );
    });

    it('is NOT_FOUND when a concurrent delete removed the row first, and announces nothing', async () => {
      repository.delete.mockResolvedValueOnce(false);
      expect(await codeOf(service.delete(11, alice))).toBe('NOT_FOUND');
      expect(events.record).not.toHaveBeenCalled();
      expect(events.committed).not.toHaveBeenCalled();
    });
  });

  it("listForPost is NOT_FOUND for a post the caller may not see, and pages the post's comments oldest first otherwise", async () => {
    posts.assertVisible.mockRejectedValueOnce(Object.assign(new Error('gone'), { code: 'NOT_FOUND' }));
    expect(await codeOf(service.listForPost(7, { limit: 2 }, null))).toBe('NOT_FOUND');
    expect(repository.visiblePage).not.toHaveBeenCalled();
    await service.listForPost(7, { limit: 2, after: 4 }, null);
    expect(repository.visiblePage).toHaveBeenCalledWith('postId', 7, { kind: 'approved' }, { limit: 2, after: 4 });
    await service.listForPost(7, { limit: 2 }, bob);
    expect(repository.visiblePage).toHaveBeenLastCalledWith('postId', 7, { kind: 'approved-or-own', authorId: bob.id }, { limit: 2 });
  });
});
