import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { type CommentScope, type CommentStatus, ReadPolicy } from '../auth/read-policy.js';
import { ContentRenderer } from '../content/content-renderer.js';
import { AppConfig } from '../config/app-config.js';
import { DomainError } from '../common/errors/domain-error.js';
import { isForeignKeyViolation } from '../common/errors/normalize-error.js';
import type { Page, PageRequest } from '../common/pagination/cursor.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import type { Executor } from '../common/persistence/sql.js';
import type { WriteOptions } from '../common/persistence/write-options.js';
import { type BlogEvent, event } from '../events/blog-events.js';
import { EventPublisher } from '../events/event-publisher.js';
import { type AuditChanges, type AuditRecord, AuditLog, changesOf } from '../audit/audit-log.service.js';
import type { Post } from '../posts/post.entity.js';
import { PostsService } from '../posts/posts.service.js';
import { UsersRepository } from '../users/users.repository.js';
import type { Join } from '../common/persistence/resource-repository.js';
import type { User } from '../users/user.entity.js';
import type { Comment } from './comment.entity.js';
import { CommentModerationService } from './comment-moderation.service.js';
import { CommentsRepository } from './comments.repository.js';
import type { CreateCommentDto } from './dto/create-comment.dto.js';
import type { UpdateCommentDto } from './dto/update-comment.dto.js';

/** A comment's fields whose values its deletion's audit entry keeps. */
const AUDITED_FIELDS = ['body', 'postId', 'parentId', 'authorId', 'status'] as const satisfies readonly (keyof Comment)[];

/**
 * What a list of comments reads: every column by default; with `columns` only those (and what
 * its relations are resolved from); with `withAuthors` each comment's author joined in, whole,
 * or with `authorColumns` only those (a partial row: never the users' loader's).
 */
export interface CommentListReading {
  withAuthors?: boolean;
  /** Fields of the comments: those that are columns are read. */
  columns?: readonly string[];
  authorColumns?: readonly (keyof User & string)[];
}

@Injectable()
export class CommentsService {
  constructor(
    private readonly comments: CommentsRepository,
    private readonly posts: PostsService,
    private readonly users: UsersRepository,
    private readonly policy: AuthorizationPolicy,
    private readonly readPolicy: ReadPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
    private readonly config: AppConfig,
    private readonly moderation: CommentModerationService,
    private readonly renderer: ContentRenderer,
    private readonly audit: AuditLog,
  ) {}

  /** Which comments of a post the reader sees (ReadPolicy.commentScope): what lists, counts and loaders are keyed and filtered by. */
  scopeOf(actor: Actor | null | undefined): CommentScope {
    return this.readPolicy.commentScope(actor);
  }

  /**
   * The comments of a post the caller sees, oldest first, replies included, keyset-paged on the
   * id; with `parentId`, the replies of that comment only. 404 when the post is missing or the
   * caller may not see it, or when the parent is not a comment of that post they see.
   */
  async listForPost(postId: number, request: PageRequest, actor: Actor | null | undefined, parentId?: number): Promise<Page<Comment>> {
    await this.posts.assertVisible(postId, actor);
    const scope = this.scopeOf(actor);
    if (parentId === undefined) return this.comments.visiblePage('postId', postId, scope, request);
    const parent = await this.comments.findParent(parentId);
    if (!parent || parent.postId !== postId || !this.readPolicy.canSeeCommentStatus(actor, parent)) throw DomainError.notFound('Comment', parentId);
    return this.comments.visiblePage('parentId', parentId, scope, request);
  }

  /** The first page of a post the caller has been shown already (its HTML page): no second look at the post. */
  firstPageOf(postId: number, request: PageRequest, actor: Actor | null | undefined): Promise<Page<Comment>> {
    return this.comments.visiblePage('postId', postId, this.scopeOf(actor), request);
  }

  /** For batching: the comments with these ids, each with its post (`comment.post`, for the read policy), in one statement. */
  findByIds(ids: readonly number[]): Promise<Comment[]> {
    return this.comments.findByIds(ids, { property: 'post', table: this.posts.table, foreignKey: 'postId' });
  }

  /** Whether the caller may see the comment: its post (joined in by findByIds) and its status. */
  canSee(actor: Actor | null | undefined, comment: Comment): boolean {
    return !!comment.post && this.readPolicy.canSeeComment(actor, comment, comment.post);
  }

  /**
   * For batching: one page (oldest first, after `request.after`) of the comments the scope shows
   * of each of these posts, in one statement whatever the number of posts. With `withAuthors`,
   * each comment's author is joined in (`comment.author`), so the page costs no further statement.
   */
  listForPosts(postIds: readonly number[], request: PageRequest, scope: CommentScope, reading: CommentListReading = {}): Promise<Map<number, Comment[]>> {
    return this.comments.visiblePagesFor('postId', postIds, scope, request, this.authorJoin(reading), reading.columns && this.listColumns(reading.columns));
  }

