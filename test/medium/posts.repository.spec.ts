import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Post } from '../../src/posts/post.entity.js';
import { newUser, openSqliteFile, type SqliteFile } from './sqlite-file.js';

describe('PostsRepository on a SQLite file', () => {
  let db: SqliteFile;
  let authorId: number;

  beforeAll(async () => {
    db = await openSqliteFile();
    authorId = (await newUser(db)).id;
  });
  afterAll(() => db.close());

  const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute));
  const publish = (title: string, minute: number, author = authorId) =>
    db.posts.insert({ title, body: `${title} body`, authorId: author, status: 'published', publishedAt: at(minute), groupPublishedAt: at(minute), createdAt: at(minute) });

  it('inserts a post and reads it back by id with its tags (slugs in code-point order, and their ids)', async () => {
    const post = await db.posts.insert({ title: 'Tagged', body: 'B', authorId, status: 'draft', publishAt: null, publishedAt: null, trashedAt: null });
    expect(post).toMatchObject({ title: 'Tagged', body: 'B', authorId, status: 'draft', version: 1 });
    expect(post.createdAt).toBeInstanceOf(Date);
    const manager = db.dataSource.manager;
    const zeta = await db.tags.ensure('Zeta', 'zeta', false, manager);
    const alpha = await db.tags.ensure('Alpha', 'alpha-b', false, manager);
    await db.tags.setPostTags(post.id, [zeta.id, alpha.id], manager, { replace: false });

    const read = await db.posts.findById(post.id);
    expect(read).toMatchObject({ id: post.id, title: 'Tagged', tags: ['alpha-b', 'zeta'], tagIds: [alpha.id, zeta.id] });
    expect(read?.createdAt.getTime()).toBe(post.createdAt.getTime());
    expect(await db.posts.findById(post.id + 1000)).toBeNull();
    expect(await db.posts.visibilityOf(post.id)).toEqual({ status: 'draft', authorId });
  });

  it('pages the public posts newest publication first, keyset on (group_published_at, id), drafts left out', async () => {
    const other = (await newUser(db)).id;
    const titles = ['P1', 'P2', 'P3', 'P4', 'P5'];
    for (const [index, title] of titles.entries()) await publish(title, index, index % 2 === 0 ? other : authorId);
    const seen: Post[] = [];
    let page = await db.posts.publicPage({ limit: 2 });
    seen.push(...page.items);
    while (page.nextCursor !== null) {
      const last = page.items[page.items.length - 1];
      page = await db.posts.publicPage({ limit: 2, after: last.id, afterTime: last.groupPublishedAt ?? undefined });
      expect(await page.hasPrevious?.()).toBe(true);
      seen.push(...page.items);
    }
    expect(seen.map((post) => post.title)).toEqual(['P5', 'P4', 'P3', 'P2', 'P1']);
    // An id-only cursor (issued before the list paged by publication) reads the post's time in the statement.
    const fromId = await db.posts.publicPage({ limit: 10, after: seen[1].id });
    expect(fromId.items.map((post) => post.title)).toEqual(['P3', 'P2', 'P1']);
    const byOther = await db.posts.publicPage({ limit: 10 }, other);
    expect(byOther.items.map((post) => post.title)).toEqual(['P5', 'P3', 'P1']);
    expect(await db.posts.countVisible({})).toBe(5);
    expect(await db.posts.countVisible({ status: 'draft', authorId })).toBe(1);
  });

  it('updates a row only at its expected version, and deletes it once', async () => {
    const post = await publish('Versioned', 30);
    const updated = await db.posts.update(post.id, { title: 'Changed' }, post.version);
    expect(updated).toMatchObject({ id: post.id, title: 'Changed', version: post.version + 1 });
    expect(await db.posts.update(post.id, { title: 'Stale' }, post.version)).toBeNull();
    expect((await db.posts.findById(post.id))?.title).toBe('Changed');
    expect(await db.posts.delete(post.id)).toBe(true);
    expect(await db.posts.delete(post.id)).toBe(false);
  });
});
