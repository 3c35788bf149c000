import { Injectable } from '@nestjs/common';
import type { CommentScope, CommentStatus, PostScope } from '../auth/read-policy.js';
import { type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import type { EntityTable } from '../common/persistence/entity-table.js';
import { type Join, type ReadScope, ResourceRepository } from '../common/persistence/resource-repository.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import type { Post } from '../posts/post.entity.js';
import { Comment } from './comment.entity.js';
import { ANY_TAG, commentsTag, recordReadIds, recordReadTags } from '../common/cache/read-tags.js';

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
const ALIASES = { t: sql.raw('t'), ranked: sql.raw('ranked'), c: sql.raw('c') };
const JOIN_POSTS = sql.raw(' JOIN posts p ON p.id = t.post_id');

@Injectable()
export class CommentsRepository extends ResourceRepository<Comment> {
  private readonly lockClause: Fragment;
  private readonly lockOwnRows: Fragment;

  constructor(db: Sql) {
    super(db, Comment);
    this.lockClause = sql.raw(db.dialect.lockRows());
    this.lockOwnRows = sql.raw(db.dialect.lockRows({ of: 't' }));
  }

  /** A post's comments (threads, counts) are tagged with the post; anything else (a comment by id, replies) is `*`. */
  protected override recordReads(read: ReadScope): void {
    if (read.kind === 'of' && read.column === 'postId') recordReadIds(commentsTag, read.ids);
    else recordReadTags(ANY_TAG);
  }

  /** One page of the comments of a post (or the replies of a comment) the scope shows, oldest first, keyset-paged on the id. */
  async visiblePage(parent: CommentParent, parentId: number, scope: CommentScope, request: PageRequest): Promise<Page<Comment>> {
    this.recordReads({ kind: 'of', column: parent, ids: [parentId] });
    const where = [sql`t.${this.name(parent)} = ${parentId}`];
    const visible = scopeCondition(scope, 't');
    if (visible) where.push(visible);
    if (request.after !== undefined) where.push(sql`t.id > ${request.after}`);
    const statement = sql`SELECT ${this.select} FROM ${this.from}${sql.where(where)} ORDER BY t.id ASC LIMIT ${request.limit + 1}`;
    return toPage(this.map(await this.sql.rows(statement)), request.limit);
  }

  /**
   * For batching: one page (oldest first, after `request.after`) of the comments the scope shows
   * of each of these posts (or replies of each of these comments), in one statement whatever
   * their number. With `join`, each comment's joined row (its author) comes in the same statement.
   * With `columns`, only those columns of the comments are read (the id and the parent's column
   * always are); likewise `join.columns` for the joined row.
   */
  async visiblePagesFor<J extends object>(
    parent: CommentParent,
    parentIds: readonly number[],
    scope: CommentScope,
    request: PageRequest,
    join?: Join<Comment, J>,
    columns?: readonly (keyof Comment & string)[],
  ): Promise<Map<number, Comment[]>> {
    this.recordReads({ kind: 'of', column: parent, ids: parentIds });
    const byParent = new Map<number, Comment[]>(parentIds.map((id) => [id, []]));
    if (parentIds.length === 0) return byParent;
    const column = this.name(parent);
    const single = parentIds.length === 1;
    const alias = single ? 't' : 'ranked';
    const read = columns && [...new Set<keyof Comment & string>(['id', parent, ...columns])];
    const select = read ? sql.raw(this.table.selectList('t', '', read)) : this.select;
    const joined = join
      ? sql`, ${sql.raw(join.table.selectList('j', 'j_', join.columns))} FROM ${this.from} JOIN ${sql.raw(join.table.name)} j ON j.id = t.${this.name(join.foreignKey)}`
      : sql` FROM ${this.from}`;
    const visible = scopeCondition(scope, alias);
    const condition = visible ? sql` AND ${visible}` : sql.empty;
    const afterId = request.after === undefined ? sql.empty : sql` AND ${ALIASES[alias]}.id > ${request.after}`;
    // One parent (a post page): a plain keyset page, which the (parent, …, id) index serves directly.
    const statement = single
      ? sql`SELECT ${select}${joined} WHERE t.${column} = ${parentIds[0]}${condition}${afterId} ORDER BY t.id ASC LIMIT ${request.limit}`
      : sql`SELECT ${select}${joined} WHERE t.id IN (SELECT page.id FROM (SELECT ranked.id AS id, ROW_NUMBER() OVER (PARTITION BY ranked.${column} ORDER BY ranked.id ASC) AS rn FROM ${this.tableName} ranked WHERE ranked.${column} IN (${sql.in(parentIds)})${condition}${afterId}) page WHERE page.rn <= ${request.limit}) ORDER BY t.id ASC`;
    for (const row of await this.sql.rows<Record<string, unknown>>(statement)) {
      const item = this.table.fromRow(row, '', read);
      if (join) (item as unknown as Record<string, unknown>)[join.property] = join.table.fromRow(row, 'j_', join.columns);
      byParent.get(item[parent] as number)?.push(item);
    }
    return byParent;
  }

  /** For batching: how many comments the scope shows on each of these posts, in one statement. */
  async countVisibleFor(postIds: readonly number[], scope: CommentScope): Promise<Map<number, number>> {
    this.recordReads({ kind: 'of', column: 'postId', ids: postIds });
    const counts = new Map<number, number>(postIds.map((id) => [id, 0]));
    if (postIds.length === 0) return counts;
    const visible = scopeCondition(scope, 'c');
    const statement = sql`SELECT c.post_id AS parent, COUNT(*) AS count FROM comments c WHERE c.post_id IN (${sql.in(postIds)})${visible ? sql` AND ${visible}` : sql.empty} GROUP BY c.post_id`;
    for (const row of await this.sql.rows<{ parent: number | string; count: number | string }>(statement)) {
      counts.set(Number(row.parent), Number(row.count));
    }
    return counts;
  }

  /** The comment a reply is written to, with its depth (a hidden column, read only here), in one statement. */
  async findParent(id: number, executor?: Executor): Promise<ThreadParent | null> {
    this.recordReads({ kind: 'ids', ids: [id] });
    const [row] = await this.sql.rows<{ id: number | string; post_id: number | string; author_id: number | string; status: CommentStatus; depth: number | string }>(
      sql`SELECT id, post_id, author_id, status, depth FROM comments WHERE id = ${id}`,
      executor,
    );
    return row ? { id: Number(row.id), postId: Number(row.post_id), authorId: Number(row.author_id), status: row.status, depth: Number(row.depth) } : null;
  }

  /**
   * The comment and every reply under it, at any depth (a recursive CTE on parent_id): what
   * deleting it takes with it. Locked for the transaction on PostgreSQL.
   */
  async thread(id: number, executor: Executor): Promise<ThreadComment[]> {
    this.recordReads({ kind: 'ids', ids: [id] });
    const statement = sql`WITH RECURSIVE thread(id) AS (SELECT id FROM comments WHERE id = ${id} UNION ALL SELECT c.id FROM comments c JOIN thread ON c.parent_id = thread.id) SELECT t.id, t.post_id, t.author_id, t.status FROM comments t WHERE t.id IN (SELECT id FROM thread) ORDER BY t.id${this.lockClause}`;
    const rows = await this.sql.rows<{ id: number | string; post_id: number | string; author_id: number | string; status: CommentStatus }>(statement, executor);
    return rows.map((row) => ({ id: Number(row.id), postId: Number(row.post_id), authorId: Number(row.author_id), status: row.status }));
  }

  // --- Moderation (CommentModerationService) -----------------------------------------------------

  /**
   * A writer's standing, in one statement: whether they are blocked from commenting and (with
   * `withApproved`, for COMMENTS_MODERATION=first) whether any comment of theirs is approved.
   * A user without a row is neither (the insert then fails on its foreign key).
   */
  async writerStanding(authorId: number, withApproved: boolean, executor?: Executor): Promise<{ blocked: boolean; approved: boolean }> {
    this.recordReads({ kind: 'list' });
    const statement = withApproved
      ? sql`SELECT u.comments_blocked AS blocked, EXISTS (SELECT 1 FROM comments c WHERE c.author_id = ${authorId} AND c.status = 'approved') AS approved FROM users u WHERE u.id = ${authorId}`
      : sql`SELECT u.comments_blocked AS blocked FROM users u WHERE u.id = ${authorId}`;
    const [row] = await this.sql.rows<{ blocked: unknown; approved?: unknown }>(statement, executor);
    // PostgreSQL answers true/false, SQLite 1/0.
    return { blocked: Boolean(row?.blocked), approved: Boolean(row?.approved) };
  }

  /**
   * The moderation queue: the comments of one status, oldest first, keyset-paged on the id, on
   * the posts of `scope` only (joined in). A held status is written `status <> 'approved' AND
   * status = $1` so that both databases read the partial index idx_comments_held.
   */
  async statusPage(status: CommentStatus, scope: PostScope, request: PageRequest): Promise<Page<Comment>> {
    this.recordReads({ kind: 'list' });
    const where = this.statusWhere(status, scope);
    if (request.after !== undefined) where.push(sql`t.id > ${request.after}`);
    const statement = sql`SELECT ${this.select} FROM ${this.from}${joinPosts(scope)}${sql.where(where)} ORDER BY t.id ASC LIMIT ${request.limit + 1}`;
    const page = toPage(this.map(await this.sql.rows(statement)), request.limit);
    const { after } = request;
    if (after !== undefined) page.hasPrevious = () => this.anyStatusUpTo(status, scope, after);
    return page;
  }

  /** Whether the queue holds a comment up to the id `after` (a page's hasPreviousPage). */
  private async anyStatusUpTo(status: CommentStatus, scope: PostScope, after: number): Promise<boolean> {
    this.recordReads({ kind: 'list' });
    const where = this.statusWhere(status, scope);
    where.push(sql`t.id <= ${after}`);
    return (await this.sql.rows(sql`SELECT 1 AS found FROM ${this.from}${joinPosts(scope)}${sql.where(where)} LIMIT 1`)).length > 0;
  }

  /** How many comments the queue of `status` holds for `scope` (statusPage's filter). */
  async countStatus(status: CommentStatus, scope: PostScope): Promise<number> {
    this.recordReads({ kind: 'list' });
    const statement = sql`SELECT COUNT(*) AS count FROM ${this.from}${joinPosts(scope)}${sql.where(this.statusWhere(status, scope))}`;
    const [row] = await this.sql.rows<{ count: number | string }>(statement);
    return Number(row.count);
  }

  private statusWhere(status: CommentStatus, scope: PostScope): Fragment[] {
    const where = [status === 'approved' ? APPROVED : sql`t.status <> 'approved' AND t.status = ${status}`];
    if (scope.kind === 'public') where.push(POST_PUBLISHED);
    if (scope.kind === 'public-or-own') where.push(sql`(p.status = 'published' OR p.author_id = ${scope.ownerId})`);
    return where;
  }

  /**
   * The comments with these ids, each with its post (`comment.post`), locked until the
   * transaction ends (PostgreSQL), in id order so that two writers never wait on each other in a cycle.
   */
  async findManyForUpdate(ids: readonly number[], posts: EntityTable<Post>, executor: Executor): Promise<Comment[]> {
    this.recordReads({ kind: 'ids', ids });
    if (ids.length === 0) return [];
    const statement = sql`SELECT ${this.select}, ${sql.raw(posts.selectList('j', 'j_'))} FROM ${this.from} JOIN ${sql.raw(posts.name)} j ON j.id = t.post_id WHERE t.id IN (${sql.in(ids)}) ORDER BY t.id${this.lockOwnRows}`;
    const rows = await this.sql.rows<Record<string, unknown>>(statement, executor);
    return rows.map((row) => Object.assign(this.table.fromRow(row), { post: posts.fromRow(row, 'j_') }));
  }

  /** Sets the status of these comments (bumping their versions) in one statement; returns them as they now are. */
  async setStatus(ids: readonly number[], status: CommentStatus, executor: Executor): Promise<Comment[]> {
    if (ids.length === 0) return [];
    const statement = sql`UPDATE ${this.tableName} SET status = ${status}, updated_at = ${this.sql.timestamp(new Date())}, version = version + 1 WHERE id IN (${sql.in(ids)}) RETURNING ${this.returning}`;
    const rows = await this.sql.written<Record<string, unknown>>(statement, executor);
    return this.map(rows);
  }
}

const APPROVED = sql.raw("t.status = 'approved'");
const POST_PUBLISHED = sql.raw("p.status = 'published'");

/** The posts joined in, for a scope that looks at them. */
function joinPosts(scope: PostScope): Fragment {
  return scope.kind === 'all' ? sql.empty : JOIN_POSTS;
}

/** ReadPolicy.commentScope as a condition on the comments under `alias` (null: every comment). */
function scopeCondition(scope: CommentScope, alias: keyof typeof ALIASES): Fragment | null {
  const a = ALIASES[alias];
  switch (scope.kind) {
    case 'approved':
      return sql`${a}.status = 'approved'`;
    case 'approved-or-own':
      return sql`(${a}.status = 'approved' OR (${a}.status = 'pending' AND ${a}.author_id = ${scope.authorId}))`;
    case 'all':
      return null;
  }
}
