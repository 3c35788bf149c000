import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostScope } from '../../src/auth/read-policy.js';
import { newUser, openSqliteFile, type SqliteFile } from './sqlite-file.js';

const PUBLIC_READER_SCOPE: PostScope = { kind: 'public' };

describe('UsersRepository on a SQLite file', () => {
  let db: SqliteFile;

  beforeAll(async () => {
    db = await openSqliteFile();
  });
  afterAll(() => db.close());

  it('reads a user by e-mail without the hash, and with it only where asked', async () => {
    const user = await newUser(db, { email: 'ada@example.com', passwordHash: 'hash-of-ada', role: 'editor' });
    const found = await db.users.findByEmail('ada@example.com');
    expect(found).toMatchObject({ id: user.id, email: 'ada@example.com', role: 'editor', commentsBlocked: false });
    expect(found?.passwordHash).toBeUndefined();
    expect((await db.users.findWithPasswordHash('ada@example.com'))?.passwordHash).toBe('hash-of-ada');
    expect(await db.users.passwordOf(user.id)).toEqual({ email: 'ada@example.com', passwordHash: 'hash-of-ada' });
    expect(await db.users.findByEmail('nobody@example.com')).toBeNull();
  });

  it('revokes tokens without a new version, and counts and finds users by role', async () => {
    const admin = await newUser(db, { role: 'admin' });
    expect((await db.users.findAccount(admin.id))?.tokensValidAfter).toBeNull();
    const at = new Date(Date.UTC(2026, 5, 1, 8, 30, 15, 250));
    expect(await db.users.revokeTokens(admin.id, at)).toBe(true);
    expect(await db.users.findAccount(admin.id)).toEqual({ id: admin.id, role: 'admin', tokensValidAfter: at });
    expect((await db.users.findById(admin.id))?.version).toBe(admin.version);
    expect(await db.users.countWithRole('admin')).toBe(1);
    expect(await db.users.lockAdmins(db.dataSource.manager)).toEqual([admin.id]);
    const page = await db.users.page({ limit: 1 }, 'asc');
    expect(page.items).toHaveLength(1);
    expect(page.nextCursor).not.toBeNull();
    expect(await db.users.count()).toBe(2);
  });
});

describe('TagsRepository on a SQLite file', () => {
  let db: SqliteFile;

  beforeAll(async () => {
    db = await openSqliteFile();
  });
  afterAll(() => db.close());

  it('makes a tag once (the second ensure finds it), and finds tags by slug', async () => {
    const manager = db.dataSource.manager;
    const made = await db.tags.ensure('News', 'news', true, manager);
    expect(made.created).toMatchObject({ id: made.id, name: 'News', slug: 'news', version: 1 });
    const again = await db.tags.ensure('News', 'news', true, manager);
    expect(again).toEqual({ id: made.id, created: null });
    expect(await db.tags.idsBySlugs(['news', 'missing'], manager)).toEqual(new Map([['news', made.id]]));
    // Announced and on no post: public.
    expect(await db.tags.findBySlug('news', PUBLIC_READER_SCOPE)).toMatchObject({ id: made.id, postCount: 0, isPublic: true });
  });

  it("keeps a tag only non-public posts carry from the public, counts a public post's tag, pages most used first", async () => {
    const manager = db.dataSource.manager;
    const author = await newUser(db);
    const draft = await db.posts.insert({ title: 'D', body: 'B', authorId: author.id, status: 'draft' });
    const shown = await db.posts.insert({ title: 'S', body: 'B', authorId: author.id, status: 'published', publishedAt: new Date() });
    const hidden = await db.tags.ensure('Hidden', 'hidden', false, manager);
    const used = await db.tags.ensure('Used', 'used', false, manager);
    await db.tags.setPostTags(draft.id, [hidden.id], manager, { replace: false });
    await db.tags.setPostTags(shown.id, [used.id, hidden.id], manager, { replace: false });
    await db.tags.setPostTags(shown.id, [used.id], manager, { replace: true });
    expect(await db.tags.findBySlug('hidden', PUBLIC_READER_SCOPE)).toBeNull();
    expect(await db.tags.findBySlug('hidden', { kind: 'all' })).toMatchObject({ slug: 'hidden', isPublic: false });
    expect(await db.tags.slugsOfPost(shown.id, manager)).toEqual([['used', used.id]]);
    const page = await db.tags.mostUsedPage({ limit: 1 }, PUBLIC_READER_SCOPE);
    expect(page.items.map((tag) => [tag.slug, tag.postCount])).toEqual([['used', 1]]);
    expect(await db.tags.countVisible(PUBLIC_READER_SCOPE)).toBe(2);
    const byPost = await db.tags.tagsOfPosts([shown.id, draft.id]);
    expect(byPost.get(shown.id)?.map((tag) => tag.slug)).toEqual(['used']);
    expect(byPost.get(draft.id)?.map((tag) => tag.slug)).toEqual(['hidden']);
    expect((await db.posts.publicPagesOfTags([used.id], 5)).get(used.id)?.map((post) => post.id)).toEqual([shown.id]);
  });
});
