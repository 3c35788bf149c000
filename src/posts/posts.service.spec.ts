import { beforeEach, describe, expect, it, type Mocked } from 'vitest';
import { codeOf, newTestService, UNIT_EXECUTOR } from '../../test/support/unit.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { PUBLIC_AUDIENCE, ReadPolicy } from '../auth/read-policy.js';
import type { Actor } from '../common/actor.js';
import { EventPublisher } from '../events/event-publisher.js';
import { Post } from './post.entity.js';
import { PostRevision } from './post-revision.entity.js';
import { PostRevisions } from './post-revisions.service.js';
import { PostsRepository } from './posts.repository.js';
import { PostsService } from './posts.service.js';
import { ContentRenderer } from '../content/content-renderer.js';
import type { PublicUrls } from '../publication/public-urls.js';
import { TagsService } from '../tags/tags.service.js';

// The rules of PostsService (the write path, the read by id) with its collaborators replaced: no database, no Nest application.

const alice: Actor = { id: 2, role: 'author' };
const bob: Actor = { id: 3, role: 'author' };
const admin: Actor = { id: 1, role: 'admin' };
const restrictedTo = (owner: number) => ({ audience: 'restricted', owner });
const future = () => new Date(Date.now() + 3_600_000);

function post(fields: Partial<Post> = {}): Post {
  return Object.assign(new Post(), {
    id: 7, title: 'Hello', body: 'Text', authorId: alice.id, status: 'published', publishAt: null, publishedAt: new Date(0), trashedAt: null,
    createdAt: new Date(0), updatedAt: new Date(0), version: 1, ...fields,
  });
}