  /** For batching (Comment.replies): the first replies the scope shows of each of these comments, oldest first, in one statement. */
  repliesFor(commentIds: readonly number[], request: PageRequest, scope: CommentScope, reading: CommentListReading = {}): Promise<Map<number, Comment[]>> {
    return this.comments.visiblePagesFor('parentId', commentIds, scope, request, this.authorJoin(reading), reading.columns && this.listColumns(reading.columns));
  }

  /** The columns among these fields; a partial list still carries what its relations are resolved from (post, parent, author, replies). */
  private listColumns(fields: readonly string[]): (keyof Comment & string)[] {
    const readable = this.comments.table.columns.filter((column) => !column.version).map((column) => column.property as keyof Comment & string);
    return readable.filter((property) => ['id', 'postId', 'parentId', 'authorId'].includes(property) || fields.includes(property));
  }

  /** For batching: the number of comments the scope shows on each of these posts, in one statement. */
  countForPosts(postIds: readonly number[], scope: CommentScope): Promise<Map<number, number>> {
    return this.comments.countVisibleFor(postIds, scope);
  }

  /** The comment, if the caller may see it and its post (one statement: the post is joined in); 404 otherwise. */
  async get(id: number, actor: Actor | null | undefined): Promise<Comment> {
    const [comment] = await this.findByIds([id]);
    if (!comment || !this.canSee(actor, comment)) throw DomainError.notFound('Comment', id);
    return comment;
  }

  private authorJoin({ withAuthors, authorColumns }: CommentListReading): Join<Comment, User> | undefined {
    if (!withAuthors) return undefined;
    const columns = authorColumns && [...new Set<keyof User & string>(['id', ...authorColumns])];
    return { property: 'author', table: this.users.table, foreignKey: 'authorId', columns };
  }

  /** The post a comment is on, if the writer may see it (404 otherwise), with the audience of its events. */
  private async visiblePost(postId: number, actor: Actor, executor?: Executor): Promise<Post> {
    const post = await this.posts.findById(postId, executor);
    if (!post || !this.readPolicy.canSeePost(actor, post)) throw DomainError.notFound('Post', postId);
    return post;
  }

  /**
   * Where a new comment goes in its post's thread: top-level (depth 1), or under a parent that
   * is a comment of the same post the writer sees, one level deeper, at most COMMENTS_MAX_DEPTH.
   * A bad parent is the input's fault (400 naming parentId), as is a reply too deep.
   */
  private async threadOf(postId: number, parentId: number | null | undefined, writer: Actor): Promise<{ parentId?: number; depth?: number }> {
    if (parentId === undefined || parentId === null) return {};
    const parent = await this.comments.findParent(parentId);
    // A parent on another post gets the answer of a missing one: that post may be a draft the writer may not see.
    if (!parent || parent.postId !== postId || !this.readPolicy.canSeeCommentStatus(writer, parent)) throw parentGone(parentId);
    const depth = parent.depth + 1;
    const max = this.config.commentsMaxDepth;
    if (depth > max) throw badParent(`parentId ${parentId}: replies nest at most ${max} deep (COMMENTS_MAX_DEPTH)`);
    return { parentId, depth };
  }

  /**
   * The INSERT … RETURNING, its event and its audit entry, atomically (one statement on PostgreSQL). The writer's
   * admission (flood limit, blocked, the status it starts in) is the moderation service's, its
   * place in the thread threadOf's; the event's audience is the comment's (a pending one reaches
   * only its author and moderators; one on a draft only those who see the draft). A post the
   * writer may not see is 404; one deleted meanwhile is caught by the foreign key.
   */
  async create(postId: number, input: CreateCommentDto, actor: Actor | null): Promise<Comment> {
    const who = this.policy.requireActor(actor);
    const status = await this.moderation.admit(who);
    const post = await this.visiblePost(postId, who);
    const { parentId, ...text } = input;
    const thread = await this.threadOf(postId, parentId, who);
    const audience = this.readPolicy.commentAudienceOf({ status, authorId: who.id }, post);
    const changes: AuditChanges = { body: { from: null, to: text.body }, postId: { from: null, to: postId }, parentId: { from: null, to: thread.parentId ?? null }, status: { from: null, to: status } };
    const bodyHtml = await this.renderer.renderComment(text.body);
    const comment = await this.comments
      .insertRecorded(
        { ...text, bodyHtml, ...thread, postId, authorId: who.id, status },
        this.events.created('commentCreated', audience),
        this.audit.created(who, 'comments.create', 'comment', changes),
      )
      .catch(async (error: unknown) => {
        if (isForeignKeyViolation(error) && !(await this.posts.exists(postId))) throw DomainError.notFound('Post', postId);
        if (isForeignKeyViolation(error) && thread.parentId !== undefined && !(await this.comments.exists(thread.parentId))) throw parentGone(thread.parentId);
        throw error;
      });
    this.events.committed([{ name: 'commentCreated', payload: comment }]);
    return comment;
  }

