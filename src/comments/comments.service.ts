import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, MoreThan, Repository, type FindOptionsWhere } from 'typeorm';
import type { Actor } from '../auth/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import { type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { updateVersioned, type WriteOptions } from '../common/persistence/versioned-update.js';
import { Post } from '../posts/post.entity.js';
import { event } from '../subscriptions/blog-events.js';
import { EventPublisher } from '../subscriptions/event-publisher.js';
import { Comment } from './comment.entity.js';
import type { CreateCommentDto } from './dto/create-comment.dto.js';
import type { UpdateCommentDto } from './dto/update-comment.dto.js';

@Injectable()
export class CommentsService {
  constructor(
    @InjectRepository(Comment) private readonly comments: Repository<Comment>,
    @InjectRepository(Post) private readonly posts: Repository<Post>,
    private readonly policy: AuthorizationPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
  ) {}

  /** A post's comments, oldest first, keyset-paged on (post_id, id). 404 when the post is missing. */
  async listForPost(postId: number, request: PageRequest): Promise<Page<Comment>> {
    if (!(await this.posts.existsBy({ id: postId }))) throw DomainError.notFound('Post', postId);
    const where: FindOptionsWhere<Comment> = { postId };
    if (request.after !== undefined) where.id = MoreThan(request.after);
    const rows = await this.comments.find({ where, order: { id: 'ASC' }, take: request.limit + 1 });
    return toPage(rows, request.limit);
  }

  findById(id: number): Promise<Comment | null> {
    return this.comments.findOneBy({ id });
  }

  /** For batching: the comments with these ids, in no particular order. */
  findByIds(ids: readonly number[]): Promise<Comment[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.comments.findBy({ id: In([...ids]) });
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
    const after = request.after === undefined ? '' : ' AND ranked.id > :after';
    const query = this.comments
      .createQueryBuilder('comment')
      .where(
        `comment.id IN (SELECT page.id FROM (SELECT ranked.id AS id, ROW_NUMBER() OVER ` +
          `(PARTITION BY ranked.post_id ORDER BY ranked.id) AS rn FROM ${this.comments.metadata.tableName} ranked ` +
          `WHERE ranked.post_id IN (:...postIds)${after}) page WHERE page.rn <= :limit)`,
        { postIds: [...postIds], limit: request.limit, ...(request.after === undefined ? {} : { after: request.after }) },
      )
      .orderBy('comment.id', 'ASC');
    if (options.withAuthors) query.leftJoinAndSelect('comment.author', 'author');
    for (const comment of await query.getMany()) byPost.get(comment.postId)?.push(comment);
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

  async create(postId: number, input: CreateCommentDto, actor: Actor | null): Promise<Comment> {
    const who = this.policy.requireActor(actor);
    const comment = await this.transactions.run(async (manager) => {
      if (!(await manager.existsBy(Post, { id: postId }))) throw DomainError.notFound('Post', postId);
      const now = new Date();
      return manager.save(manager.create(Comment, { postId, body: input.body, authorId: who.id, createdAt: now, updatedAt: now }));
    });
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
      await manager.delete(Comment, { id });
      return current;
    });
    this.events.publish(event('commentDeleted', { id: comment.id, postId: comment.postId, authorId: comment.authorId }));
  }
}
