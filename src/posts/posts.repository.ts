import { Injectable } from '@nestjs/common';
import type { CommentStatus, PostStatus } from '../auth/read-policy.js';
import { encodeTimeCursor, type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import { type Join, ResourceRepository } from '../common/persistence/resource-repository.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import type { User } from '../users/user.entity.js';
import { UsersRepository } from '../users/users.repository.js';
import { Post } from './post.entity.js';

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

  constructor(sql: Sql, users: UsersRepository) {
    super(sql, Post, [
      {
        // Every post read carries its tag slugs in the same statement (no round trip of its own).
        property: 'tags',
        name: 'tags',
        expression: (alias) => sql.dialect.arrayOf('g.slug', `FROM post_tags pt JOIN tags g ON g.id = pt.tag_id WHERE pt.post_id = ${alias}.id`),
        // Sorted here, in code-point order (an ORDER BY would follow PostgreSQL's collation, which may weigh `-` differently).
        read: (value) => sql.dialect.readArray(value).sort(),
      },
    ]);
    this.withAuthor = { property: 'author', table: users.table, foreignKey: 'authorId' };
  }

  /** Public posts (of one author, with `authorId`), newest publication first, keyset-paged on (published_at, id). */
  async publicPage(request: PageRequest, authorId?: number): Promise<Page<Post>> {
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

  /** How many public posts (of one author), or how many of one non-public state (of one owner). */
  async countVisible(filter: { status?: PostStatus; authorId?: number }): Promise<number> {
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
    const statement = this.cached('anyDue', () => "SELECT 1 AS found FROM posts WHERE status = 'scheduled' AND publish_at <= $1 LIMIT 1");
    return (await this.sql.rows(statement, [this.sql.timestamp(now)])).length > 0;
  }

  /**
   * The scheduled posts due at `now`, oldest schedule first, locked for the transaction on
   * PostgreSQL (passing over those another instance is publishing): each is published once.
   */
  async lockDue(now: Date, limit: number, executor: Executor): Promise<Post[]> {
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
    const statement = this.cached(
      'trashedBefore',
      () => "SELECT id FROM posts WHERE status = 'trashed' AND trashed_at < $1 ORDER BY trashed_at, id LIMIT $2",
    );
    const rows = await this.sql.rows<{ id: number | string }>(statement, [this.sql.timestamp(before), limit]);
    return rows.map((row) => Number(row.id));
  }

  /** The row as it is, locked until the transaction ends (PostgreSQL), for a write that reads it first. */
  async findForUpdate(id: number, executor: Executor): Promise<Post | null> {
    const statement = this.cached('forUpdate', () => `SELECT ${this.columnList} FROM ${this.from} WHERE t.id = $1${this.sql.dialect.lockRows()}`);
    const [row] = await this.sql.rows<Record<string, unknown>>(statement, [id], executor);
    return row ? this.table.fromRow(row) : null;
  }

  /** The comments that deleting this post takes with it (the foreign key cascades), with their status: the audience of their deletion events. */
  async cascadedComments(postId: number, executor: Executor): Promise<{ id: number; postId: number; authorId: number; status: CommentStatus }[]> {
    const statement = this.cached('cascadeComments', () => 'SELECT id, author_id, status FROM comments WHERE post_id = $1');
    const rows = await this.sql.rows<{ id: number; author_id: number; status: CommentStatus }>(statement, [postId], executor);
    return rows.map((row) => ({ id: row.id, postId, authorId: row.author_id, status: row.status }));
  }
}
