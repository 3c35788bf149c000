import { Injectable } from '@nestjs/common';
import { encodeCursor, type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import type { EntityTable } from '../common/persistence/entity-table.js';
import { postTag, recordReadIds } from '../common/cache/read-tags.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import type { Post } from './post.entity.js';
import { PostRevision } from './post-revision.entity.js';

/** The cursor of a revision in its post's list: its number. */
const revisionCursor = (revision: PostRevision) => encodeCursor(revision.number);

/** `post_revisions`: appended to by every write of a post, read newest first. */
@Injectable()
export class PostRevisionsRepository {
  private readonly table: EntityTable<PostRevision>;
  private readonly select: string;
  private readonly statements = new Map<string, string>();

  constructor(private readonly sql: Sql) {
    this.table = sql.table(PostRevision);
    this.select = this.table.selectList('r');
  }

  /** Records the post as it now is as its next revision (the previous highest number + 1). */
  async record(post: Post, editorId: number | null, executor: Executor): Promise<PostRevision> {
    const statement = this.cached(
      'record',
      () =>
        'INSERT INTO post_revisions (post_id, number, title, body, status, editor_id, created_at) ' +
        'SELECT $1, COALESCE(MAX(number), 0) + 1, $2, $3, $4, $5, $6 FROM post_revisions WHERE post_id = $7 ' +
        `RETURNING ${this.table.returningList}`,
    );
    const params = [post.id, post.title, post.body, post.status, editorId, this.sql.timestamp(post.updatedAt), post.id];
    const [row] = await this.sql.rows<Record<string, unknown>>(statement, params, executor);
    return this.table.fromRow(row);
  }

  /** Revision 1 of a new post: a plain INSERT, nothing read (no earlier revision, nothing the caller needs back). */
  async recordFirst(post: Post, editorId: number | null, executor: Executor): Promise<void> {
    const statement = this.cached(
      'recordFirst',
      () => 'INSERT INTO post_revisions (post_id, number, title, body, status, editor_id, created_at) VALUES ($1, 1, $2, $3, $4, $5, $6)',
    );
    await this.sql.rows(statement, [post.id, post.title, post.body, post.status, editorId, this.sql.timestamp(post.updatedAt)], executor);
  }

  /** One post's revisions, newest first, keyset-paged on the number. */
  async page(postId: number, request: PageRequest): Promise<Page<PostRevision>> {
    recordReadIds(postTag, [postId]);
    const params: number[] = [postId];
    const after = request.after === undefined ? '' : ` AND r.number < $${params.push(request.after)}`;
    params.push(request.limit + 1);
    const statement = this.cached(
      `page:${request.after !== undefined}`,
      () => `SELECT ${this.select} FROM post_revisions r WHERE r.post_id = $1${after} ORDER BY r.number DESC LIMIT $${params.length}`,
    );
    return toPage(this.map(await this.sql.rows(statement, params)), request.limit, revisionCursor);
  }

  async find(postId: number, number: number, executor?: Executor): Promise<PostRevision | null> {
    recordReadIds(postTag, [postId]);
    const statement = this.cached('find', () => `SELECT ${this.select} FROM post_revisions r WHERE r.post_id = $1 AND r.number = $2`);
    const [row] = await this.sql.rows<Record<string, unknown>>(statement, [postId, number], executor);
    return row ? this.table.fromRow(row) : null;
  }

  /** For batching (Post.revisions): the newest `limit` revisions of each of these posts, in one statement. */
  async newestFor(postIds: readonly number[], limit: number): Promise<Map<number, PostRevision[]>> {
    recordReadIds(postTag, postIds);
    const byPost = new Map<number, PostRevision[]>(postIds.map((id) => [id, []]));
    if (postIds.length === 0) return byPost;
    const statement = this.cached(
      `newestFor:${postIds.length}`,
      () =>
        `SELECT ${this.select} FROM post_revisions r WHERE r.id IN (SELECT page.id FROM ` +
        '(SELECT ranked.id AS id, ROW_NUMBER() OVER (PARTITION BY ranked.post_id ORDER BY ranked.number DESC) AS rn ' +
        `FROM post_revisions ranked WHERE ranked.post_id IN (${this.sql.placeholders(postIds.length)})) page ` +
        `WHERE page.rn <= $${postIds.length + 1}) ORDER BY r.number DESC`,
    );
    for (const revision of this.map(await this.sql.rows(statement, [...postIds, limit]))) byPost.get(revision.postId)?.push(revision);
    return byPost;
  }

  private map(rows: Record<string, unknown>[]): PostRevision[] {
    return rows.map((row) => this.table.fromRow(row));
  }

  private cached(key: string, build: () => string): string {
    let statement = this.statements.get(key);
    if (statement === undefined) {
      statement = this.sql.statement(build());
      this.statements.set(key, statement);
    }
    return statement;
  }
}
