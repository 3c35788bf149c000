import { beforeEach, describe, expect, it, type Mocked } from 'vitest';
import { codeOf, newTestService } from '../../test/support/unit.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { ReadPolicy } from '../auth/read-policy.js';
import type { Actor } from '../common/actor.js';
import { UsersService } from '../users/users.service.js';
import { PostFinder } from './post-finder.service.js';
import { PostsRepository } from './posts.repository.js';

// How PostFinder scopes and pages the lists, with its repository replaced: no database, no Nest application.

const alice: Actor = { id: 2, role: 'author' };
const bob: Actor = { id: 3, role: 'author' };
const admin: Actor = { id: 1, role: 'admin' };

describe('PostFinder', () => {
  let repository: Mocked<PostsRepository>;
  let users: Mocked<UsersService>;
  let finder: PostFinder;

  beforeEach(async () => {
    const unit = await newTestService(PostFinder, { real: [new AuthorizationPolicy(), new ReadPolicy()] });
    finder = unit.service;
    repository = unit.mock(PostsRepository);
    users = unit.mock(UsersService);
    repository.publicPage.mockResolvedValue({ items: [], nextCursor: null });
    repository.statusPage.mockResolvedValue({ items: [], nextCursor: null });
    users.exists.mockResolvedValue(true);
  });

  it('scopes lists: public by default, own non-public posts for authors, all for admins, 401 anonymous', () => {
    expect(finder.scope(null, {})).toEqual({ authorId: undefined });
    expect(() => finder.scope(null, { status: 'draft' })).toThrow(expect.objectContaining({ code: 'UNAUTHENTICATED' }));
    expect(finder.scope(bob, { status: 'draft' })).toEqual({ status: 'draft', ownerId: bob.id });
    expect(finder.scope(admin, { status: 'draft' })).toEqual({ status: 'draft', ownerId: undefined });
    expect(finder.scope(bob, { status: 'draft', authorId: alice.id })).toMatchObject({ ownerId: -1 });
  });

  it('pages the public list by (publishedAt, id), the lists of a state by id', async () => {
    await finder.list({ status: 'draft', ownerId: 2 }, { limit: 2, after: 9 });
    expect(repository.statusPage).toHaveBeenCalledWith('draft', { limit: 2, after: 9 }, 2, undefined);
    await finder.list({ authorId: 5 }, { limit: 2, after: 9, afterTime: new Date(3) });
    expect(repository.publicPage).toHaveBeenCalledWith({ limit: 2, after: 9, afterTime: new Date(3) }, 5, undefined);
  });

  it('listForAuthor is NOT_FOUND for a user who does not exist', async () => {
    users.exists.mockResolvedValueOnce(false);
    expect(await codeOf(finder.listForAuthor(5, { limit: 2 }, null))).toBe('NOT_FOUND');
    expect(repository.publicPage).not.toHaveBeenCalled();
  });
});
