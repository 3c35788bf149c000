import { Injectable } from '@nestjs/common';
import type { PostScope } from '../auth/read-policy.js';
import { type Page, toPage } from '../common/pagination/cursor.js';
import type { EntityTable } from '../common/persistence/entity-table.js';
import { type ReadScope, ResourceRepository } from '../common/persistence/resource-repository.js';
import { Post } from '../posts/post.entity.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { encodeTagCursor, type TagPosition } from './tag-cursor.js';
import { Tag } from './tag.entity.js';
import { POSTS_TAG, postTag, recordReadIds, recordReadTags } from '../common/cache/read-tags.js';

/**
 * The tags a reader with this scope sees, as a condition on `t` (parameters pushed onto
 * `params`), or null for every tag: the public ones, and those on posts the reader sees.
 */
function visibleTo(scope: PostScope, params: unknown[]): string | null {
  if (scope.kind === 'all') return null;
  if (scope.kind === 'public') return PUBLIC_TAG;
  return `(${PUBLIC_TAG} OR EXISTS (SELECT 1 FROM post_tags vt JOIN posts vp ON vp.id = vt.post_id WHERE vt.tag_id = t.id AND vp.author_id = $${params.push(scope.ownerId)}))`;
}

/** A page of the tag list: its size, and the position it starts after. */
export interface TagPageRequest {
  limit: number;
  after?: TagPosition;
}

const tagCursor = (tag: Tag) => encodeTagCursor(tag.postCount ?? 0, tag.id);

/**
 * A tag the public sees (CONTRACT §18): a public post carries it, or it was announced (made by an
 * editor, or carried by a public post once) and no post carries it. A tag only non-public posts
 * carry is not. All three are columns of the row, kept by the database (the migrations' triggers).
 */
const PUBLIC_TAG = '(t.post_count > 0 OR (t.announced AND t.link_count = 0))';

/**
 * The tags' SQL. Every tag read carries `postCount`, the public posts that carry it: the column
 * `post_count`, which the database keeps as posts are tagged, published, unpublished and deleted
 * (the tags migration's triggers), so the most-used-first list reads an index.
 */
@Injectable()
export class TagsRepository extends ResourceRepository<Tag> {
  /** The posts' table, for Tag.posts (their rows read with the tags that select them). */
  private readonly posts: EntityTable<Post>;

  constructor(sql: Sql) {
    super(sql, Tag, [
      {
        property: 'postCount',
        name: 'post_count',
        // Kept by the database (triggers of the tags migration): reading it costs nothing.
        expression: (alias) => `${alias}.post_count`,
        read: Number,
      },
      { property: 'isPublic', name: 'is_public', expression: () => `CASE WHEN ${PUBLIC_TAG} THEN 1 ELSE 0 END`, read: (value) => Number(value) === 1 },
    ]);
    this.posts = sql.table(Post);
  }

  /** A post's tags are tagged with the post; every other read of tags with `posts` (tags count posts, and post writes drop it). */
  protected override recordReads(read: ReadScope): void {
    if (read.kind === 'of' && read.column === 'postId') recordReadIds(postTag, read.ids);
    else recordReadTags(POSTS_TAG);
  }

  /** Most used first (public post count descending, then id), keyset-paged on that pair. */
  async mostUsedPage(request: TagPageRequest, scope: PostScope): Promise<Page<Tag>> {
    this.recordReads({ kind: 'list' });
    const params: number[] = [];
    const conditions: string[] = [];
    if (request.after) {
      const count = `$${params.push(request.after.count)}`;
      const again = `$${params.push(request.after.count)}`;
      conditions.push(`(t.post_count < ${count} OR (t.post_count = ${again} AND t.id > $${params.push(request.after.id)}))`);
    }
    const visible = visibleTo(scope, params);
    if (visible) conditions.push(visible);
    params.push(request.limit + 1);
    const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
    const statement = this.cached(
      `mostUsed:${request.after !== undefined}:${scope.kind}`,
      () => `SELECT ${this.select} FROM ${this.from}${where} ORDER BY t.post_count DESC, t.id LIMIT $${params.length}`,
    );
    const page = toPage(this.map(await this.sql.rows(statement, params)), request.limit, tagCursor);
    const { after } = request;
    if (after) page.hasPrevious = () => this.anyFrom(after, scope);
    return page;
  }

  /** How many tags the reader sees (TagConnection.totalCount): the list's WHERE, counted. */
  async countVisible(scope: PostScope): Promise<number> {
    this.recordReads({ kind: 'list' });
    const params: unknown[] = [];
    const visible = visibleTo(scope, params);
    const statement = this.cached(`countVisible:${scope.kind}`, () => `SELECT COUNT(*) AS count FROM tags t${visible ? ` WHERE ${visible}` : ''}`);
    const [row] = await this.sql.rows<{ count: number | string }>(statement, params);
    return Number(row.count);
  }

