import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { type AudienceSet, COMMENT_STATUSES, type CommentStatus, ReadPolicy } from '../auth/read-policy.js';
import { DomainError, type FieldError } from '../common/errors/domain-error.js';
import type { Page, PageRequest } from '../common/pagination/cursor.js';
import type { Executor } from '../common/persistence/sql.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { RateLimiter } from '../common/rate-limit/rate-limiter.js';
import { MAX_INT32 } from '../common/validation/limits.js';
import { AppConfig } from '../config/app-config.js';
import { type BlogEvent, event } from '../events/blog-events.js';
import { EventPublisher } from '../events/event-publisher.js';
import { AuditLog, changesOf } from '../audit/audit-log.service.js';
import type { Post } from '../posts/post.entity.js';
import { PostsService } from '../posts/posts.service.js';
import type { Comment } from './comment.entity.js';
import { CommentsRepository } from './comments.repository.js';
import { MAX_MODERATED } from './dto/moderate-comment.dto.js';

/** One change of a bulk moderation: a comment and its new status. */
export interface ModerationItem {
  id: number;
  status: CommentStatus;
}

/** The flood limit's window: RATE_LIMIT_COMMENTS_MAX comments per user per minute. */
const FLOOD_WINDOW_S = 60;

const floodKey = (userId: number) => `comments:user:${userId}`;

/**
 * Comment moderation (CONTRACT §9): who may comment (blocked writers, the flood limit), the
 * status a new comment starts in (COMMENTS_MODERATION), the queue, status changes one at a time
 * or in bulk, and the events a change of status sends, each to the readers it concerns.
 */
