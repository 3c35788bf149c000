import { Injectable } from '@nestjs/common';
import type { PostScope } from '../auth/read-policy.js';
import { type Page, toPage } from '../common/pagination/cursor.js';
import { type ReadScope, ResourceRepository } from '../common/persistence/resource-repository.js';
import { toDate } from '../common/persistence/entity-table.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import { encodeTagCursor, type TagPosition } from './tag-cursor.js';
import { Tag } from './tag.entity.js';
import { POSTS_TAG, postTag, recordReadIds, recordReadTags } from '../common/cache/read-tags.js';

/**
 * The tags a reader with this scope sees, as a condition on `t`, or null for every tag: the
 * public ones, and those on posts the reader sees.
 */
function visibleTo(scope: PostScope): Fragment | null {
  if (scope.kind === 'all') return null;
  if (scope.kind === 'public') return PUBLIC_TAG_SQL;
  return sql`(${PUBLIC_TAG_SQL} OR EXISTS (SELECT 1 FROM post_tags vt JOIN posts vp ON vp.id = vt.post_id WHERE vt.tag_id = t.id AND vp.author_id = ${scope.ownerId}))`;
}

/** The conditions, those of the scope's `visibleTo` after them. */
function visibleWhere(scope: PostScope, ...conditions: Fragment[]): Fragment {
  const visible = visibleTo(scope);
  return sql.where(visible ? [...conditions, visible] : conditions);
}

/** A tag as a sitemap lists it: its slug, and when its newest public post last changed. */
export interface TagAddress {
  id: number;
  slug: string;
  lastModified: Date;
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
const PUBLIC_TAG_SQL = sql.raw(PUBLIC_TAG);
const TRUE = sql.raw('TRUE');
const FALSE = sql.raw('FALSE');

/**
 * The tags' SQL. Every tag read carries `postCount`, the public posts that carry it: the column
 * `post_count`, which the database keeps as posts are tagged, published, unpublished and deleted
 * (the tags migration's triggers), so the most-used-first list reads an index.
 */
@Injectable()
export class TagsRepository extends ResourceRepository<Tag> {
  constructor(db: Sql) {
    super(db, Tag, [
      {
        property: 'postCount',
        name: 'post_count',
        // Kept by the database (triggers of the tags migration): reading it costs nothing.
        expression: (alias) => `${alias}.post_count`,
        read: Number,
      },
      { property: 'isPublic', name: 'is_public', expression: () => `CASE WHEN ${PUBLIC_TAG} THEN 1 ELSE 0 END`, read: (value) => Number(value) === 1 },
    ]);
  }

  /** A post's tags are tagged with the post; every other read of tags with `posts` (tags count posts, and post writes drop it). */
  protected override recordReads(read: ReadScope): void {
    if (read.kind === 'of' && read.column === 'postId') recordReadIds(postTag, read.ids);
    else recordReadTags(POSTS_TAG);
  }

  /** Most used first (public post count descending, then id), keyset-paged on that pair. */
  async mostUsedPage(request: TagPageRequest, scope: PostScope): Promise<Page<Tag>> {
    this.recordReads({ kind: 'list' });
    const { after } = request;
    const where = after
      ? visibleWhere(scope, sql`(t.post_count < ${after.count} OR (t.post_count = ${after.count} AND t.id > ${after.id}))`)
      : visibleWhere(scope);
    const statement = sql`SELECT ${this.select} FROM ${this.from}${where} ORDER BY t.post_count DESC, t.id LIMIT ${request.limit + 1}`;
    const page = toPage(this.map(await this.sql.rows(statement)), request.limit, tagCursor);
    if (after) page.hasPrevious = () => this.anyFrom(after, scope);
    return page;
  }

  /** How many tags the reader sees (TagConnection.totalCount): the list's WHERE, counted. */
  async countVisible(scope: PostScope): Promise<number> {
    this.recordReads({ kind: 'list' });
    const [row] = await this.sql.rows<{ count: number | string }>(sql`SELECT COUNT(*) AS count FROM tags t${visibleWhere(scope)}`);
    return Number(row.count);
  }

  /** How many tags a public post carries (the sitemap's tags). */
  async countCarriedByPublic(): Promise<number> {
    this.recordReads({ kind: 'list' });
    const [row] = await this.sql.rows<{ count: number | string }>(
      sql`SELECT COUNT(DISTINCT pt.tag_id) AS count FROM post_tags pt JOIN posts p ON p.id = pt.post_id WHERE p.status = 'published'`,
    );
    return Number(row.count);
  }

  /** The tags a public post carries, by id, `limit` of them after the first `offset`, each with its newest public post's updated_at. */
  async carriedByPublic(offset: number, limit: number): Promise<TagAddress[]> {
    this.recordReads({ kind: 'list' });
    const rows = await this.sql.rows<{ id: number | string; slug: string; last_modified: unknown }>(
      sql`SELECT g.id, g.slug, MAX(p.updated_at) AS last_modified FROM tags g JOIN post_tags pt ON pt.tag_id = g.id JOIN posts p ON p.id = pt.post_id WHERE p.status = 'published' GROUP BY g.id, g.slug ORDER BY g.id LIMIT ${limit} OFFSET ${offset}`,
    );
    return rows.map((row) => ({ id: Number(row.id), slug: row.slug, lastModified: toDate(row.last_modified) }));
  }

  /** Whether a tag the reader sees comes before the position (or is at it) in the list's order. */
  private async anyFrom(after: TagPosition, scope: PostScope): Promise<boolean> {
    this.recordReads({ kind: 'list' });
    const where = visibleWhere(scope, sql`(t.post_count > ${after.count} OR (t.post_count = ${after.count} AND t.id <= ${after.id}))`);
    return (await this.sql.rows(sql`SELECT 1 AS found FROM tags t${where} LIMIT 1`)).length > 0;
  }

