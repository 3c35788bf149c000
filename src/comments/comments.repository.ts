import { Injectable } from '@nestjs/common';
import type { CommentStatus, PostScope } from '../auth/read-policy.js';
import { type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import type { EntityTable } from '../common/persistence/entity-table.js';
import { ResourceRepository } from '../common/persistence/resource-repository.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import type { Post } from '../posts/post.entity.js';
import { Comment } from './comment.entity.js';

/** A boolean as either driver returns it (PostgreSQL: true/false; SQLite: 1/0). */
const truthy = (value: unknown) => value === true || value === 1 || value === '1' || value === 't';

@Injectable()
export class CommentsRepository extends ResourceRepository<Comment> {
  constructor(sql: Sql) {
    super(sql, Comment);
  }

  // --- Moderation (CommentModerationService) -----------------------------------------------------

  /**
   * A writer's standing, in one statement: whether they are blocked from commenting and (with
   * `withApproved`, for COMMENTS_MODERATION=first) whether any comment of theirs is approved.
   * A user without a row is neither (the insert then fails on its foreign key).
   */
  async writerStanding(authorId: number, withApproved: boolean): Promise<{ blocked: boolean; approved: boolean }> {
    const statement = this.cached(`writerStanding:${withApproved}`, () =>
      withApproved
        ? "SELECT u.comments_blocked AS blocked, EXISTS (SELECT 1 FROM comments c WHERE c.author_id = $1 AND c.status = 'approved') AS approved FROM users u WHERE u.id = $2"
        : 'SELECT u.comments_blocked AS blocked FROM users u WHERE u.id = $1',
    );
    const [row] = await this.sql.rows<{ blocked: unknown; approved?: unknown }>(statement, withApproved ? [authorId, authorId] : [authorId]);
    return { blocked: truthy(row?.blocked), approved: truthy(row?.approved) };
  }

  /**
   * The moderation queue: the comments of one status, oldest first, keyset-paged on the id, on
   * the posts of `scope` only (joined in). A held status is written `status <> 'approved' AND
   * status = $1` so that both databases read the partial index idx_comments_held.
   */
  async statusPage(status: CommentStatus, scope: PostScope, request: PageRequest): Promise<Page<Comment>> {
    const params: unknown[] = [];
    const where = this.statusWhere(status, scope, params);
    if (request.after !== undefined) where.push(`t.id > $${params.push(request.after)}`);
    params.push(request.limit + 1);
    const statement = this.cached(
      `statusPage:${status === 'approved'}:${scope.kind}:${request.after !== undefined}`,
      () => `SELECT ${this.select} FROM ${this.from}${scope.kind === 'all' ? '' : ' JOIN posts p ON p.id = t.post_id'} WHERE ${where.join(' AND ')} ORDER BY t.id ASC LIMIT $${params.length}`,
    );
    const page = toPage(this.map(await this.sql.rows(statement, params)), request.limit);
    const { after } = request;
    if (after !== undefined) page.hasPrevious = () => this.anyStatusUpTo(status, scope, after);
    return page;
  }

  /** Whether the queue holds a comment up to the id `after` (a page's hasPreviousPage). */
  private async anyStatusUpTo(status: CommentStatus, scope: PostScope, after: number): Promise<boolean> {
    const params: unknown[] = [];
    const where = this.statusWhere(status, scope, params);
    where.push(`t.id <= $${params.push(after)}`);
    const statement = this.cached(
      `statusUpTo:${status === 'approved'}:${scope.kind}`,
      () => `SELECT 1 AS found FROM ${this.from}${scope.kind === 'all' ? '' : ' JOIN posts p ON p.id = t.post_id'} WHERE ${where.join(' AND ')} LIMIT 1`,
    );
    return (await this.sql.rows(statement, params)).length > 0;
  }

  /** How many comments the queue of `status` holds for `scope` (statusPage's filter). */
  async countStatus(status: CommentStatus, scope: PostScope): Promise<number> {
    const params: unknown[] = [];
    const where = this.statusWhere(status, scope, params);
    const statement = this.cached(
      `countStatus:${status === 'approved'}:${scope.kind}`,
      () => `SELECT COUNT(*) AS count FROM ${this.from}${scope.kind === 'all' ? '' : ' JOIN posts p ON p.id = t.post_id'} WHERE ${where.join(' AND ')}`,
    );
    const [row] = await this.sql.rows<{ count: number | string }>(statement, params);
    return Number(row.count);
  }

  private statusWhere(status: CommentStatus, scope: PostScope, params: unknown[]): string[] {
    const where = status === 'approved' ? ["t.status = 'approved'"] : [`t.status <> 'approved' AND t.status = $${params.push(status)}`];
    if (scope.kind === 'public') where.push("p.status = 'published'");
    if (scope.kind === 'public-or-own') where.push(`(p.status = 'published' OR p.author_id = $${params.push(scope.ownerId)})`);
    return where;
  }

  /**
   * The comments with these ids, each with its post (`comment.post`), locked until the
   * transaction ends (PostgreSQL), in id order so that two writers never wait on each other in a cycle.
   */
  async findManyForUpdate(ids: readonly number[], posts: EntityTable<Post>, executor: Executor): Promise<Comment[]> {
    if (ids.length === 0) return [];
    const statement = this.cached(
      `manyForUpdate:${ids.length}`,
      () =>
        `SELECT ${this.select}, ${posts.selectList('j', 'j_')} FROM ${this.from} JOIN ${posts.name} j ON j.id = t.post_id ` +
        `WHERE t.id IN (${this.sql.placeholders(ids.length)}) ORDER BY t.id${this.sql.dialect.lockRows({ of: 't' })}`,
    );
    const rows = await this.sql.rows<Record<string, unknown>>(statement, ids, executor);
    return rows.map((row) => Object.assign(this.table.fromRow(row), { post: posts.fromRow(row, 'j_') }));
  }

  /** Sets the status of these comments (bumping their versions) in one statement; returns them as they now are. */
  async setStatus(ids: readonly number[], status: CommentStatus, executor: Executor): Promise<Comment[]> {
    if (ids.length === 0) return [];
    const statement = this.cached(
      `setStatus:${ids.length}`,
      () =>
        `UPDATE ${this.table.name} SET status = $1, updated_at = $2, version = version + 1 ` +
        `WHERE id IN (${this.sql.placeholders(ids.length, 3)}) RETURNING ${this.table.returningList}`,
    );
    const rows = await this.sql.written<Record<string, unknown>>(statement, [status, this.sql.timestamp(new Date()), ...ids], executor);
    return this.map(rows);
  }
}
