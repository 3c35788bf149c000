import { Injectable } from '@nestjs/common';
import { type Page, toPage } from '../common/pagination/cursor.js';
import type { EntityTable } from '../common/persistence/entity-table.js';
import { type ReadScope, ResourceRepository } from '../common/persistence/resource-repository.js';
import { Post } from '../posts/post.entity.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { encodeTagCursor, type TagPosition } from './tag-cursor.js';
import { Tag } from './tag.entity.js';
import { POSTS_TAG, postTag, recordReadIds, recordReadTags } from '../common/cache/read-tags.js';

/** A page of the tag list: its size, and the position it starts after. */
export interface TagPageRequest {
  limit: number;
  after?: TagPosition;
}

const tagCursor = (tag: Tag) => encodeTagCursor(tag.postCount ?? 0, tag.id);

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
    ]);
    this.posts = sql.table(Post);
  }

  /** A post's tags are tagged with the post; every other read of tags with `posts` (tags count posts, and post writes drop it). */
  protected override recordReads(read: ReadScope): void {
    if (read.kind === 'of' && read.column === 'postId') recordReadIds(postTag, read.ids);
    else recordReadTags(POSTS_TAG);
  }

  /** Most used first (public post count descending, then id), keyset-paged on that pair. */
  async mostUsedPage(request: TagPageRequest): Promise<Page<Tag>> {
    this.recordReads({ kind: 'list' });
    const params: number[] = [];
    let where = '';
    if (request.after) {
      const count = `$${params.push(request.after.count)}`;
      const again = `$${params.push(request.after.count)}`;
      where = ` WHERE t.post_count < ${count} OR (t.post_count = ${again} AND t.id > $${params.push(request.after.id)})`;
    }
    params.push(request.limit + 1);
    const statement = this.cached(
      `mostUsed:${request.after !== undefined}`,
      () => `SELECT ${this.select} FROM ${this.from}${where} ORDER BY t.post_count DESC, t.id LIMIT $${params.length}`,
    );
    const page = toPage(this.map(await this.sql.rows(statement, params)), request.limit, tagCursor);
    const { after } = request;
    if (after) page.hasPrevious = () => this.anyFrom(after);
    return page;
  }

  /** Whether a tag comes before the position (or is at it) in the list's order. */
  private async anyFrom(after: TagPosition): Promise<boolean> {
    this.recordReads({ kind: 'list' });
    const statement = this.cached(
      'mostUsedUpTo',
      () => `SELECT 1 AS found FROM tags t WHERE t.post_count > $1 OR (t.post_count = $2 AND t.id <= $3) LIMIT 1`,
    );
    return (await this.sql.rows(statement, [after.count, after.count, after.id])).length > 0;
  }

  async findBySlug(slug: string, executor?: Executor): Promise<Tag | null> {
    this.recordReads({ kind: 'list' });
    const statement = this.cached('bySlug', () => `SELECT ${this.select} FROM ${this.from} WHERE t.slug = $1`);
    const [row] = await this.sql.rows<Record<string, unknown>>(statement, [slug], executor);
    return row ? this.fromRow(row) : null;
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
  async ensure(name: string, slug: string, executor: Executor): Promise<{ id: number; created: Tag | null }> {
    this.recordReads({ kind: 'list' });
    const insert = this.cached(
      'ensure',
      () => `INSERT INTO tags (name, slug, created_at, updated_at, version) VALUES ($1, $2, $3, $4, 1) ON CONFLICT (slug) DO NOTHING RETURNING ${this.table.returningList}`,
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

  /** The slugs of one post's tags, in slug order. */
  async slugsOfPost(postId: number, executor: Executor): Promise<string[]> {
    this.recordReads({ kind: 'of', column: 'postId', ids: [postId] });
    const statement = this.cached('slugsOfPost', () => 'SELECT g.slug FROM post_tags pt JOIN tags g ON g.id = pt.tag_id WHERE pt.post_id = $1 ORDER BY g.slug');
    return (await this.sql.rows<{ slug: string }>(statement, [postId], executor)).map((row) => row.slug);
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