  /** The tag with this slug, if the reader sees it. */
  async findBySlug(slug: string, scope: PostScope, executor?: Executor): Promise<Tag | null> {
    this.recordReads({ kind: 'list' });
    const [row] = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${this.select} FROM ${this.from}${visibleWhere(scope, sql`t.slug = ${slug}`)}`, executor);
    return row ? this.fromRow(row) : null;
  }

  /** The tag with this id, if the reader sees it. */
  async findVisible(id: number, scope: PostScope): Promise<Tag | null> {
    if (scope.kind === 'all') return this.findById(id);
    this.recordReads({ kind: 'list' });
    const [row] = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${this.select} FROM ${this.from}${visibleWhere(scope, sql`t.id = ${id}`)}`);
    return row ? this.fromRow(row) : null;
  }

  /** Whether one of this user's posts (whatever its status) carries the tag. */
  async carriesPostOf(tagId: number, authorId: number): Promise<boolean> {
    this.recordReads({ kind: 'list' });
    const statement = sql`SELECT 1 AS found FROM post_tags pt JOIN posts p ON p.id = pt.post_id WHERE pt.tag_id = ${tagId} AND p.author_id = ${authorId} LIMIT 1`;
    return (await this.sql.rows(statement)).length > 0;
  }

  /** The ids of the tags with these slugs (those that exist), in one statement. */
  async idsBySlugs(slugs: readonly string[], executor: Executor): Promise<Map<string, number>> {
    this.recordReads({ kind: 'list' });
    if (slugs.length === 0) return new Map();
    const rows = await this.sql.rows<{ id: number | string; slug: string }>(sql`SELECT id, slug FROM tags WHERE slug IN (${sql.in(slugs)})`, executor);
    return new Map(rows.map((row) => [row.slug, Number(row.id)]));
  }

  /**
   * The id of the tag with this slug and, when it is made now (named `name`), the new tag: a tag
   * another writer makes meanwhile is taken as it is (ON CONFLICT waits for that writer's commit).
   */
  async ensure(name: string, slug: string, announced: boolean, executor: Executor): Promise<{ id: number; created: Tag | null }> {
    this.recordReads({ kind: 'list' });
    const now = this.sql.timestamp(new Date());
    // TRUE and FALSE are literals in both dialects (better-sqlite3 binds no booleans).
    const insert = sql`INSERT INTO tags (name, slug, created_at, updated_at, version, announced) VALUES (${name}, ${slug}, ${now}, ${now}, 1, ${announced ? TRUE : FALSE}) ON CONFLICT (slug) DO NOTHING RETURNING ${this.returning}`;
    const [row] = await this.sql.rows<Record<string, unknown>>(insert, executor);
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
    const statement = sql`UPDATE tags SET announced = TRUE WHERE announced = FALSE AND id IN (SELECT tag_id FROM post_tags WHERE post_id = ${postId}) RETURNING ${this.returning}, post_count`;
    const rows = await this.sql.written<Record<string, unknown>>(statement, executor);
    return rows.map((row) => Object.assign(this.table.fromRow(row), { postCount: Number(row.post_count), isPublic: true }));
  }

  /** The slugs of one post's tags, in slug order. */
  async slugsOfPost(postId: number, executor: Executor): Promise<[slug: string, id: number][]> {
    this.recordReads({ kind: 'of', column: 'postId', ids: [postId] });
    const statement = sql`SELECT g.slug, g.id FROM post_tags pt JOIN tags g ON g.id = pt.tag_id WHERE pt.post_id = ${postId} ORDER BY g.slug`;
    return (await this.sql.rows<{ slug: string; id: number | string }>(statement, executor)).map((row) => [row.slug, Number(row.id)]);
  }

  /** Makes these the post's tags (ids of existing tags); with `replace`, what it had beyond them goes. */
  async setPostTags(postId: number, tagIds: readonly number[], executor: Executor, options: { replace: boolean }): Promise<void> {
    if (options.replace) await this.sql.written(sql`DELETE FROM post_tags WHERE post_id = ${postId}`, executor);
    if (tagIds.length === 0) return;
    // In id order: each link's trigger updates its tag's count, and writers that lock tags in one
    // order cannot deadlock on them.
    const ordered = [...tagIds].sort((a, b) => a - b);
    const rows = sql.join(ordered.map((tagId) => sql`(${postId}, ${tagId})`));
    await this.sql.written(sql`INSERT INTO post_tags (post_id, tag_id) VALUES ${rows}`, executor);
  }

  /** For batching (Post.tags): the tags of each of these posts, by slug, in one statement. */
  async tagsOfPosts(postIds: readonly number[]): Promise<Map<number, Tag[]>> {
    this.recordReads({ kind: 'of', column: 'postId', ids: postIds });
    const byPost = new Map<number, Tag[]>(postIds.map((id) => [id, []]));
    if (postIds.length === 0) return byPost;
    const statement = sql`SELECT pt.post_id AS tagged_post_id, ${this.select} FROM post_tags pt JOIN ${this.from} ON t.id = pt.tag_id WHERE pt.post_id IN (${sql.in(postIds)}) ORDER BY t.slug`;
    for (const row of await this.sql.rows<Record<string, unknown>>(statement)) byPost.get(Number(row.tagged_post_id))?.push(this.fromRow(row));
    // In code-point order, as the posts' slug arrays (a collation may weigh `-` differently).
    for (const tags of byPost.values()) tags.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
    return byPost;
  }


}