  /**
   * The comment a write is about, locked with its post joined in (one statement), so that the
   * events follow the change from the state it really had; 404 unless the writer sees it, like a read.
   */
  private async lockVisible(id: number, writer: Actor, executor: Executor): Promise<{ current: Comment; post: Post }> {
    const [current] = await this.comments.findManyForUpdate([id], this.posts.table, executor);
    const post = current?.post;
    if (!post || !this.readPolicy.canSeeComment(writer, current, post)) throw DomainError.notFound('Comment', id);
    return { current, post };
  }

  /**
   * PATCH: a new text (its author or an admin) and/or a new status (moderators, editors and
   * admins), on a comment the caller sees (404 otherwise). Moderation covers edits: a new text
   * of an approved comment that a new comment of the writer's would wait with goes back to
   * `pending`, and a blocked writer's text is 403 COMMENTS_BLOCKED (CONTRACT §18). The events
   * follow the change of visibility (CommentModerationService.changeEvents), as a moderation's do.
   */
  async update(id: number, input: UpdateCommentDto, actor: Actor | null, options: WriteOptions = {}): Promise<Comment> {
    const who = this.policy.requireActor(actor);
    if (input.body === undefined && input.status === undefined) {
      throw DomainError.badInput('Give body or status (or both)', [{ field: 'body', message: 'body or status is required' }]);
    }
    let recorded: BlogEvent[] = [];
    if (input.body !== undefined) await this.renderer.prepare('markdown');
    const comment = await this.transactions.run(async (manager) => {
      const { current, post } = await this.lockVisible(id, who, manager);
      if (input.body !== undefined) this.policy.authorize(who, 'comments.edit', current.authorId);
      if (input.status !== undefined) this.moderation.requireModerator(who, true);
      const changes: { body?: string; bodyHtml?: string; status?: CommentStatus } = {};
      if (input.body !== undefined) {
        changes.body = input.body;
        changes.bodyHtml = await this.renderer.renderComment(input.body);
        if ((await this.moderation.admitEdit(who, manager)) && current.status === 'approved') changes.status = 'pending';
      }
      if (input.status !== undefined) changes.status = input.status;
      const updated = await this.comments.updateVersioned(current, changes, options.expectedVersion, manager);
      // A new text is its author's edit (with the status it put back to pending); a new status, a moderation.
      const resource = { type: 'comment', id };
      const entries: AuditRecord[] = [];
      if (input.body !== undefined) entries.push({ action: 'comments.update', resource, changes: changesOf(current, updated, input.status === undefined ? ['body', 'status'] : ['body']) });
      if (input.status !== undefined) entries.push({ action: 'comments.moderate', resource, changes: changesOf(current, updated, ['status']) });
      await this.audit.record(manager, who, ...entries);
      await this.moderation.withdraw(manager, [{ before: current, after: updated, post }]);
      recorded = this.moderation.changeEvents(current, updated, post);
      await this.events.record(manager, ...recorded);
      return updated;
    });
    this.events.committed(recorded);
    return comment;
  }

  /**
   * Deletes the comment and, by the parent_id cascade, every reply under it: a commentDeleted
   * for each (ids only; the audience of each as it was) and their earlier events' content
   * erased, in the same transaction. A comment the caller may not see is 404, like a read.
   */
  async delete(id: number, actor: Actor | null): Promise<void> {
    const who = this.policy.requireActor(actor);
    let recorded: BlogEvent[] = [];
    await this.transactions.run(async (manager) => {
      const { current, post } = await this.lockVisible(id, who, manager);
      this.policy.authorize(who, 'comments.delete', current.authorId);
      const thread = await this.comments.thread(id, manager);
      // Two deletes that both read the row: only the one whose DELETE removed it succeeds.
      if (!(await this.comments.delete(id, manager))) throw DomainError.notFound('Comment', id);
      // One entry: the replies go with it by the cascade, named by their ids.
      const changes = changesOf(current, null, AUDITED_FIELDS);
      const replies = thread.filter((comment) => comment.id !== id).map((comment) => comment.id);
      if (replies.length > 0) changes.replies = { from: replies, to: null };
      await this.audit.record(manager, who, { action: 'comments.delete', resource: { type: 'comment', id }, changes });
      await this.audit.eraseContent(manager, { comments: thread.map((comment) => comment.id) });
      await this.events.eraseContent(manager, { commentId: thread.map((comment) => comment.id) });
      recorded = thread.map((comment) =>
        event('commentDeleted', { id: comment.id, postId: comment.postId, authorId: comment.authorId }, this.readPolicy.commentAudienceOf(comment, post)),
      );
      await this.events.record(manager, ...recorded);
    });
    this.events.committed(recorded);
  }
}

function badParent(message: string): DomainError {
  return DomainError.badInput(message, [{ field: 'parentId', message }]);
}

/** A parent that is not there (deleted meanwhile, too), is on another post, or that the writer may not see: the same answer, so it tells nothing. */
function parentGone(parentId: number): DomainError {
  return badParent(`parentId ${parentId} is not a comment of this post you can reply to`);
}
