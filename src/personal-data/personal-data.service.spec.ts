import { beforeEach, describe, expect, it, type Mocked } from 'vitest';
import { codeOf, newTestService } from '../../test/support/unit.js';
import { AuditEntriesRepository } from '../audit/audit-entries.repository.js';
import { ApiKeysService } from '../api-keys/api-keys.service.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import type { Actor } from '../common/actor.js';
import { encodeCursor, type Page, type PageRequest } from '../common/pagination/cursor.js';
import { CommentsRepository } from '../comments/comments.repository.js';
import { MediaService } from '../media/media.service.js';
import { ExternalIdentitiesRepository } from '../oidc/external-identities.repository.js';
import { Post } from '../posts/post.entity.js';
import { PostRevision } from '../posts/post-revision.entity.js';
import { PostRevisionsRepository } from '../posts/post-revisions.repository.js';
import { PostsRepository } from '../posts/posts.repository.js';
import { User } from '../users/user.entity.js';
import { UsersService } from '../users/users.service.js';
import { PersonalDataService } from './personal-data.service.js';

// The rules and the streaming of PersonalDataService with its reads replaced: no database.

const alice: Actor = { id: 2, role: 'author', issuedAt: Date.now() / 1000 };
const admin: Actor = { id: 1, role: 'admin' };
const POSTS = 250;

const post = (id: number): Post =>
  Object.assign(new Post(), { id, authorId: 2, title: `Post ${id}`, body: 'x'.repeat(1000), status: 'draft', tags: [] as string[], createdAt: new Date(0), updatedAt: new Date(0), version: 1 });
const revision = (postId: number) => Object.assign(new PostRevision(), { id: postId, postId, number: 1, title: 'T', body: 'B', status: 'draft', editorId: 2, createdAt: new Date(0) });

/** Keyset pages in id order over `items`, as the repositories answer them. */
function pageOf<T extends { id: number }>(items: T[], request: PageRequest): Page<T> {
  const from = items.filter((item) => request.after === undefined || item.id > request.after);
  const page = from.slice(0, request.limit);
  return { items: page, nextCursor: from.length > request.limit ? encodeCursor(page[page.length - 1].id) : null };
}

describe('PersonalDataService', () => {
  let service: PersonalDataService;
  let posts: Mocked<PostsRepository>;
  let users: Mocked<UsersService>;
  const all = Array.from({ length: POSTS }, (_, index) => post(index + 1));

  beforeEach(async () => {
    const unit = await newTestService(PersonalDataService, { real: [new AuthorizationPolicy()] });
    ({ service } = unit);
    posts = unit.mock(PostsRepository);
    users = unit.mock(UsersService);
    users.get.mockResolvedValue(Object.assign(new User(), { id: 2, name: 'Alice', email: 'a@example.com', avatarUrl: null, role: 'author', createdAt: new Date(0), updatedAt: new Date(0), version: 1 }));
    posts.page.mockImplementation(async (request) => pageOf(all, request));
    unit.mock(PostRevisionsRepository).pageOfPosts.mockImplementation(async (ids) => ids.map(revision));
    unit.mock(CommentsRepository).page.mockResolvedValue({ items: [], nextCursor: null });
    unit.mock(MediaService).uploadedPage.mockResolvedValue({ items: [], nextCursor: null });
    unit.mock(ApiKeysService).list.mockResolvedValue([]);
    unit.mock(ExternalIdentitiesRepository).linkedTo.mockResolvedValue([]);
    unit.mock(AuditEntriesRepository).pageOfUser.mockResolvedValue([]);
  });

  it('writes the document as it reads it: the first piece goes out before the later pages are read', async () => {
    const iterator = (await service.export(2, alice, undefined))[Symbol.asyncIterator]();
    expect(posts.page).not.toHaveBeenCalled();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    // Each page of posts is more than a chunk: one page read, the first chunk given out.
    expect(posts.page).toHaveBeenCalledTimes(1);
    let text = first.value as string;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) text += next.value;
    expect(posts.page).toHaveBeenCalledTimes(3);
    const document = JSON.parse(text) as { posts: { id: number; revisions: { postId: number }[] }[] };
    expect(document.posts.map((item) => item.id)).toEqual(all.map((item) => item.id));
    expect(document.posts.every((item) => item.revisions.length === 1 && item.revisions[0].postId === item.id)).toBe(true);
  });

  it('checks who asks before anything is read: API keys, other users, the password of an old token; admins need none', async () => {
    expect(await codeOf(service.export(2, { ...alice, apiKeyId: 9, scopes: ['read', 'write'] }, undefined))).toBe('INSUFFICIENT_SCOPE');
    expect(await codeOf(service.export(2, { id: 3, role: 'editor', issuedAt: Date.now() / 1000 }, undefined))).toBe('FORBIDDEN');
    expect(await codeOf(service.export(2, null, undefined))).toBe('UNAUTHENTICATED');
    expect(users.get).not.toHaveBeenCalled();
    await service.export(2, admin, undefined);
    expect(users.confirmPresence).not.toHaveBeenCalled();
    await service.export(2, alice, 'secret', '10.0.0.1');
    expect(users.confirmPresence).toHaveBeenCalledWith(alice, 'secret', '10.0.0.1', 'X-Current-Password');
    expect(posts.page).not.toHaveBeenCalled();
  });
});
