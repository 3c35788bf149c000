import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import { isForeignKeyViolation } from '../common/errors/normalize-error.js';
import type { Page, PageRequest } from '../common/pagination/cursor.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import type { WriteOptions } from '../common/persistence/write-options.js';
import { event } from '../events/blog-events.js';
import { EventPublisher } from '../events/event-publisher.js';
import { PostsService } from '../posts/posts.service.js';
import { UsersRepository } from '../users/users.repository.js';
import type { Comment } from './comment.entity.js';
import { CommentsRepository } from './comments.repository.js';
import type { CreateCommentDto } from './dto/create-comment.dto.js';
import type { UpdateCommentDto } from './dto/update-comment.dto.js';

@Injectable()
export class CommentsService {
  constructor(
    private readonly comments: CommentsRepository,
    private readonly posts: PostsService,
    private readonly users: UsersRepository,
    private readonly policy: AuthorizationPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
  ) {}

  /** A post's comments, oldest first, keyset-paged on (post_id, id). 404 when the post is missing. */
  async listForPost(postId: number, request: PageRequest): Promise<Page<Comment>> {
    if (!(await this.posts.exists(postId))) throw DomainError.notFound('Post', postId);
    return this.comments.page(request, 'asc', { column: 'postId', value: postId });
  }

  findById(id: number): Promise<Comment | null> {
    return this.comments.findById(id);
  }

  /** For batching: the comments with these ids, in no particular order. */
  findByIds(ids: readonly number[]): Promise<Comment[]> {
    return this.comments.findByIds(ids);
  }

  /**
   * For batching: one page (oldest first, after `request.after`) of the comments of each of
   * these posts, in one statement whatever the number of posts. With `withAuthors`, each
   * comment's author is joined in (`comment.author`), so the page costs no further statement.
   */
  listForPosts(postIds: readonly number[], request: PageRequest, options: { withAuthors?: boolean } = {}): Promise<Map<number, Comment[]>> {
    const join = options.withAuthors ? { property: 'author' as const, table: this.users.table, foreignKey: 'authorId' as const } : undefined;
    return this.comments.pagesFor('postId', postIds, request, 'asc', join);
  }

  /** For batching: the number of comments of each of these posts, in one statement. */
  countForPosts(postIds: readonly number[]): Promise<Map<number, number>> {
    return this.comments.countFor('postId', postIds);
  }

  async get(id: number): Promise<Comment> {
    const comment = await this.findById(id);
    if (!comment) throw DomainError.notFound('Comment', id);
    return comment;
  }

  /**
   * The INSERT … RETURNING and its event, atomically (one statement on PostgreSQL). A post that
   * does not exist (or was deleted meanwhile) is caught by the foreign key, then told apart from
   * a vanished author.
   */
  async create(postId: number, input: CreateCommentDto, actor: Actor | null): Promise<Comment> {
    const who = this.policy.requireActor(actor);
    const comment = await this.comments
      .insertRecorded({ ...input, postId, authorId: who.id }, this.events.created('commentCreated'))
      .catch(async (error: unknown) => {
        if (isForeignKeyViolation(error) && !(await this.posts.exists(postId))) throw DomainError.notFound('Post', postId);
        throw error;
      });
    this.events.committed();
    return comment;
  }

  async update(id: number, input: UpdateCommentDto, actor: Actor | null, options: WriteOptions = {}): Promise<Comment> {
    this.policy.requireActor(actor);
    const comment = await this.transactions.run(async (manager) => {
      const current = await this.comments.findById(id, manager);
      if (!current) throw DomainError.notFound('Comment', id);
      this.policy.assertCanModify(actor, current, 'comment');
      const updated = await this.comments.updateVersioned(current, { ...input }, options.expectedVersion, manager);
      await this.events.record(manager, event('commentUpdated', updated));
      return updated;
    });
    this.events.committed();
    return comment;
  }

  async delete(id: number, actor: Actor | null): Promise<void> {
    this.policy.requireActor(actor);
    await this.transactions.run(async (manager) => {
      const current = await this.comments.findById(id, manager);
      if (!current) throw DomainError.notFound('Comment', id);
      this.policy.assertCanModify(actor, current, 'comment');
      // Two deletes that both read the row: only the one whose DELETE removed it succeeds.
      if (!(await this.comments.delete(id, manager))) throw DomainError.notFound('Comment', id);
      await this.events.eraseContent(manager, { commentIds: [id] });
      await this.events.record(manager, event('commentDeleted', { id: current.id, postId: current.postId, authorId: current.authorId }));
    });
    this.events.committed();
  }
}