describe('PostsService', () => {
  let repository: Mocked<PostsRepository>;
  let revisions: Mocked<PostRevisions>;
  let events: Mocked<EventPublisher>;
  let service: PostsService;
  let stored: Post;

  beforeEach(async () => {
    const unit = await newTestService(PostsService, { real: [new AuthorizationPolicy(), new ReadPolicy(), new ContentRenderer({ origin: 'http://localhost:3000' } as PublicUrls)] });
    ({ service } = unit);
    repository = unit.mock(PostsRepository);
    revisions = unit.mock(PostRevisions);
    events = unit.mock(EventPublisher);
    unit.mock(TagsService).assignToPost.mockImplementation(async (_post, names) => ({ tags: [...names], tagIds: names.map((_name, index) => index + 1) }));
    unit.mock(TagsService).tagsOfPost.mockResolvedValue({ tags: [], tagIds: [] });
    stored = post();
    repository.findForUpdate.mockImplementation(async () => stored);
    repository.findById.mockImplementation(async () => stored);
    repository.insert.mockImplementation(async (values) => post({ ...(values as Partial<Post>), version: 1 }));
    repository.updateVersioned.mockImplementation(async (current, changes) => post({ ...current, ...changes, version: current.version + 1 }));
    repository.delete.mockResolvedValue(true);
    repository.cascadedComments.mockResolvedValue([{ id: 11, postId: 7, authorId: bob.id, status: 'approved' }]);
    revisions.record.mockImplementation(async () => new PostRevision());
    revisions.recordFirst.mockResolvedValue(undefined);
    repository.anyDue.mockResolvedValue(true);
    repository.customExcerptOf.mockResolvedValue(null);
  });

  describe('create', () => {
    it('needs a signed-in actor, and writes nothing without one', async () => {
      expect(await codeOf(service.create({ title: 'T', body: 'B' }, null))).toBe('UNAUTHENTICATED');
      expect(repository.insert).not.toHaveBeenCalled();
    });

    it('publishes at once by default: revision 1 by the actor, a public postCreated', async () => {
      const created = await service.create({ title: 'T', body: 'B' }, bob);
      expect(repository.insert).toHaveBeenCalledWith(expect.objectContaining({ title: 'T', body: 'B', authorId: bob.id, status: 'published', publishAt: null }), UNIT_EXECUTOR);
      expect(created.publishedAt).toBeInstanceOf(Date);
      expect(revisions.recordFirst).toHaveBeenCalledWith(created, bob.id, UNIT_EXECUTOR);
      expect(events.record).toHaveBeenCalledWith(UNIT_EXECUTOR, { name: 'postCreated', payload: created, audience: PUBLIC_AUDIENCE });
      expect(events.committed).toHaveBeenCalled();
    });

    it('saves a draft unpublished, its postCreated restricted to the author', async () => {
      const created = await service.create({ title: 'T', body: 'B', status: 'draft' }, bob);
      expect(created).toMatchObject({ status: 'draft', publishedAt: null });
      expect(events.record).toHaveBeenCalledWith(UNIT_EXECUTOR, { name: 'postCreated', payload: created, audience: restrictedTo(bob.id) });
    });

    it('schedules with a future publishAt only; publishAt with another status and "trashed" are 400', async () => {
      const at = future();
      expect(await service.create({ title: 'T', body: 'B', status: 'scheduled', publishAt: at }, bob)).toMatchObject({ status: 'scheduled', publishAt: at, publishedAt: null });
      expect(await codeOf(service.create({ title: 'T', body: 'B', status: 'scheduled' }, bob))).toBe('BAD_USER_INPUT');
      expect(await codeOf(service.create({ title: 'T', body: 'B', status: 'scheduled', publishAt: new Date(Date.now() - 1000) }, bob))).toBe('BAD_USER_INPUT');
      expect(await codeOf(service.create({ title: 'T', body: 'B', status: 'draft', publishAt: at }, bob))).toBe('BAD_USER_INPUT');
      expect(await codeOf(service.create({ title: 'T', body: 'B', publishAt: at }, bob))).toBe('BAD_USER_INPUT');
      expect(await codeOf(service.create({ title: 'T', body: 'B', status: 'trashed' }, bob))).toBe('BAD_USER_INPUT');
      expect(repository.insert).toHaveBeenCalledTimes(1);
    });

    it("lets only an admin write on someone else's behalf", async () => {
      expect(await codeOf(service.create({ title: 'T', body: 'B', authorId: alice.id }, bob))).toBe('FORBIDDEN');
      await service.create({ title: 'T', body: 'B', authorId: alice.id }, admin);
      expect(repository.insert).toHaveBeenLastCalledWith(expect.objectContaining({ authorId: alice.id }), UNIT_EXECUTOR);
    });

    it('answers BAD_USER_INPUT when the foreign key says the author does not exist', async () => {
      repository.insert.mockRejectedValueOnce(Object.assign(new Error('fk'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }));
      expect(await codeOf(service.create({ title: 'T', body: 'B', authorId: 99 }, admin))).toBe('BAD_USER_INPUT');
      expect(events.record).not.toHaveBeenCalled();
      expect(events.committed).not.toHaveBeenCalled();
    });
  });

  describe('update', () => {
    it('is NOT_FOUND for a missing post and FORBIDDEN for somebody else’s public one', async () => {
      repository.findForUpdate.mockResolvedValueOnce(null);
      expect(await codeOf(service.update(7, { title: 'X' }, alice))).toBe('NOT_FOUND');
      expect(await codeOf(service.update(7, { title: 'X' }, bob))).toBe('FORBIDDEN');
      expect(repository.updateVersioned).not.toHaveBeenCalled();
      expect(events.record).not.toHaveBeenCalled();
      expect(events.committed).not.toHaveBeenCalled();
    });

    it('is NOT_FOUND (never FORBIDDEN) for somebody else’s draft', async () => {
      stored = post({ status: 'draft', publishedAt: null });
      expect(await codeOf(service.update(7, { title: 'X' }, bob))).toBe('NOT_FOUND');
      expect(await codeOf(service.delete(7, bob))).toBe('NOT_FOUND');
    });

    it('changes only the given fields, passes If-Match on, records a revision and a public postUpdated', async () => {
      const updated = await service.update(7, { body: 'New' }, admin, { expectedVersion: 1 });
      // A new body is stored with its rendering, its excerpt (derived: none was given) and its reading time.
      expect(repository.updateVersioned).toHaveBeenCalledWith(
        expect.objectContaining({ id: 7 }),
        { body: 'New', bodyHtml: '<p>New</p>', excerpt: 'New', customExcerpt: null, readingTimeMinutes: 1 },
        1,
        UNIT_EXECUTOR,
      );
      expect(revisions.record).toHaveBeenCalledWith(updated, admin.id, UNIT_EXECUTOR);
      expect(events.record).toHaveBeenCalledWith(UNIT_EXECUTOR, { name: 'postUpdated', payload: updated, audience: PUBLIC_AUDIENCE });
      expect(events.committed).toHaveBeenCalled();
    });

    it('records no revision when neither title, body nor status changed', async () => {
      await service.update(7, { title: 'Hello' }, alice);
      expect(revisions.record).not.toHaveBeenCalled();
    });

    it('publishing a draft sets publishedAt once and announces postPublished (public) instead of postUpdated', async () => {
      stored = post({ status: 'draft', publishedAt: null });
      const updated = await service.update(7, { status: 'published' }, alice);
      expect(updated.publishedAt).toBeInstanceOf(Date);
      expect(events.record).toHaveBeenCalledWith(UNIT_EXECUTOR, { name: 'postPublished', payload: updated, audience: PUBLIC_AUDIENCE });
      stored = post({ status: 'draft', publishedAt: new Date(5) });
      expect((await service.update(7, { status: 'published' }, alice)).publishedAt).toEqual(new Date(5));
    });

    it('unpublishing announces postUpdated to the author and postUnpublished (ids only) to everyone', async () => {
      const updated = await service.update(7, { status: 'draft' }, alice);
      expect(events.record).toHaveBeenCalledWith(
        UNIT_EXECUTOR,
        { name: 'postUpdated', payload: updated, audience: restrictedTo(alice.id) },
        { name: 'postUnpublished', payload: { id: 7, authorId: alice.id }, audience: PUBLIC_AUDIENCE },
      );
    });

    it('schedules only into the future, and clears publishAt when the post leaves the schedule', async () => {
      expect(await codeOf(service.update(7, { status: 'scheduled' }, alice))).toBe('BAD_USER_INPUT');
      expect(await codeOf(service.update(7, { publishAt: future() }, alice))).toBe('BAD_USER_INPUT');
      const at = future();
      expect(await service.update(7, { status: 'scheduled', publishAt: at }, alice)).toMatchObject({ status: 'scheduled', publishAt: at });
      stored = post({ status: 'scheduled', publishAt: at, publishedAt: null });
      const later = new Date(at.getTime() + 60_000);
      expect(await service.update(7, { publishAt: later }, alice)).toMatchObject({ status: 'scheduled', publishAt: later });
      expect(await service.update(7, { status: 'draft' }, alice)).toMatchObject({ status: 'draft', publishAt: null });
    });

    it('refuses status "trashed" (DELETE trashes)', async () => {
      expect(await codeOf(service.update(7, { status: 'trashed' }, alice))).toBe('BAD_USER_INPUT');
    });

    it('restores a trashed post to a draft: trashedAt cleared', async () => {
      stored = post({ status: 'trashed', trashedAt: new Date(9) });
      expect(await service.update(7, { status: 'draft' }, alice)).toMatchObject({ status: 'draft', trashedAt: null });
    });

    it('restores the title and body of a revision, read in the same transaction; with title or body too it is 400', async () => {
      revisions.contentOf.mockResolvedValue(Object.assign(new PostRevision(), { number: 1, title: 'Old', body: 'Was' }));
      const updated = await service.update(7, { revision: 1 }, alice);
      expect(revisions.contentOf).toHaveBeenCalledWith(7, 1, UNIT_EXECUTOR);
      expect(updated).toMatchObject({ title: 'Old', body: 'Was', version: 2 });
      expect(revisions.record).toHaveBeenCalledWith(updated, alice.id, UNIT_EXECUTOR);
      expect(await codeOf(service.update(7, { revision: 1, title: 'X' }, alice))).toBe('BAD_USER_INPUT');
      expect(revisions.contentOf).toHaveBeenCalledTimes(1);
    });
  });

  describe('delete', () => {
    it('moves a post to the trash: trashedAt set, a revision, postUnpublished for everyone', async () => {
      await service.delete(7, alice);
      expect(repository.delete).not.toHaveBeenCalled();
      expect(repository.updateVersioned).toHaveBeenCalledWith(stored, expect.objectContaining({ status: 'trashed', trashedAt: expect.any(Date) }), undefined, UNIT_EXECUTOR);
      expect(revisions.record).toHaveBeenCalled();
      expect(events.record).toHaveBeenCalledWith(UNIT_EXECUTOR, expect.objectContaining({ name: 'postUpdated' }), { name: 'postUnpublished', payload: { id: 7, authorId: alice.id }, audience: PUBLIC_AUDIENCE });
    });

    it("deletes a trashed post for good: the cascaded comments' deletions (restricted to its owner), then the post's (public, ids only)", async () => {
      stored = post({ status: 'trashed', trashedAt: new Date(9) });
      await service.delete(7, alice);
      expect(events.record).toHaveBeenCalledWith(
        UNIT_EXECUTOR,
        { name: 'commentDeleted', payload: { id: 11, postId: 7, authorId: bob.id }, audience: restrictedTo(alice.id) },
        { name: 'postDeleted', payload: { id: 7, authorId: alice.id }, audience: PUBLIC_AUDIENCE },
      );
    });

    it('is NOT_FOUND when a concurrent delete removed the row first, and announces nothing', async () => {
      stored = post({ status: 'trashed', trashedAt: new Date(9) });
      repository.delete.mockResolvedValueOnce(false);
      expect(await codeOf(service.delete(7, alice))).toBe('NOT_FOUND');
      expect(events.record).not.toHaveBeenCalled();
      expect(events.committed).not.toHaveBeenCalled();
    });
  });

  describe('the scheduler and the trash', () => {
    it('publishes each due post with publishedAt = publishAt, no editor, postPublished', async () => {
      const at = new Date(1000);
      repository.lockDue.mockResolvedValueOnce([post({ status: 'scheduled', publishAt: at, publishedAt: null })]);
      expect(await service.publishDue(new Date(2000), 25)).toBe(1);
      // Its group's first publication: it takes its place in the lists from it (alone in its group: no other post to place).
      expect(repository.updateVersioned).toHaveBeenCalledWith(expect.anything(), { status: 'published', publishAt: null, publishedAt: at, groupPublishedAt: at }, undefined, UNIT_EXECUTOR);
      expect(repository.placeGroup).not.toHaveBeenCalled();
      expect(revisions.record).toHaveBeenCalledWith(expect.objectContaining({ status: 'published' }), null, UNIT_EXECUTOR);
      expect(events.record).toHaveBeenCalledWith(UNIT_EXECUTOR, expect.objectContaining({ name: 'postPublished', audience: PUBLIC_AUDIENCE }));
      expect(events.committed).toHaveBeenCalledTimes(1);
    });

    it("a translation's first publication places its group when none of it was published before, and only then", async () => {
      const at = new Date(1000);
      repository.lockDue.mockResolvedValueOnce([post({ status: 'scheduled', publishAt: at, publishedAt: null, translationGroupId: 3, sharesGroup: true, groupPublishedAt: null })]);
      await service.publishDue(new Date(2000), 25);
      expect(repository.placeGroup).toHaveBeenCalledWith(3, at, expect.any(Number), UNIT_EXECUTOR);
      repository.placeGroup.mockClear();
      // Another post of the group was published before: the group keeps its place, and so does this post.
      repository.lockDue.mockResolvedValueOnce([post({ status: 'scheduled', publishAt: at, publishedAt: null, translationGroupId: 3, sharesGroup: true, groupPublishedAt: new Date(500) })]);
      await service.publishDue(new Date(2000), 25);
      expect(repository.placeGroup).not.toHaveBeenCalled();
      expect(repository.updateVersioned).toHaveBeenLastCalledWith(expect.anything(), { status: 'published', publishAt: null, publishedAt: at }, undefined, UNIT_EXECUTOR);
    });

    it('looks once, and locks nothing, when no post is due', async () => {
      repository.anyDue.mockResolvedValueOnce(false);
      expect(await service.publishDue(new Date(2000), 25)).toBe(0);
      expect(repository.lockDue).not.toHaveBeenCalled();
      expect(events.committed).not.toHaveBeenCalled();
    });

    it('purges only posts still trashed before the cutoff', async () => {
      repository.trashedBefore.mockResolvedValueOnce([7, 8]);
      repository.findForUpdate.mockImplementation(async (id) => (id === 7 ? post({ status: 'trashed', trashedAt: new Date(5) }) : post({ id: 8, status: 'draft' })));
      expect(await service.purgeTrash(new Date(10), 50)).toBe(1);
      expect(repository.delete).toHaveBeenCalledWith(7, UNIT_EXECUTOR);
      expect(repository.delete).toHaveBeenCalledTimes(1);
    });
  });

  describe('reads', () => {
    it('get is NOT_FOUND for a draft to anyone but its author and admins', async () => {
      stored = post({ status: 'draft', publishedAt: null });
      expect(await codeOf(service.get(7, null))).toBe('NOT_FOUND');
      expect(await codeOf(service.get(7, bob))).toBe('NOT_FOUND');
      expect(await service.get(7, alice)).toBe(stored);
      expect(await service.get(7, admin)).toBe(stored);
    });
  });
});