  /** Whether a tag the reader sees comes before the position (or is at it) in the list's order. */
  private async anyFrom(after: TagPosition, scope: PostScope): Promise<boolean> {
    this.recordReads({ kind: 'list' });
    const params = [after.count, after.count, after.id];
    const visible = visibleTo(scope, params);
    const statement = this.cached(
      `mostUsedUpTo:${scope.kind}`,
      () => `SELECT 1 AS found FROM tags t WHERE (t.post_count > $1 OR (t.post_count = $2 AND t.id <= $3))${visible ? ` AND ${visible}` : ''} LIMIT 1`,
    );
    return (await this.sql.rows(statement, params)).length > 0;
  }

  /** The tag with this slug, if the reader sees it. */
  async findBySlug(slug: string, scope: PostScope, executor?: Executor): Promise<Tag | null> {
    this.recordReads({ kind: 'list' });
    const params: unknown[] = [slug];
    const visible = visibleTo(scope, params);
    const statement = this.cached(`bySlug:${scope.kind}`, () => `SELECT ${this.select} FROM ${this.from} WHERE t.slug = $1${visible ? ` AND ${visible}` : ''}`);
    const [row] = await this.sql.rows<Record<string, unknown>>(statement, params, executor);
    return row ? this.fromRow(row) : null;
  }

  /** The tag with this id, if the reader sees it. */
  async findVisible(id: number, scope: PostScope): Promise<Tag | null> {
    if (scope.kind === 'all') return this.findById(id);
    this.recordReads({ kind: 'list' });
    const params: unknown[] = [id];
    const visible = visibleTo(scope, params);
    const statement = this.cached(`visibleById:${scope.kind}`, () => `SELECT ${this.select} FROM ${this.from} WHERE t.id = $1 AND ${visible}`);
    const [row] = await this.sql.rows<Record<string, unknown>>(statement, params);
    return row ? this.fromRow(row) : null;
  }

  /** Whether one of this user's posts (whatever its status) carries the tag. */
  async carriesPostOf(tagId: number, authorId: number): Promise<boolean> {
    this.recordReads({ kind: 'list' });
    const statement = this.cached('carriesPostOf', () => 'SELECT 1 AS found FROM post_tags pt JOIN posts p ON p.id = pt.post_id WHERE pt.tag_id = $1 AND p.author_id = $2 LIMIT 1');
    return (await this.sql.rows(statement, [tagId, authorId])).length > 0;
  }

  /** The ids of the tags with these slugs (those that exist), in one statement. */
  async idsBySlugs(slugs: readonly string[], executor: Executor): Promise<Map<string, number>> {
    this.recordReads({ kind: 'list' });
    if (slugs.length === 0) return new Map();
    const statement = this.cached(`idsBySlugs:${slugs.length}`, () => `SELECT id, slug FROM tags WHERE slug IN (${this.sql.placeholders(slugs.length)})`);
    const rows = await this.sql.rows<{ id: number | string; slug: string }>(statement, slugs, executor);
    return new Map(rows.map((row) => [row.slug, Number(row.id)]));
  }

  /**
   * The id of the tag with this slug and, when it is made now (named `name`), the new tag: a tag
   * another writer makes meanwhile is taken as it is (ON CONFLICT waits for that writer's commit).
   */
  async ensure(name: string, slug: string, announced: boolean, executor: Executor): Promise<{ id: number; created: Tag | null }> {
    this.recordReads({ kind: 'list' });
    const insert = this.cached(
      `ensure:${announced}`,
      // TRUE and FALSE are literals in both dialects (better-sqlite3 binds no booleans).
      () => `INSERT INTO tags (name, slug, created_at, updated_at, version, announced) VALUES ($1, $2, $3, $4, 1, ${announced ? 'TRUE' : 'FALSE'}) ON CONFLICT (slug) DO NOTHING RETURNING ${this.table.returningList}`,
    );
    const now = this.sql.timestamp(new Date());
    const [row] = await this.sql.rows<Record<string, unknown>>(insert, [name, slug, now, now], executor);
    if (row) {
      const created = this.table.fromRow(row);
      return { id: created.id, created };
    }
    const id = (await this.idsBySlugs([slug], executor)).get(slug);
    if (id === undefined) throw new Error(`The tag ${slug} was neither made nor found`);
    return { id, created: null };
  }