@Injectable()
export class CommentModerationService {
  constructor(
    private readonly comments: CommentsRepository,
    private readonly posts: PostsService,
    private readonly policy: AuthorizationPolicy,
    private readonly readPolicy: ReadPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Whether `writer` may write a comment now, and the status it starts in. Every attempt counts
   * against the flood limit (RATE_LIMIT_COMMENTS_MAX per minute, shared by the instances through
   * Redis), refused ones included: a flood of refused writes costs as much as accepted ones.
   * Then one statement reads whether the writer is blocked (403 COMMENTS_BLOCKED) and, under
   * `first`, whether any comment of theirs is approved already.
   */
  async admit(writer: Actor): Promise<CommentStatus> {
    await this.limiter.consume(floodKey(writer.id), this.config.rateLimitCommentsMax, FLOOD_WINDOW_S);
    return (await this.holds(writer)) ? 'pending' : 'approved';
  }

  /**
   * Whether a new text of a comment by `writer` waits for moderation (CONTRACT §18: moderation
   * covers edits): as for a new comment, by the writer's standing (403 COMMENTS_BLOCKED when
   * blocked). Read in the edit's transaction; an edit is no new comment for the flood limit.
   */
  admitEdit(writer: Actor, executor: Executor): Promise<boolean> {
    return this.holds(writer, executor);
  }

  /** Whether what `writer` writes now is held (pending) under COMMENTS_MODERATION; 403 COMMENTS_BLOCKED for a blocked writer. */
  private async holds(writer: Actor, executor?: Executor): Promise<boolean> {
    const mode = this.config.commentsModeration;
    const held = mode !== 'off' && !this.readPolicy.moderates(writer);
    const standing = await this.comments.writerStanding(writer.id, held && mode === 'first', executor);
    if (standing.blocked) throw new DomainError('COMMENTS_BLOCKED', 'You are blocked from writing comments');
    return held && !(mode === 'first' && standing.approved);
  }

  /** Those who moderate (moderators, editors, admins): 401 anonymous, 403 others; changes need an API key's `write` scope. */
  requireModerator(actor: Actor | null | undefined, change: boolean): Actor {
    if (change) return this.policy.authorize(actor, 'comments.moderate');
    const who = this.policy.requireSignedIn(actor);
    if (!this.policy.may(who, 'comments.moderate')) throw DomainError.forbidden('Only moderators, editors and admins may moderate comments');
    // The queue holds what only moderators read: a read key reads what anyone may (403 INSUFFICIENT_SCOPE).
    return this.policy.authorizeRead(who, 'comments.moderate');
  }

  /**
   * The queue: the comments of one status, oldest first (the order they wait in), on the posts
   * the moderator may see (a moderator: the public posts and their own; editors and admins: all).
   * An API key needs the `write` scope: held comments are nothing a `read` key may read.
   */
  async queue(status: CommentStatus, request: PageRequest, actor: Actor | null | undefined): Promise<Page<Comment>> {
    const who = this.requireModerator(actor, false);
    return this.comments.statusPage(status, this.readPolicy.postScope(who), request);
  }

  /** How many comments the caller's queue of `status` holds. */
  async count(status: CommentStatus, actor: Actor | null | undefined): Promise<number> {
    const who = this.requireModerator(actor, false);
    return this.comments.countStatus(status, this.readPolicy.postScope(who));
  }

  /**
   * The events of a change of a comment from `before` to `after` (its post as it is): those who
   * saw it and still do get COMMENT_UPDATED, those who see it now and did not get COMMENT_CREATED
   * (the public one of an approval), those who no longer see it get COMMENT_DELETED.
   */
  changeEvents(before: Comment, after: Comment, post: Post): BlogEvent[] {
    const transition = this.readPolicy.transition(this.readPolicy.commentAudienceOf(before, post), this.readPolicy.commentAudienceOf(after, post));
    const events: BlogEvent[] = [];
    if (transition.updated) events.push(event('commentUpdated', after, transition.updated));
    if (transition.created) events.push(event('commentCreated', after, transition.created));
    if (transition.deleted) events.push(event('commentDeleted', { id: after.id, postId: after.postId, authorId: after.authorId }, transition.deleted));
    return events;
  }

  /**
   * In the transaction of status changes, before their events: the comments that some of their
   * readers no longer see (spam, hidden) leave the earlier events of a wider audience than they
   * now have (EventPublisher.withdrawContent). One erasure per audience, whatever the count.
   */
  async withdraw(executor: Executor, changes: readonly { before: Comment; after: Comment; post: Post }[]): Promise<void> {
    const byAudience = new Map<string, { audience: AudienceSet; ids: number[] }>();
    for (const { before, after, post } of changes) {
      if (before.status === after.status) continue;
      const now = this.readPolicy.commentAudienceOf(after, post);
      if (!this.readPolicy.transition(this.readPolicy.commentAudienceOf(before, post), now).deleted) continue;
      // Withdrawal looks at the audience's kind only (audienceBeyondSql).
      const group = byAudience.get(now.audience) ?? { audience: { audience: now.audience, owner: null }, ids: [] };
      group.ids.push(after.id);
      byAudience.set(now.audience, group);
    }
    for (const { audience, ids } of byAudience.values()) await this.events.withdrawContent(executor, { commentId: ids }, audience);
  }

  /**
   * `PATCH /comments` and `moderateComments`: the new status of each comment, all or nothing in
   * one transaction. Any comment that does not exist or is on a post the moderator may not see
   * is 404 (naming it) and nothing changes. Comments already in their new status are returned
   * as they are, with no event. The comments come back in the order asked.
   */
  async moderate(items: readonly ModerationItem[], actor: Actor | null | undefined): Promise<Comment[]> {
    const who = this.requireModerator(actor, true);
    checkItems(items);
    const ids = items.map((item) => item.id);
    let recorded: BlogEvent[] = [];
    const result = await this.transactions.run(async (manager) => {
      const found = new Map((await this.comments.findManyForUpdate(ids, this.posts.table, manager)).map((comment) => [comment.id, comment]));
      for (const id of ids) {
        const current = found.get(id);
        if (!current?.post || !this.readPolicy.canSeeComment(who, current, current.post)) throw DomainError.notFound('Comment', id);
      }
      const byStatus = new Map<CommentStatus, number[]>();
      for (const item of items) {
        if (found.get(item.id)!.status === item.status) continue;
        byStatus.set(item.status, [...(byStatus.get(item.status) ?? []), item.id]);
      }
      const changed = new Map<number, Comment>();
      for (const [status, group] of byStatus) for (const comment of await this.comments.setStatus(group, status, manager)) changed.set(comment.id, comment);
      // An entry per comment changed, in one statement; those already in their status had no change.
      await this.audit.record(
        manager,
        who,
        ...[...changed.values()].map((after) => ({ action: 'comments.moderate' as const, resource: { type: 'comment', id: after.id }, changes: changesOf(found.get(after.id)!, after, ['status']) })),
      );
      await this.withdraw(
        manager,
        [...changed.values()].map((after) => ({ before: found.get(after.id)!, after, post: found.get(after.id)!.post! })),
      );
      recorded = [...changed.values()].flatMap((after) => {
        const before = found.get(after.id)!;
        return this.changeEvents(before, after, before.post!);
      });
      if (recorded.length > 0) await this.events.record(manager, ...recorded);
      return ids.map((id) => changed.get(id) ?? withoutPost(found.get(id)!));
    });
    // One comment drops what its events touch; a bulk moderation, every cached answer.
    this.events.committed(ids.length === 1 ? recorded : undefined);
    return result;
  }

  /** `PATCH /comments`: the caller is checked first (401, 403), then the body (400). */
  async moderateBody(body: unknown, actor: Actor | null | undefined): Promise<Comment[]> {
    this.requireModerator(actor, true);
    return this.moderate(this.parseItems(body), actor);
  }

  /** The body of `PATCH /comments` as ModerationItems: a JSON array of 1-100 `{id, status}`; else 400 naming the item. */
  parseItems(body: unknown): ModerationItem[] {
    if (!Array.isArray(body)) throw DomainError.badInput('The body must be a JSON array of {id, status}', [{ field: 'body', message: 'must be an array' }]);
    const errors: FieldError[] = [];
    const items = body.map((item: unknown, index): ModerationItem => {
      const field = `[${index}]`;
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        errors.push({ field, message: 'must be an object {id, status}' });
        return { id: 0, status: 'approved' };
      }
      const { id, status, ...rest } = item as Record<string, unknown>;
      for (const key of Object.keys(rest)) errors.push({ field: `${field}.${key}`, message: `${field}.${key} is not a known or writable field` });
      if (!isId(id)) errors.push({ field: `${field}.id`, message: 'must be a positive integer' });
      if (!COMMENT_STATUSES.includes(status as CommentStatus)) errors.push({ field: `${field}.status`, message: 'must be "approved", "pending", "spam" or "hidden"' });
      return { id: id as number, status: status as CommentStatus };
    });
    if (errors.length > 0) throw DomainError.badInput(errors.map((error) => `${error.field}: ${error.message}`).join('; '), errors);
    checkItems(items);
    return items;
  }
}

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_INT32;
}

/** 1-100 items, each comment once: else 400. */
function checkItems(items: readonly ModerationItem[]): void {
  if (items.length === 0 || items.length > MAX_MODERATED) {
    throw DomainError.badInput(`Moderate 1 to ${MAX_MODERATED} comments at once (got ${items.length})`, [{ field: 'body', message: `must hold 1 to ${MAX_MODERATED} items` }]);
  }
  const seen = new Set<number>();
  items.forEach((item, index) => {
    if (seen.has(item.id)) throw DomainError.badInput(`Comment ${item.id} is named twice (item ${index})`, [{ field: `[${index}].id`, message: 'names a comment already named' }]);
    seen.add(item.id);
  });
}

/** A comment as the API returns it: without the post joined in for the policy. */
function withoutPost(comment: Comment): Comment {
  delete comment.post;
  return comment;
}
