import { Injectable } from '@nestjs/common';
import type { CommentScope, CommentStatus } from '../auth/read-policy.js';
import { type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import { type Join, ResourceRepository } from '../common/persistence/resource-repository.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { Comment } from './comment.entity.js';

/** What a reply needs of its parent: where it is, who sees it, and how deep it is. */
export interface ThreadParent {
  id: number;
  postId: number;
  authorId: number;
  status: CommentStatus;
  depth: number;
}

/** A comment a deletion takes with it (the thread under it, by the parent_id cascade), for its event. */
export interface ThreadComment {
  id: number;
  postId: number;
  authorId: number;
  status: CommentStatus;
}

/** Which comments a list or count reads: those of one post, or the replies of one comment. */
export type CommentParent = 'postId' | 'parentId';

/**
 * The comments' SQL. Lists and counts take the reader's CommentScope (ReadPolicy.commentScope)
 * as a condition of the statement: `status = 'approved'` written as a literal, the approved
 * ones and the reader's own pending ones, or every comment; idx_comments_post_status
 * (post_id, status, id) and idx_comments_parent_id (parent_id, id) serve them. The post itself
 * is checked by the service before (a reader reaches a post's comments only through it).
 */
@Injectable()
export class CommentsRepository extends ResourceRepository<Comment> {
  constructor(sql: Sql) {
    super(sql, Comment);
  }

  /** One page of the comments of a post (or the replies of a comment) the scope shows, oldest first, keyset-paged on the id. */
  async visiblePage(parent: CommentParent, parentId: number, scope: CommentScope, request: PageRequest): Promise<Page<Comment>> {
    const params: unknown[] = [parentId];
    const where = [`t.${this.table.column(parent).name} = $1`];
    const visible = scopeCondition(scope, params, 't');
    if (visible) where.push(visible);
    if (request.after !== undefined) where.push(`t.id > $${params.push(request.after)}`);
    params.push(request.limit + 1);
    const statement = this.cached(
      `visiblePage:${parent}:${scope.kind}:${request.after !== undefined}`,
      () => `SELECT ${this.select} FROM ${this.from} WHERE ${where.join(' AND ')} ORDER BY t.id ASC LIMIT $${params.length}`,
    );
    return toPage(this.map(await this.sql.rows(statement, params)), request.limit);
  }

  /**
   * For batching: one page (oldest first, after `request.after`) of the comments the scope shows
   * of each of these posts (or replies of each of these comments), in one statement whatever
   * their number. With `join`, each comment's joined row (its author) comes in the same statement.
   */
  async visiblePagesFor<J extends object>(
    parent: CommentParent,
    parentIds: readonly number[],
    scope: CommentScope,
    request: PageRequest,
    join?: Join<Comment, J>,
  ): Promise<Map<number, Comment[]>> {
    const byParent = new Map<number, Comment[]>(parentIds.map((id) => [id, []]));
    if (parentIds.length === 0) return byParent;
    const column = this.table.column(parent).name;
    const params: unknown[] = [...parentIds];
    const single = parentIds.length === 1;
    const visible = scopeCondition(scope, params, single ? 't' : 'ranked');
    const afterId = request.after === undefined ? '' : ` AND ${single ? 't' : 'ranked'}.id > $${params.push(request.after)}`;
    params.push(request.limit);
    const joined = join ? `, ${join.table.selectList('j', 'j_')}` : '';
    const joinClause = join ? ` JOIN ${join.table.name} j ON j.id = t.${this.table.column(join.foreignKey).name}` : '';
    const key = `visiblePagesFor:${parent}:${parentIds.length}:${scope.kind}:${request.after !== undefined}:${join?.property ?? ''}`;
    const statement = this.cached(key, () => {
      const condition = visible ? ` AND ${visible}` : '';
      // One parent (a post page): a plain keyset page, which the (parent, …, id) index serves directly.
      if (single) {
        return `SELECT ${this.select}${joined} FROM ${this.from}${joinClause} WHERE t.${column} = $1${condition}${afterId} ORDER BY t.id ASC LIMIT $${params.length}`;
      }
      return (
        `SELECT ${this.select}${joined} FROM ${this.from}${joinClause} WHERE t.id IN (SELECT page.id FROM ` +
        `(SELECT ranked.id AS id, ROW_NUMBER() OVER (PARTITION BY ranked.${column} ORDER BY ranked.id ASC) AS rn ` +
        `FROM ${this.table.name} ranked WHERE ranked.${column} IN (${this.sql.placeholders(parentIds.length)})${condition}${afterId}) page ` +
        `WHERE page.rn <= $${params.length}) ORDER BY t.id ASC`
      );
    });
    for (const row of await this.sql.rows<Record<string, unknown>>(statement, params)) {
      const item = this.table.fromRow(row);
      if (join) (item as unknown as Record<string, unknown>)[join.property] = join.table.fromRow(row, 'j_');
      byParent.get(item[parent] as number)?.push(item);
    }
    return byParent;
  }

  /** For batching: how many comments the scope shows on each of these posts, in one statement. */
  async countVisibleFor(postIds: readonly number[], scope: CommentScope): Promise<Map<number, number>> {
    const counts = new Map<number, number>(postIds.map((id) => [id, 0]));
    if (postIds.length === 0) return counts;
    const params: unknown[] = [...postIds];
    const visible = scopeCondition(scope, params, 'c');
    const statement = this.cached(
      `countVisibleFor:${postIds.length}:${scope.kind}`,
      () =>
        `SELECT c.post_id AS parent, COUNT(*) AS count FROM comments c WHERE c.post_id IN (${this.sql.placeholders(postIds.length)})` +
        `${visible ? ` AND ${visible}` : ''} GROUP BY c.post_id`,
    );
    for (const row of await this.sql.rows<{ parent: number | string; count: number | string }>(statement, params)) {
      counts.set(Number(row.parent), Number(row.count));
    }
    return counts;
  }

  /** The comment a reply is written to, with its depth (a hidden column, read only here), in one statement. */
  async findParent(id: number, executor?: Executor): Promise<ThreadParent | null> {
    const statement = this.cached('parent', () => 'SELECT id, post_id, author_id, status, depth FROM comments WHERE id = $1');
    const [row] = await this.sql.rows<{ id: number | string; post_id: number | string; author_id: number | string; status: CommentStatus; depth: number | string }>(
      statement,
      [id],
      executor,
    );
    return row ? { id: Number(row.id), postId: Number(row.post_id), authorId: Number(row.author_id), status: row.status, depth: Number(row.depth) } : null;
  }

  /**
   * The comment and every reply under it, at any depth (a recursive CTE on parent_id): what
   * deleting it takes with it. Locked for the transaction on PostgreSQL.
   */
  async thread(id: number, executor: Executor): Promise<ThreadComment[]> {
    const statement = this.cached(
      'thread',
      () =>
        'WITH RECURSIVE thread(id) AS (SELECT id FROM comments WHERE id = $1 UNION ALL SELECT c.id FROM comments c JOIN thread ON c.parent_id = thread.id) ' +
        `SELECT t.id, t.post_id, t.author_id, t.status FROM comments t WHERE t.id IN (SELECT id FROM thread) ORDER BY t.id${this.sql.dialect.lockRows()}`,
    );
    const rows = await this.sql.rows<{ id: number | string; post_id: number | string; author_id: number | string; status: CommentStatus }>(statement, [id], executor);
    return rows.map((row) => ({ id: Number(row.id), postId: Number(row.post_id), authorId: Number(row.author_id), status: row.status }));
  }
}

/** ReadPolicy.commentScope as a condition on the comments under `alias` (null: every comment); its parameter, if any, pushed to `params`. */
function scopeCondition(scope: CommentScope, params: unknown[], alias: string): string | null {
  switch (scope.kind) {
    case 'approved':
      return `${alias}.status = 'approved'`;
    case 'approved-or-own':
      return `(${alias}.status = 'approved' OR (${alias}.status = 'pending' AND ${alias}.author_id = $${params.push(scope.authorId)}))`;
    case 'all':
      return null;
  }
}
