import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Actor } from '../auth/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import { isForeignKeyViolation } from '../common/errors/normalize-error.js';
import { type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import { Sql } from '../common/persistence/sql.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { updateVersioned, type WriteOptions } from '../common/persistence/versioned-update.js';
import { event } from '../subscriptions/blog-events.js';
import { EventPublisher } from '../subscriptions/event-publisher.js';
import { prefixedUserColumns, userFromPrefixedRow } from '../users/user.rows.js';
import { Comment } from './comment.entity.js';
import { COMMENT_COLUMNS, commentFromRow, type CommentRow } from './comment.rows.js';
import type { CreateCommentDto } from './dto/create-comment.dto.js';
import type { UpdateCommentDto } from './dto/update-comment.dto.js';

@Injectable()
export class CommentsService {
  constructor(
    @InjectRepository(Comment) private readonly comments: Repository<Comment>,
    private readonly policy: AuthorizationPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
    private readonly sql: Sql,
  ) {
    this.byIdStatement = sql.statement(`SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.id = $1`);
    this.postExistsStatement = sql.statement('SELECT 1 AS found FROM posts WHERE id = $1');
    this.insertStatement = sql.statement(
      `INSERT INTO comments (post_id, body, author_id, created_at, updated_at, version) VALUES ($1, $2, $3, $4, $5, 1) RETURNING ${COMMENT_COLUMNS.replaceAll('c.', '')}`,
    );
    this.pageStatements = ['', ' AND c.id > $2'].map((after) =>
      sql.statement(`SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.post_id = $1${after} ORDER BY c.id LIMIT $${after ? 3 : 2}`),
    );
  }

  private readonly byIdStatement: string;
  private readonly postExistsStatement: string;
  private readonly insertStatement: string;
  private readonly pageStatements: string[];

  /** A post's comments, oldest first, keyset-paged on (post_id, id). 404 when the post is missing. */
  async listForPost(postId: number, request: PageRequest): Promise<Page<Comment>> {
    const [post] = await this.sql.rows(this.postExistsStatement, [postId]);
    if (!post) throw DomainError.notFound('Post', postId);
    const rows =
      request.after === undefined
        ? await this.sql.rows<CommentRow>(this.pageStatements[0], [postId, request.limit + 1])
        : await this.sql.rows<CommentRow>(this.pageStatements[1], [postId, request.after, request.limit + 1]);
    return toPage(rows.map(commentFromRow), request.limit);
  }

  async findById(id: number): Promise<Comment | null> {
    const [row] = await this.sql.rows<CommentRow>(this.byIdStatement, [id]);
    return row ? commentFromRow(row) : null;
  }

  /** For batching: the comments with these ids, in no particular order. */
  async findByIds(ids: readonly number[]): Promise<Comment[]> {
    if (ids.length === 0) return [];
    const placeholders = ids.map((_, index) => `$${index + 1}`).join(', ');
    const rows = await this.sql.rows<CommentRow>(this.sql.statement(`SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.id IN (${placeholders})`), ids);
    return rows.map(commentFromRow);
  }

  /**
   * For batching: one page (oldest first, after `request.after`) of the comments of each of
   * these posts, in one statement whatever the number of posts. With `withAuthors`, each
   * comment's author is joined in (`comment.author`), so the page costs no further statement.
   */
  async listForPosts(
    postIds: readonly number[],
    request: PageRequest,
    options: { withAuthors?: boolean } = {},
  ): Promise<Map<number, Comment[]>> {
    const byPost = new Map<number, Comment[]>(postIds.map((id) => [id, []]));
    if (postIds.length === 0) return byPost;
    const params: number[] = [...postIds];
    const placeholders = postIds.map((_, index) => `$${index + 1}`).join(', ');
    let after = '';
    if (request.after !== undefined) {
      params.push(request.after);
      after = ` AND ranked.id > $${params.length}`;
    }
    params.push(request.limit);
    const authors = options.withAuthors ? `, ${prefixedUserColumns('author_')}` : '';
    const join = options.withAuthors ? ' JOIN users u ON u.id = c.author_id' : '';
    const statement = this.sql.statement(
      `SELECT ${COMMENT_COLUMNS}${authors} FROM comments c${join} WHERE c.id IN (SELECT page.id FROM ` +
        `(SELECT ranked.id AS id, ROW_NUMBER() OVER (PARTITION BY ranked.post_id ORDER BY ranked.id) AS rn ` +
        `FROM comments ranked WHERE ranked.post_id IN (${placeholders})${after}) page WHERE page.rn <= $${params.length}) ORDER BY c.id`,
    );
    for (const row of await this.sql.rows<CommentRow & Record<string, unknown>>(statement, params)) {
      const comment = commentFromRow(row);
      if (options.withAuthors) comment.author = userFromPrefixedRow(row, 'author_');
      byPost.get(comment.postId)?.push(comment);
    }
    return byPost;
  }

  /** For batching: the number of comments of each of these posts, in one statement. */
  async countForPosts(postIds: readonly number[]): Promise<Map<number, number>> {
    const counts = new Map<number, number>(postIds.map((id) => [id, 0]));
    if (postIds.length === 0) return counts;
    const rows = await this.comments
      .createQueryBuilder('comment')
      .select('comment.postId', 'postId')
      .addSelect('COUNT(*)', 'count')
      .where('comment.postId IN (:...postIds)', { postIds: [...postIds] })
      .groupBy('comment.postId')
      .getRawMany<{ postId: number | string; count: number | string }>();
    for (const row of rows) counts.set(Number(row.postId), Number(row.count));
    return counts;
  }

  async get(id: number): Promise<Comment> {
    const comment = await this.findById(id);
    if (!comment) throw DomainError.notFound('Comment', id);
    return comment;
  }

  /**
   * One statement (INSERT … RETURNING), atomic by itself. A post that does not exist (or was
   * deleted meanwhile) is caught by the foreign key, then told apart from a vanished author.
   */
  async create(postId: number, input: CreateCommentDto, actor: Actor | null): Promise<Comment> {
    const who = this.policy.requireActor(actor);
    const now = this.sql.timestamp(new Date());
    const [row] = await this.transactions
      .single(() => this.sql.rows<CommentRow>(this.insertStatement, [postId, input.body, who.id, now, now]))
      .catch(async (error: unknown) => {
        if (isForeignKeyViolation(error) && (await this.sql.rows(this.postExistsStatement, [postId])).length === 0) {
          throw DomainError.notFound('Post', postId);
        }
        throw error;
      });
    const comment = commentFromRow(row);
    this.events.publish(event('commentCreated', comment));
    return comment;
  }

  async update(id: number, input: UpdateCommentDto, actor: Actor | null, options: WriteOptions = {}): Promise<Comment> {
    this.policy.requireActor(actor);
    const comment = await this.transactions.run(async (manager) => {
      const current = await manager.findOneBy(Comment, { id });
      if (!current) throw DomainError.notFound('Comment', id);
      this.policy.assertCanModify(actor, current, 'comment');
      return updateVersioned(manager, Comment, current, { body: input.body }, options.expectedVersion);
    });
    this.events.publish(event('commentUpdated', comment));
    return comment;
  }

  async delete(id: number, actor: Actor | null): Promise<void> {
    this.policy.requireActor(actor);
    const comment = await this.transactions.run(async (manager) => {
      const current = await manager.findOneBy(Comment, { id });
      if (!current) throw DomainError.notFound('Comment', id);
      this.policy.assertCanModify(actor, current, 'comment');
      // Two deletes that both read the row: only the one whose DELETE removed it succeeds.
      if ((await manager.delete(Comment, { id })).affected === 0) throw DomainError.notFound('Comment', id);
      return current;
    });
    this.events.publish(event('commentDeleted', { id: comment.id, postId: comment.postId, authorId: comment.authorId }));
  }
}
