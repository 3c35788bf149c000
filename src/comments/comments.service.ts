import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { type CommentStatus, ReadPolicy } from '../auth/read-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import { isForeignKeyViolation } from '../common/errors/normalize-error.js';
import type { Page, PageRequest } from '../common/pagination/cursor.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import type { Executor } from '../common/persistence/sql.js';
import type { WriteOptions } from '../common/persistence/write-options.js';
import { event } from '../events/blog-events.js';
import { EventPublisher } from '../events/event-publisher.js';
import type { Post } from '../posts/post.entity.js';
import { PostsRepository } from '../posts/posts.repository.js';
import { PostsService } from '../posts/posts.service.js';
import { UsersRepository } from '../users/users.repository.js';
import type { Comment } from './comment.entity.js';
import { CommentModerationService } from './comment-moderation.service.js';
import { CommentsRepository } from './comments.repository.js';
import type { CreateCommentDto } from './dto/create-comment.dto.js';
import type { UpdateCommentDto } from './dto/update-comment.dto.js';

@Injectable()
export class CommentsService {
  constructor(
    private readonly comments: CommentsRepository,
    private readonly posts: PostsService,
    private readonly postRows: PostsRepository,
    private readonly users: UsersRepository,
    private readonly policy: AuthorizationPolicy,
    private readonly readPolicy: ReadPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
    private readonly moderation: CommentModerationService,
  ) {}

  /** A post's comments, oldest first, keyset-paged on (post_id, id). 404 when the post is missing or the caller may not see it. */
  async listForPost(postId: number, request: PageRequest, actor: Actor | null | undefined): Promise<Page<Comment>> {
    await this.posts.get(postId, actor);
    return this.comments.page(request, 'asc', { column: 'postId', value: postId });
  }

  /** The first page of a post the caller has been shown already (its HTML page): no second look at the post. */
  firstPageOf(postId: number, request: PageRequest): Promise<Page<Comment>> {
    return this.comments.page(request, 'asc', { column: 'postId', value: postId });
  }

  /** For batching: the comments with these ids, each with its post (`comment.post`, for the read policy), in one statement. */
  findByIds(ids: readonly number[]): Promise<Comment[]> {
    return this.comments.findByIds(ids, { property: 'post', table: this.postRows.table, foreignKey: 'postId' });
  }

  /** Whether the caller may see the comment: whether they may see its post (joined in by findByIds). */
  canSee(actor: Actor | null | undefined, comment: Comment): boolean {
    return !!comment.post && this.readPolicy.canSeePost(actor, comment.post);
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

  /** The comment, if the caller may see its post (one statement: the post is joined in); 404 otherwise. */
  async get(id: number, actor: Actor | null | undefined): Promise<Comment> {
    const [comment] = await this.findByIds([id]);
    if (!comment || !this.canSee(actor, comment)) throw DomainError.notFound('Comment', id);
    return comment;
  }

  /** The post a comment is on, if the writer may see it (404 otherwise), with the audience of its events. */
  private async visiblePost(postId: number, actor: Actor, executor?: Executor): Promise<Post> {
    const post = await this.postRows.findById(postId, executor);
    if (!post || !this.readPolicy.canSeePost(actor, post)) throw DomainError.notFound('Post', postId);
    return post;
  }

  /**
   * The INSERT … RETURNING and its event, atomically (one statement on PostgreSQL). The writer's
   * admission (flood limit, blocked, the status it starts in) is the moderation service's; the
   * event's audience is the comment's (a pending one reaches only its author and moderators; one
   * on a draft only those who see the draft). A post the writer may not see is 404; one deleted
   * meanwhile is caught by the foreign key.
   */
  async create(postId: number, input: CreateCommentDto, actor: Actor | null): Promise<Comment> {
    const who = this.policy.requireActor(actor);
    const status = await this.moderation.admit(who);
    const post = await this.visiblePost(postId, who);
    const audience = this.readPolicy.commentAudienceOf({ status, authorId: who.id }, post);
    const comment = await this.comments
      .insertRecorded({ ...input, postId, authorId: who.id, status }, this.events.created('commentCreated', audience))
      .catch(async (error: unknown) => {
        if (isForeignKeyViolation(error) && !(await this.postRows.exists(postId))) throw DomainError.notFound('Post', postId);
        throw error;
      });
    this.events.committed();
    return comment;
  }

  /**
   * PATCH: a new text (its author or an admin) and/or a new status (moderators, editors and
   * admins), on a comment the caller sees (404 otherwise). The events follow the change of
   * visibility (CommentModerationService.changeEvents).
   */
  async update(id: number, input: UpdateCommentDto, actor: Actor | null, options: WriteOptions = {}): Promise<Comment> {
    const who = this.policy.requireActor(actor);
    if (input.body === undefined && input.status === undefined) {
      throw DomainError.badInput('Give body or status (or both)', [{ field: 'body', message: 'body or status is required' }]);
    }
    const comment = await this.transactions.run(async (manager) => {
      // Locked with its post joined in: the events below follow the change from the status it really had.
      const [current] = await this.comments.findManyForUpdate([id], this.postRows.table, manager);
      const post = current?.post;
      if (!post || !this.readPolicy.canSeeComment(who, current, post)) throw DomainError.notFound('Comment', id);
      if (input.body !== undefined) this.policy.assertCanModify(who, current, 'comment');
      if (input.status !== undefined) this.moderation.requireModerator(who, true);
      const changes: { body?: string; status?: CommentStatus } = {};
      if (input.body !== undefined) changes.body = input.body;
      if (input.status !== undefined) changes.status = input.status;
      const updated = await this.comments.updateVersioned(current, changes, options.expectedVersion, manager);
      await this.events.record(manager, ...this.moderation.changeEvents(current, updated, post));
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
      const post = await this.postRows.findById(current.postId, manager);
      if (!post || !this.readPolicy.canSeeComment(actor, current, post)) throw DomainError.notFound('Comment', id);
      this.policy.assertCanModify(actor, current, 'comment');
      // Two deletes that both read the row: only the one whose DELETE removed it succeeds.
      if (!(await this.comments.delete(id, manager))) throw DomainError.notFound('Comment', id);
      await this.events.eraseContent(manager, { commentIds: [id] });
      const deleted = { id: current.id, postId: current.postId, authorId: current.authorId };
      await this.events.record(manager, event('commentDeleted', deleted, this.readPolicy.commentAudienceOf(current, post)));
    });
    this.events.committed();
  }
}
