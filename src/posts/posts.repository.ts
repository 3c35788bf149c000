import { Injectable } from '@nestjs/common';
import type { CommentStatus, PostStatus, PostVisibility } from '../auth/read-policy.js';
import { encodeTimeCursor, type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import { type Join, type ReadScope, ResourceRepository } from '../common/persistence/resource-repository.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import type { TextQuery } from '../common/persistence/text-search.js';
import type { User } from '../users/user.entity.js';
import { UsersRepository } from '../users/users.repository.js';
import { AppConfig } from '../config/app-config.js';
import { Post } from './post.entity.js';
import type { PostKeyset, PostOrderPlan } from './post-order.js';
import { POSTS_TAG, postTag, recordReadIds, recordReadTags } from '../common/cache/read-tags.js';

/**
 * What a filtered list shows (GET /posts with tag, q, publishedAfter/Before or sort): the read
 * policy's scope (the public posts, or one state of one owner's or everyone's), and the filters.
 */
export interface PostFilter {
  /** A non-public state; none: the public posts. */
  status?: PostStatus;
  /** Only this author's posts. */
  authorId?: number;
  /** Tag slugs: posts that have every one. */
  tags: readonly string[];
  search: TextQuery | null;
  /** Published at or after (inclusive). */
  publishedAfter?: Date;
  /** Published before (exclusive). */
  publishedBefore?: Date;
}

/** A post of a filtered list, with its rank and snippet when the list is a search. */
export interface PostHit {
  post: Post;
  rank: number | null;
  snippet: string | null;
}

/** The cursor of a public post: its publication time, then its id (the public list's order). */
export const publicCursor = (post: Post) => encodeTimeCursor(post.publishedAt ?? post.createdAt, post.id);

/**
 * The posts' SQL. Lists and counts read one side of the read policy each: the public posts
 * (`status = 'published'` written as a literal, so PostgreSQL uses the partial indexes
 * idx_posts_public and idx_posts_public_author) in (published_at, id) order, or the posts of one
 * non-public state (by author_id for an owner, else the primary key), of one owner unless the reader reads all.
 */
@Injectable()
export class PostsRepository extends ResourceRepository<Post> {
  /** A post's author, joined into its row (`post.author`). */
  readonly withAuthor: Join<Post, User>;

  constructor(
    sql: Sql,
    users: UsersRepository,
    private readonly config: AppConfig,
  ) {
    super(sql, Post, [
      {
        // Every post read carries its tags' slugs and ids in the same statement (no round trip of its own), as `slug id`.
        property: 'tags',
        name: 'tags',
        expression: (alias) => sql.dialect.arrayOf(`g.slug || ' ' || g.id`, `FROM post_tags pt JOIN tags g ON g.id = pt.tag_id WHERE pt.post_id = ${alias}.id`),
        read: (value, item) => {
          // Sorted here, in code-point order (an ORDER BY would follow PostgreSQL's collation, which may weigh `-` differently).
          const pairs = sql.dialect.readArray(value).map((pair) => pair.split(' ')).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          (item as Post).tagIds = pairs.map(([, id]) => Number(id));
          return pairs.map(([slug]) => slug);
        },
      },
    ]);
    this.withAuthor = { property: 'author', table: users.table, foreignKey: 'authorId' };
  }

  /** A post read by id is tagged with it; every other read of posts (a list, a search, a count) with `posts`. */
  protected override recordReads(read: ReadScope): void {
    if (read.kind === 'ids') recordReadIds(postTag, read.ids);
    else recordReadTags(POSTS_TAG);
  }

  /**
   * What the read policy looks at of a post (its status and author), for a door that shows
   * something else of it (its comments): neither its text nor its tags are read.
   */
  async visibilityOf(id: number): Promise<PostVisibility | null> {
    this.recordReads({ kind: 'ids', ids: [id] });
    const statement = this.cached('visibility', () => 'SELECT status, author_id FROM posts WHERE id = $1');
    const [row] = await this.sql.rows<{ status: PostStatus; author_id: number }>(statement, [id]);
    return row ? { status: row.status, authorId: row.author_id } : null;
  }

  /** Public posts (of one author, with `authorId`), newest publication first, keyset-paged on (published_at, id). */
  async publicPage(request: PageRequest, authorId?: number): Promise<Page<Post>> {
    this.recordReads({ kind: 'list' });
    const params: unknown[] = [];
    const where = ["t.status = 'published'"];
    if (authorId !== undefined) where.push(`t.author_id = $${params.push(authorId)}`);
    const { after, afterTime } = request;
    if (after !== undefined) where.push(`(t.published_at, t.id) < ${this.keyOf(params, after, afterTime)}`);
    params.push(request.limit + 1);
    const statement = this.cached(
      `publicPage:${authorId !== undefined}:${after !== undefined}:${afterTime !== undefined}`,
      () => `SELECT ${this.select} FROM ${this.from} WHERE ${where.join(' AND ')} ORDER BY t.published_at DESC, t.id DESC LIMIT $${params.length}`,
    );
    const page = toPage(this.map(await this.sql.rows(statement, params)), request.limit, publicCursor);
    if (after !== undefined) page.hasPrevious = () => this.anyPublicFrom(after, afterTime, authorId);
    return page;
  }

  /**
   * The (published_at, id) of a cursor as SQL: its own time, or for an id-only cursor (issued
   * before the list paged by publication) the publication time of that post, read in the same statement.
   */
  private keyOf(params: unknown[], after: number, afterTime: Date | undefined): string {
    if (afterTime !== undefined) return `($${params.push(this.sql.timestamp(afterTime))}, $${params.push(after)})`;
    // Each parameter once: SQLite numbers them by position.
    return `((SELECT k.published_at FROM posts k WHERE k.id = $${params.push(after)}), $${params.push(after)})`;
  }

  private async anyPublicFrom(after: number, afterTime: Date | undefined, authorId?: number): Promise<boolean> {
    this.recordReads({ kind: 'list' });
    const params: unknown[] = [];
    const where = ["t.status = 'published'"];
    if (authorId !== undefined) where.push(`t.author_id = $${params.push(authorId)}`);
    where.push(`(t.published_at, t.id) >= ${this.keyOf(params, after, afterTime)}`);
    const statement = this.cached(
      `publicFrom:${authorId !== undefined}:${afterTime !== undefined}`,
      () => `SELECT 1 AS found FROM posts t WHERE ${where.join(' AND ')} LIMIT 1`,
    );
    return (await this.sql.rows(statement, params)).length > 0;
  }

  /** The posts of one non-public state (of one owner, with `ownerId`), newest first, keyset-paged on the id. */
  async statusPage(status: PostStatus, request: PageRequest, ownerId?: number): Promise<Page<Post>> {
    this.recordReads({ kind: 'list' });
    const params: unknown[] = [status];
    const where = ['t.status = $1'];
    if (ownerId !== undefined) where.push(`t.author_id = $${params.push(ownerId)}`);
    if (request.after !== undefined) where.push(`t.id < $${params.push(request.after)}`);
    params.push(request.limit + 1);
    const statement = this.cached(
      `statusPage:${ownerId !== undefined}:${request.after !== undefined}`,
      () => `SELECT ${this.select} FROM ${this.from} WHERE ${where.join(' AND ')} ORDER BY t.id DESC LIMIT $${params.length}`,
    );
    return toPage(this.map(await this.sql.rows(statement, params)), request.limit);
  }

  /**
   * A page of a filtered or sorted list: `limit` posts after `after` in the plan's order (its key,
   * then the id), keyset-paged so that a deep page reads what the first does. Public posts are
   * `status = 'published'` as a literal (the partial indexes: by publication, title, last change;
   * a search reads the full-text index first).
   */
  async findPage(filter: PostFilter, plan: PostOrderPlan, limit: number, after?: PostKeyset): Promise<PostHit[]> {
    this.recordReads({ kind: 'list' });
    const tagIds = await this.tagIdsOf(filter.tags);
    if (tagIds === null) return [];
    const params: unknown[] = [];
    if (filter.search) params.push(this.sql.dialect.searchText(filter.search));
    const where = this.filterConditions(filter, tagIds, params);
    const direction = plan.descending ? 'DESC' : 'ASC';
    if (after !== undefined) {
      const comparison = plan.descending ? '<' : '>';
      if (plan.column === null) where.push(`t.id ${comparison} $${params.push(after.id)}`);
      else {
        const key = after.key instanceof Date ? this.sql.timestamp(after.key) : after.key;
        where.push(`(${plan.column}, t.id) ${comparison} ($${params.push(key)}, $${params.push(after.id)})`);
      }
    }
    const order = plan.column === null ? `t.id ${direction}` : `${plan.column} ${direction}, t.id ${direction}`;
    params.push(limit);
    const shape = [
      filter.search !== null,
      filter.status !== undefined,
      filter.authorId !== undefined,
      filter.tags.length,
      filter.publishedAfter !== undefined,
      filter.publishedBefore !== undefined,
      plan.sort,
      plan.key,
      after !== undefined,
    ].join(':');
    const statement = this.cached(`findPage:${shape}`, () =>
      filter.search
        ? this.sql.dialect.searchStatement({ select: this.select, where, order, limit: `$${params.length}` })
        : `SELECT ${this.select} FROM ${this.from} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT $${params.length}`,
    );
    const rows = filter.search ? await this.searched(statement, params) : await this.sql.rows<Record<string, unknown>>(statement, params);
    return rows.map((row) => ({
      post: this.fromRow(row),
      rank: filter.search ? Number(row.search_rank) : null,
      snippet: filter.search ? String(row.search_snippet ?? '') : null,
    }));
  }

  /** How many posts a filtered list holds. */
  async countMatching(filter: PostFilter): Promise<number> {
    this.recordReads({ kind: 'list' });
    const tagIds = await this.tagIdsOf(filter.tags);
    if (tagIds === null) return 0;
    const params: unknown[] = [];
    const where = filter.search ? [this.sql.dialect.searchCondition(`$${params.push(this.sql.dialect.searchText(filter.search))}`)] : [];
    where.push(...this.filterConditions(filter, tagIds, params));
    const shape = [filter.search !== null, filter.status !== undefined, filter.authorId !== undefined, filter.tags.length, filter.publishedAfter !== undefined, filter.publishedBefore !== undefined].join(':');
    const statement = this.cached(`countMatching:${shape}`, () => `SELECT COUNT(*) AS count FROM posts t WHERE ${where.join(' AND ')}`);
    const [row] = filter.search ? await this.searched<{ count: number | string }>(statement, params) : await this.sql.rows<{ count: number | string }>(statement, params);
    return Number(row.count);
  }

  /** A search's statement, stopped past SEARCH_TIMEOUT_MS where the database can stop it (PostgreSQL). */
  private searched<T = Record<string, unknown>>(statement: string, params: unknown[]): Promise<T[]> {
    return this.sql.boundedRows<T>(statement, params, this.config.searchTimeoutMs);
  }

  /**
   * The ids of the tags a filter names, or null when one of them does not exist (no post can
   * have it). Read first so that the list's statement names each tag by id: the planner then
   * knows from its statistics how common each one is (see the tags migration), and
   * walks the posts' order checking each post's tags for a common tag, or reads a rare tag's
   * posts and sorts them, rather than guess for a slug it cannot see through.
   */
  private async tagIdsOf(slugs: readonly string[]): Promise<number[] | null> {
    this.recordReads({ kind: 'list' });
    if (slugs.length === 0) return [];
    const statement = this.cached(`tagIdsOf:${slugs.length}`, () => `SELECT id FROM tags WHERE slug IN (${this.sql.placeholders(slugs.length)})`);
    const rows = await this.sql.rows<{ id: number | string }>(statement, slugs);
    return rows.length === slugs.length ? rows.map((row) => Number(row.id)) : null;
  }

  /** The conditions of a filter over `t` (its tags by id), their parameters pushed onto `params` in order. */
  private filterConditions(filter: PostFilter, tagIds: readonly number[], params: unknown[]): string[] {
    const where = [filter.status === undefined ? "t.status = 'published'" : `t.status = $${params.push(filter.status)}`];
    if (filter.authorId !== undefined) where.push(`t.author_id = $${params.push(filter.authorId)}`);
    // Every one of the tags: one probe of post_tags' primary key per tag and post.
    for (const tagId of tagIds) where.push(`EXISTS (SELECT 1 FROM post_tags pt WHERE pt.post_id = t.id AND pt.tag_id = $${params.push(tagId)})`);
    if (filter.publishedAfter !== undefined) where.push(`t.published_at >= $${params.push(this.sql.timestamp(filter.publishedAfter))}`);
    if (filter.publishedBefore !== undefined) where.push(`t.published_at < $${params.push(this.sql.timestamp(filter.publishedBefore))}`);
    return where;
  }

  /** How many public posts (of one author), or how many of one non-public state (of one owner). */
  async countVisible(filter: { status?: PostStatus; authorId?: number }): Promise<number> {
    this.recordReads({ kind: 'list' });
    const params: unknown[] = [];
    const where = [filter.status === undefined ? "status = 'published'" : `status = $${params.push(filter.status)}`];
    if (filter.authorId !== undefined) where.push(`author_id = $${params.push(filter.authorId)}`);
    const statement = this.cached(
      `countVisible:${filter.status !== undefined}:${filter.authorId !== undefined}`,
      () => `SELECT COUNT(*) AS count FROM posts WHERE ${where.join(' AND ')}`,
    );
    const [row] = await this.sql.rows<{ count: number | string }>(statement, params);
    return Number(row.count);
  }

  /** For batching (User.posts): the first public posts of each of these authors, newest publication first, in one statement. */
  async publicPagesFor(authorIds: readonly number[], limit: number): Promise<Map<number, Post[]>> {
    this.recordReads({ kind: 'list' });
    const byAuthor = new Map<number, Post[]>(authorIds.map((id) => [id, []]));
    if (authorIds.length === 0) return byAuthor;
    const statement = this.cached(
      `publicPagesFor:${authorIds.length}`,
      () =>
        `SELECT ${this.select} FROM ${this.from} WHERE t.id IN (SELECT page.id FROM ` +
        `(SELECT ranked.id AS id, ROW_NUMBER() OVER (PARTITION BY ranked.author_id ORDER BY ranked.published_at DESC, ranked.id DESC) AS rn ` +
        `FROM posts ranked WHERE ranked.status = 'published' AND ranked.author_id IN (${this.sql.placeholders(authorIds.length)})) page ` +
        `WHERE page.rn <= $${authorIds.length + 1}) ORDER BY t.published_at DESC, t.id DESC`,
    );
    for (const post of this.map(await this.sql.rows(statement, [...authorIds, limit]))) byAuthor.get(post.authorId)?.push(post);
    return byAuthor;
  }

  /** Whether any scheduled post is due at `now`: one read of idx_posts_scheduled, outside any transaction. */
  async anyDue(now: Date): Promise<boolean> {
    this.recordReads({ kind: 'list' });
    const statement = this.cached('anyDue', () => "SELECT 1 AS found FROM posts WHERE status = 'scheduled' AND publish_at <= $1 LIMIT 1");
    return (await this.sql.rows(statement, [this.sql.timestamp(now)])).length > 0;
  }

  /**
   * The scheduled posts due at `now`, oldest schedule first, locked for the transaction on
   * PostgreSQL (passing over those another instance is publishing): each is published once.
   */
  async lockDue(now: Date, limit: number, executor: Executor): Promise<Post[]> {
    this.recordReads({ kind: 'list' });
    const statement = this.cached(
      'lockDue',
      () =>
        `SELECT ${this.columnList} FROM ${this.from} WHERE t.status = 'scheduled' AND t.publish_at <= $1 ` +
        `ORDER BY t.publish_at, t.id LIMIT $2${this.sql.dialect.lockRows({ skipLocked: true })}`,
    );
    return this.map(await this.sql.rows(statement, [this.sql.timestamp(now), limit], executor));
  }

  /** The ids of posts trashed before `before`, oldest first. */
  async trashedBefore(before: Date, limit: number): Promise<number[]> {
    this.recordReads({ kind: 'list' });
    const statement = this.cached(
      'trashedBefore',
      () => "SELECT id FROM posts WHERE status = 'trashed' AND trashed_at < $1 ORDER BY trashed_at, id LIMIT $2",
    );
    const rows = await this.sql.rows<{ id: number | string }>(statement, [this.sql.timestamp(before), limit]);
    return rows.map((row) => Number(row.id));
  }

  /** The row as it is, locked until the transaction ends (PostgreSQL), for a write that reads it first. */
  async findForUpdate(id: number, executor: Executor): Promise<Post | null> {
    this.recordReads({ kind: 'ids', ids: [id] });
    const statement = this.cached('forUpdate', () => `SELECT ${this.columnList} FROM ${this.from} WHERE t.id = $1${this.sql.dialect.lockRows()}`);
    const [row] = await this.sql.rows<Record<string, unknown>>(statement, [id], executor);
    return row ? this.table.fromRow(row) : null;
  }

  /** The comments that deleting this post takes with it (the foreign key cascades), with their status: the audience of their deletion events. */
  async cascadedComments(postId: number, executor: Executor): Promise<{ id: number; postId: number; authorId: number; status: CommentStatus }[]> {
    this.recordReads({ kind: 'ids', ids: [postId] });
    const statement = this.cached('cascadeComments', () => 'SELECT id, author_id, status FROM comments WHERE post_id = $1');
    const rows = await this.sql.rows<{ id: number; author_id: number; status: CommentStatus }>(statement, [postId], executor);
    return rows.map((row) => ({ id: row.id, postId, authorId: row.author_id, status: row.status }));
  }
}
