import { beforeEach, describe, expect, it, type Mocked } from 'vitest';
import { codeOf, newTestService, UNIT_EXECUTOR } from '../../test/support/unit.js';
import { ReadPolicy } from '../auth/read-policy.js';
import type { Actor } from '../common/actor.js';
import { Post } from './post.entity.js';
import { PostRevision } from './post-revision.entity.js';
import { PostRevisionsRepository } from './post-revisions.repository.js';
import { PostRevisions } from './post-revisions.service.js';
import { PostsRepository } from './posts.repository.js';

// Who reads a post's revisions, and what a restore reads, with the repositories replaced: no database.

const alice: Actor = { id: 2, role: 'author' };
const bob: Actor = { id: 3, role: 'author' };
const admin: Actor = { id: 1, role: 'admin' };

const post = (fields: Partial<Post> = {}): Post =>
  Object.assign(new Post(), { id: 7, title: 'Hello', body: 'Text', authorId: alice.id, status: 'published', publishedAt: new Date(0), version: 1, ...fields });

describe('PostRevisions', () => {
  let repository: Mocked<PostRevisionsRepository>;
  let posts: Mocked<PostsRepository>;
  let revisions: PostRevisions;

  beforeEach(async () => {
    const unit = await newTestService(PostRevisions, { real: [new ReadPolicy()] });
    revisions = unit.service;
    repository = unit.mock(PostRevisionsRepository);
    posts = unit.mock(PostsRepository);
    posts.findById.mockResolvedValue(post());
    repository.page.mockResolvedValue({ items: [], nextCursor: null });
  });

  it('are NOT_FOUND to anyone but the author and admins, even of a public post', async () => {
    expect(await codeOf(revisions.list(7, { limit: 2 }, null))).toBe('NOT_FOUND');
    expect(await codeOf(revisions.list(7, { limit: 2 }, bob))).toBe('NOT_FOUND');
    expect(repository.page).not.toHaveBeenCalled();
    await revisions.list(7, { limit: 2 }, alice);
    expect(repository.page).toHaveBeenCalledWith(7, { limit: 2 });
  });

  it('one revision: NOT_FOUND for a missing post, a reader who may not see them, or a missing number', async () => {
    repository.find.mockImplementation(async (_post, number) => (number === 1 ? Object.assign(new PostRevision(), { number: 1 }) : null));
    expect(await revisions.get(7, 1, admin)).toMatchObject({ number: 1 });
    expect(await codeOf(revisions.get(7, 1, bob))).toBe('NOT_FOUND');
    expect(await codeOf(revisions.get(7, 2, alice))).toBe('NOT_FOUND');
    posts.findById.mockResolvedValueOnce(null);
    expect(await codeOf(revisions.get(8, 1, admin))).toBe('NOT_FOUND');
  });

  it("a restore reads the revision in the write's transaction; a number the post has not is 400", async () => {
    repository.find.mockImplementation(async (_post, number) => (number === 1 ? Object.assign(new PostRevision(), { number: 1, title: 'Old', body: 'Was' }) : null));
    expect(await revisions.contentOf(7, 1, UNIT_EXECUTOR)).toMatchObject({ title: 'Old', body: 'Was' });
    expect(repository.find).toHaveBeenCalledWith(7, 1, UNIT_EXECUTOR);
    expect(await codeOf(revisions.contentOf(7, 5, UNIT_EXECUTOR))).toBe('BAD_USER_INPUT');
  });
});
