import { Injectable } from '@nestjs/common';
import { encodeCursor, type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import type { EntityTable } from '../common/persistence/entity-table.js';
import type { Companion } from '../common/persistence/resource-repository.js';
import { postTag, recordReadIds } from '../common/cache/read-tags.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import type { Post } from './post.entity.js';
import { PostRevision } from './post-revision.entity.js';

/** The cursor of a revision in its post's list: its number. */
const revisionCursor = (revision: PostRevision) => encodeCursor(revision.number);

/** sql.raw, where the constructor's `sql` (the Sql) hides the tag. */
const raw = (text: string): Fragment => sql.raw(text);

/** `post_revisions`: appended to by every write of a post, read newest first. */
@Injectable()
export class PostRevisionsRepository {
  private readonly table: EntityTable<PostRevision>;
  private readonly select: Fragment;
  private readonly returning: Fragment;

  constructor(private readonly sql: Sql) {
    this.table = sql.table(PostRevision);
    this.select = raw(this.table.selectList('r'));
    this.returning = raw(this.table.returningList);
  }

  /** Records the post as it now is as its next revision (the previous highest number + 1). */
  async record(post: Post, editorId: number | null, executor: Executor): Promise<PostRevision> {
    const statement = sql`INSERT INTO post_revisions (post_id, number, title, body, status, editor_id, created_at) SELECT ${post.id}, COALESCE(MAX(number), 0) + 1, ${post.title}, ${post.body}, ${post.status}, ${editorId}, ${this.sql.timestamp(post.updatedAt)} FROM post_revisions WHERE post_id = ${post.id} RETURNING ${this.returning}`;
    const [row] = await this.sql.rows<Record<string, unknown>>(statement, executor);
    return this.table.fromRow(row);
  }

  /** Revision 1 of a new post: a plain INSERT, nothing read (no earlier revision, nothing the caller needs back). */
  async recordFirst(post: Post, editorId: number | null, executor: Executor): Promise<void> {
    const statement = sql`INSERT INTO post_revisions (post_id, number, title, body, status, editor_id, created_at) VALUES (${post.id}, 1, ${post.title}, ${post.body}, ${post.status}, ${editorId}, ${this.sql.timestamp(post.updatedAt)})`;
    await this.sql.rows(statement, executor);
  }

  /** `recordFirst` as a companion of the post's INSERT (ResourceRepository.insertRecorded): its values the new row's. */
  firstFrom(editorId: number | null): Companion<Post> {
    return (row, source) =>
      sql`INSERT INTO post_revisions (post_id, number, title, body, status, editor_id, created_at) SELECT ${raw(row.column('id'))}, 1, ${raw(row.column('title'))}, ${raw(row.column('body'))}, ${raw(row.column('status'))}, ${editorId}, ${raw(row.column('updatedAt'))} FROM ${source}`;
  }

  /** One post's revisions, newest first, keyset-paged on the number. */
  async page(postId: number, request: PageRequest): Promise<Page<PostRevision>> {
    recordReadIds(postTag, [postId]);
    const after = request.after === undefined ? sql.empty : sql` AND r.number < ${request.after}`;
    const statement = sql`SELECT ${this.select} FROM post_revisions r WHERE r.post_id = ${postId}${after} ORDER BY r.number DESC LIMIT ${request.limit + 1}`;
    return toPage(this.map(await this.sql.rows(statement)), request.limit, revisionCursor);
  }

  async find(postId: number, number: number, executor?: Executor): Promise<PostRevision | null> {
    recordReadIds(postTag, [postId]);
    const [row] = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${this.select} FROM post_revisions r WHERE r.post_id = ${postId} AND r.number = ${number}`, executor);
    return row ? this.table.fromRow(row) : null;
  }

  /** For batching (Post.revisions): the newest `limit` revisions of each of these posts, in one statement. */
  async newestFor(postIds: readonly number[], limit: number): Promise<Map<number, PostRevision[]>> {
    recordReadIds(postTag, postIds);
    const byPost = new Map<number, PostRevision[]>(postIds.map((id) => [id, []]));
    if (postIds.length === 0) return byPost;
    const statement = sql`SELECT ${this.select} FROM post_revisions r WHERE r.id IN (SELECT page.id FROM (SELECT ranked.id AS id, ROW_NUMBER() OVER (PARTITION BY ranked.post_id ORDER BY ranked.number DESC) AS rn FROM post_revisions ranked WHERE ranked.post_id IN (${sql.in(postIds)})) page WHERE page.rn <= ${limit}) ORDER BY r.number DESC`;
    for (const revision of this.map(await this.sql.rows(statement))) byPost.get(revision.postId)?.push(revision);
    return byPost;
  }

  /**
   * The revisions of these posts, by post then number (oldest first), keyset-paged on (post, number):
   * `after` is the last one of the previous page. For a personal-data export, which reads them all.
   */
  async pageOfPosts(postIds: readonly number[], limit: number, after?: Pick<PostRevision, 'postId' | 'number'>): Promise<PostRevision[]> {
    if (postIds.length === 0) return [];
    recordReadIds(postTag, postIds);
    const from = after === undefined ? sql.empty : sql` AND (r.post_id > ${after.postId} OR (r.post_id = ${after.postId} AND r.number > ${after.number}))`;
    const statement = sql`SELECT ${this.select} FROM post_revisions r WHERE r.post_id IN (${sql.in(postIds)})${from} ORDER BY r.post_id, r.number LIMIT ${limit}`;
    return this.map(await this.sql.rows(statement));
  }

  private map(rows: Record<string, unknown>[]): PostRevision[] {
    return rows.map((row) => this.table.fromRow(row));
  }
}