  /**
   * Marks announced the tags of this (public) post that were not yet, and returns them: each is
   * public from now on and has its public TAG_CREATED to come.
   */
  async announceTagsOf(postId: number, executor: Executor): Promise<Tag[]> {
    this.recordReads({ kind: 'list' });
    const statement = this.cached(
      'announceTagsOf',
      () => `UPDATE tags SET announced = TRUE WHERE announced = FALSE AND id IN (SELECT tag_id FROM post_tags WHERE post_id = $1) RETURNING ${this.table.returningList}, post_count`,
    );
    const rows = await this.sql.written<Record<string, unknown>>(statement, [postId], executor);
    return rows.map((row) => Object.assign(this.table.fromRow(row), { postCount: Number(row.post_count), isPublic: true }));
  }

  /** The slugs of one post's tags, in slug order. */
  async slugsOfPost(postId: number, executor: Executor): Promise<[slug: string, id: number][]> {
    this.recordReads({ kind: 'of', column: 'postId', ids: [postId] });
    const statement = this.cached('slugsOfPost', () => 'SELECT g.slug, g.id FROM post_tags pt JOIN tags g ON g.id = pt.tag_id WHERE pt.post_id = $1 ORDER BY g.slug');
    return (await this.sql.rows<{ slug: string; id: number | string }>(statement, [postId], executor)).map((row) => [row.slug, Number(row.id)]);
  }

  /** Makes these the post's tags (ids of existing tags); with `replace`, what it had beyond them goes. */
  async setPostTags(postId: number, tagIds: readonly number[], executor: Executor, options: { replace: boolean }): Promise<void> {
    if (options.replace) {
      const clear = this.cached('clearPostTags', () => 'DELETE FROM post_tags WHERE post_id = $1');
      await this.sql.written(clear, [postId], executor);
    }
    if (tagIds.length === 0) return;
    // In id order: each link's trigger updates its tag's count, and writers that lock tags in one
    // order cannot deadlock on them.
    const ordered = [...tagIds].sort((a, b) => a - b);
    const insert = this.cached(
      `insertPostTags:${ordered.length}`,
      // Each parameter once: SQLite numbers them by position.
      () => `INSERT INTO post_tags (post_id, tag_id) VALUES ${ordered.map((_, index) => `($${2 * index + 1}, $${2 * index + 2})`).join(', ')}`,
    );
    await this.sql.written(insert, ordered.flatMap((tagId) => [postId, tagId]), executor);
  }

  /** For batching (Post.tags): the tags of each of these posts, by slug, in one statement. */
  async tagsOfPosts(postIds: readonly number[]): Promise<Map<number, Tag[]>> {
    this.recordReads({ kind: 'of', column: 'postId', ids: postIds });
    const byPost = new Map<number, Tag[]>(postIds.map((id) => [id, []]));
    if (postIds.length === 0) return byPost;
    const statement = this.cached(
      `tagsOfPosts:${postIds.length}`,
      () => `SELECT pt.post_id AS tagged_post_id, ${this.select} FROM post_tags pt JOIN ${this.from} ON t.id = pt.tag_id WHERE pt.post_id IN (${this.sql.placeholders(postIds.length)}) ORDER BY t.slug`,
    );
    for (const row of await this.sql.rows<Record<string, unknown>>(statement, postIds)) byPost.get(Number(row.tagged_post_id))?.push(this.fromRow(row));
    // In code-point order, as the posts' slug arrays (a collation may weigh `-` differently).
    for (const tags of byPost.values()) tags.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
    return byPost;
  }

  /**
   * For batching (Tag.posts): the newest public posts of each of these tags, newest publication
   * first, in one statement (each post once per tag that it carries).
   */
  async publicPostsOf(tagIds: readonly number[], limit: number): Promise<Map<number, Post[]>> {
    this.recordReads({ kind: 'list' });
    const byTag = new Map<number, Post[]>(tagIds.map((id) => [id, []]));
    if (tagIds.length === 0) return byTag;
    const statement = this.cached(
      `publicPostsOf:${tagIds.length}`,
      () =>
        `SELECT page.tag_id AS of_tag_id, ${this.posts.selectList('p')} FROM (SELECT pt.tag_id, pt.post_id, ` +
        'ROW_NUMBER() OVER (PARTITION BY pt.tag_id ORDER BY r.published_at DESC, r.id DESC) AS rn ' +
        `FROM post_tags pt JOIN posts r ON r.id = pt.post_id WHERE r.status = 'published' AND pt.tag_id IN (${this.sql.placeholders(tagIds.length)})) page ` +
        `JOIN posts p ON p.id = page.post_id WHERE page.rn <= $${tagIds.length + 1} ORDER BY p.published_at DESC, p.id DESC`,
    );
    for (const row of await this.sql.rows<Record<string, unknown>>(statement, [...tagIds, limit])) byTag.get(Number(row.of_tag_id))?.push(this.posts.fromRow(row));
    return byTag;
  }
}
