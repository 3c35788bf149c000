import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { type PostStatus, ReadPolicy } from '../auth/read-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import { isForeignKeyViolation } from '../common/errors/normalize-error.js';
import type { EntityTable } from '../common/persistence/entity-table.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import type { Executor } from '../common/persistence/sql.js';
import type { WriteOptions } from '../common/persistence/write-options.js';
import { type BlogEvent, event } from '../events/blog-events.js';
import { EventPublisher } from '../events/event-publisher.js';
import { TagsService } from '../tags/tags.service.js';
import { type CreatePostDto, SLUG_PATTERN } from './dto/create-post.dto.js';
import type { UpdatePostDto } from './dto/update-post.dto.js';
import { Post } from './post.entity.js';
import { type PostChange, publishAtOf } from './post-change.js';
import { PostRevisions } from './post-revisions.service.js';
import { PostsRepository } from './posts.repository.js';
import type { PostReview } from './post-review.entity.js';
import { PostReviewsRepository } from './post-reviews.repository.js';
import type { ReviewDecision } from './models/review-decision.enum.js';
import { PostPreviews } from './post-previews.service.js';
import { PostSlugs } from './post-slugs.service.js';
import { ContentRenderer } from '../content/content-renderer.js';
import type { Media } from '../media/media.entity.js';
import { MediaService } from '../media/media.service.js';
import { AppConfig } from '../config/app-config.js';
import { canonicalLocale } from '../config/setting-kinds.js';
import type { AuditActionName } from '../audit/audit-actions.js';
import { type AuditChanges, AuditLog, changesOf, SYSTEM } from '../audit/audit-log.service.js';

const SLUG = new RegExp(SLUG_PATTERN);

/** A post's fields whose changes its audit entries show; the body's by its revision numbers (the revisions hold the text). */
const AUDITED_FIELDS = ['title', 'slug', 'bodyFormat', 'metaTitle', 'metaDescription', 'canonicalUrl', 'coverImageId', 'locale', 'authorId', 'status', 'publishAt', 'publishedAt'] as const satisfies readonly (keyof Post)[];

/** The audit action of a change to a post, from its status before and after (CONTRACT §16). */
function postActionOf(before: Post, after: Post): AuditActionName {
  if (after.status !== before.status) {
    if (after.status === 'published') return 'posts.publish';
    if (after.status === 'scheduled') return 'posts.schedule';
    if (after.status === 'in_review') return 'posts.submit';
    if (after.status === 'trashed') return 'posts.trash';
    if (before.status === 'trashed') return 'posts.restore';
  } else if (after.status === 'scheduled' && after.publishAt?.getTime() !== before.publishAt?.getTime()) return 'posts.schedule';
  return 'posts.update';
}

/** How an audit entry of the one write path names a change made on behalf of another (a review). */
interface AuditAs {
  action: AuditActionName;
  changes: AuditChanges;
}

/** Whether a write broke idx_posts_translation_locale (another post of the group has that locale). */
function isTranslationConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { message, driverError } = error as { message?: unknown; driverError?: { message?: unknown; constraint?: unknown } };
  const texts = [message, driverError?.message, driverError?.constraint].filter((text): text is string => typeof text === 'string');
  return texts.some((text) => text.includes('idx_posts_translation_locale') || text.includes('posts.translation_group_id'));
}

const translationConflict = (locale: string) => DomainError.conflict(`Its translation group has a post in ${locale} already (one per locale and group)`);

/**
 * A post's one write path (create, PATCH, the trash, the schedule) with its revisions, tags and
 * events in the same transaction, and the read of one post by id that every door and feature
 * (comments) goes through with the read policy. Lists are PostFinder's, revisions' reads PostRevisions'.
 */
@Injectable()
export class PostsService {
  constructor(
    private readonly posts: PostsRepository,
    private readonly revisions: PostRevisions,
    private readonly policy: AuthorizationPolicy,
    private readonly readPolicy: ReadPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
    private readonly tags: TagsService,
    private readonly slugs: PostSlugs,
    private readonly renderer: ContentRenderer,
    private readonly previews: PostPreviews,
    private readonly media: MediaService,
    private readonly config: AppConfig,
    private readonly reviews: PostReviewsRepository,
    private readonly audit: AuditLog,
  ) {}

  /**
   * A locale as given (any case), canonical; one not in SUPPORTED_LOCALES is 400 naming `locale`,
   * but for `kept`, the post's own (a PATCH that sends back the locale of a post written before
   * SUPPORTED_LOCALES dropped it changes nothing, and is not refused).
   */
  localeOf(given: string, kept?: string): string {
    const locale = canonicalLocale(given);
    if (locale === undefined || (locale !== kept && !this.config.supportedLocales.includes(locale))) {
      const message = `locale must be one of SUPPORTED_LOCALES: ${this.config.supportedLocales.join(', ')}`;
      throw DomainError.badInput(message, [{ field: 'locale', message }]);
    }
    return locale;
  }

  /** The other posts of its group that the caller may see, as `translations` (id and locale) on the post for its `_links`; the post itself. */
  withTranslations<P extends Post>(post: P, actor: Actor | null | undefined): P {
    if (post.groupMembers) post.translations = post.groupMembers.filter((member) => this.readPolicy.canSeePost(actor, member)).map(({ id, locale }) => ({ id, locale }));
    return post;
  }

  /** The posts' table, for another feature's statement that joins a post into its rows (a comment with its post). */
  get table(): EntityTable<Post> {
    return this.posts.table;
  }

  /** A row whatever its state: callers apply `canSee` (loaders stay shareable between readers). */
  findById(id: number, executor?: Executor): Promise<Post | null> {
    return this.posts.findById(id, executor);
  }

  /** Whether a post exists, whatever its state and whoever asks (after a write the foreign key refused). */
  exists(id: number): Promise<boolean> {
    return this.posts.exists(id);
  }

  canSee(actor: Actor | null | undefined, post: Post): boolean {
    return this.readPolicy.canSeePost(actor, post);
  }

  /** The post if the caller may see it (or holds a preview token that opens it); 404 otherwise (never 403: a non-public post does not exist for them). */
  async get(id: number, actor: Actor | null | undefined, preview?: string): Promise<Post> {
    const post = await this.findById(id);
    if (post && (this.readPolicy.canSeePost(actor, post) || (preview !== undefined && (await this.previews.opens(post, preview))))) return post;
    throw DomainError.notFound('Post', id);
  }

  /** GraphQL `post(id, slug, preview)`: exactly one of id and slug (BAD_USER_INPUT otherwise), a preview token of at most 100 characters. */
  lookupOf(id: number | undefined, slug: string | undefined, preview: string | undefined): { id?: number; slug?: string; preview?: string } {
    if ((id === undefined) === (slug === undefined)) {
      throw DomainError.badInput('post takes exactly one of id and slug', [{ field: id === undefined ? 'id' : 'slug', message: 'give exactly one of id and slug' }]);
    }
    if (slug !== undefined && (slug.length > 120 || !SLUG.test(slug))) {
      throw DomainError.badInput('slug must be 1-120 characters of a-z, 0-9 and single "-"', [{ field: 'slug', message: 'is not a slug' }]);
    }
    if (preview !== undefined && preview.length > 100) throw DomainError.badInput('preview must be one preview token', [{ field: 'preview', message: 'must be one preview token' }]);
    return { id, slug, preview };
  }

  /** The post that has or had this slug, whatever its state (callers apply the read policy). */
  idOfSlug(slug: string): Promise<number | null> {
    return this.slugs.postIdOf(slug);
  }

  /** Whether a preview token opens this post now. */
  previewOpens(post: Post, token: string): Promise<boolean> {
    return this.previews.opens(post, token);
  }

  /** 404 unless the post exists and the caller may see it; reads only what the policy needs. */
  async assertVisible(id: number, actor: Actor | null | undefined): Promise<void> {
    const post = await this.posts.visibilityOf(id);
    if (!post || !this.readPolicy.canSeePost(actor, post)) throw DomainError.notFound('Post', id);
  }

  // --- Writes: one path for every change ---------------------------------------------------------

  /** A new post (published at once unless a status says otherwise), its revision 1 and its event, in one transaction. */
  async create(input: CreatePostDto, actor: Actor | null): Promise<Post> {
    const who = this.policy.authorize(actor, 'posts.write', actor?.id);
    if (input.authorId !== undefined && input.authorId !== who.id) this.policy.authorize(who, 'posts.setAuthor');
    const authorId = input.authorId ?? who.id;
    const status = input.status ?? 'published';
    this.assertMayPublish(who, status);
    const now = new Date();
    const publishAt = publishAtOf(status, input.publishAt, null, now);
    const locale = input.locale === undefined ? this.config.defaultLocale : this.localeOf(input.locale);
    const translationOf = typeof input.translationOf === 'object' ? input.translationOf.postId : input.translationOf;
    const recorded: BlogEvent[] = [];
    await this.renderer.prepare(input.bodyFormat ?? 'plain');
    const post = await this.transactions
      .run(async (manager) => {
        recorded.length = 0;
        const group = translationOf === undefined ? undefined : await this.groupToJoin(translationOf, who, manager);
        const publishedAt = status === 'published' ? now : null;
        const bodyFormat = input.bodyFormat ?? 'plain';
        const slug = await this.slugs.proposeFor(input.title, input.slug, manager);
        if (input.coverImageId != null) await this.media.checkCover(input.coverImageId, who, manager);
        const { bodyMedia, ...rendered } = await this.rendered(input.body, bodyFormat, input.excerpt ?? null, who, manager);
        const values = {
          title: input.title,
          slug,
          body: input.body,
          bodyFormat,
          ...rendered,
          metaTitle: input.metaTitle ?? null,
          metaDescription: input.metaDescription ?? null,
          canonicalUrl: input.canonicalUrl ?? null,
          coverImageId: input.coverImageId ?? null,
          locale,
          translationGroupId: group?.id,
          groupPublishedAt: earliest(group?.publishedAt ?? null, publishedAt),
          authorId,
          status,
          publishAt,
          publishedAt,
          trashedAt: null,
          createdAt: now,
        };
        // The common post (its own group, no tags, no media in its body, a slug to claim, one
        // event): one statement writes it, claims its slug and, if the claim holds, records it
        // (PostgreSQL; the order of two events in one WITH would be the database's to choose).
        if (this.posts.insertsClaiming && !group && bodyMedia.length === 0 && (input.tags ?? []).length === 0 && slug !== '' && status !== 'in_review') {
          // The post as its row reads back, but for its id: what its entry and events carry.
          const expected = Object.assign(new Post(), values, { id: 0, version: 1, updatedAt: now, tags: [], tagIds: [] });
          const companions = [
            this.revisions.firstFrom(who.id),
            this.audit.created<Post>(who, 'posts.create', 'post', this.createdChanges(expected, input)),
            ...this.createdEvents(expected).map((made) => this.events.createdAs<Post>(made)),
          ];
          const { post: inserted, claimed } = await this.posts.insertClaiming(values, companions, manager);
          if (claimed) {
            const created = Object.assign(inserted, { tags: [], tagIds: [] });
            if (this.config.supportedLocales.length > 1) created.groupMembers = [];
            recorded.push(...this.createdEvents(created));
            return created;
          }
          // Taken meanwhile: the post has its row alone, and is recorded as any other.
          return this.recordCreated(inserted, input, slug, who, bodyMedia, undefined, recorded, manager);
        }
        const created = await this.posts.insert(values, manager);
        // The group's first publication: its other posts take their place in the lists from it.
        if (group && publishedAt && earliest(group.publishedAt, publishedAt) === publishedAt) await this.posts.placeGroup(group.id, publishedAt, created.id, manager);
        return this.recordCreated(created, input, slug, who, bodyMedia, group, recorded, manager);
      })
      .catch((error: unknown) => {
        if (isTranslationConflict(error)) throw translationConflict(locale);
        if (authorId !== who.id && isForeignKeyViolation(error)) {
          throw DomainError.badInput(`authorId ${authorId} is not a user`, [{ field: 'authorId', message: `authorId ${authorId} is not a user` }]);
        }
        throw error;
      });
    this.events.committed(recorded);
    return post;
  }

  /** What `create` writes after a post's row, in its transaction: its slug's claim, body media, tags, revision 1, audit entry and events (into `recorded`). */
  private async recordCreated(
    created: Post,
    input: CreatePostDto,
    slug: string,
    who: Actor,
    bodyMedia: readonly number[],
    group: { id: number } | undefined,
    recorded: BlogEvent[],
    manager: Executor,
  ): Promise<Post> {
    created.slug = await this.slugs.claimFor(created.id, slug, input.title, input.slug, manager);
    if (bodyMedia.length > 0) await this.media.recordBodyMedia(created.id, bodyMedia, manager);
    const tags = await this.tags.assignToPost(created, input.tags ?? [], manager, { replace: false, writer: who });
    Object.assign(created, tags);
    if (created.status === 'published' && tags.tags.length > 0) await this.tags.announceTagsOf(created.id, manager);
    await this.revisions.recordFirst(created, who.id, manager);
    await this.audit.record(manager, who, { action: 'posts.create', resource: { type: 'post', id: created.id }, changes: this.createdChanges(created, input) });
    // Its translations, for the answer's links: a post of a group of its own has none.
    if (this.config.supportedLocales.length > 1) created.groupMembers = group ? await this.posts.groupMembersOf(created.id, manager) : [];
    recorded.push(...this.createdEvents(created));
    await this.events.record(manager, ...recorded);
    return created;
  }

  /** The changes of a new post's audit entry: its fields, its body by revision 1, its tags and its excerpt when given. */
  private createdChanges(created: Post, input: CreatePostDto): AuditChanges {
    const changes = changesOf(null, created, AUDITED_FIELDS);
    changes.body = { from: null, to: { revision: 1 } };
    if (created.tags && created.tags.length > 0) changes.tags = { from: null, to: created.tags };
    if (input.excerpt != null) changes.excerpt = { from: null, to: input.excerpt };
    return changes;
  }

  /** A new post's events: POST_CREATED, and POST_SUBMITTED for one in review. */
  private createdEvents(created: Post): BlogEvent[] {
    const made: BlogEvent[] = [event('postCreated', created, this.readPolicy.audienceOf(created))];
    if (created.status === 'in_review') made.push(event('postSubmitted', created, this.readPolicy.reviewAudienceOf(created)));
    return made;
  }

  /** PATCH: title, body, status (publish, unpublish, schedule, restore from the trash), publishAt, or a revision's content. */
  async update(id: number, input: UpdatePostDto, actor: Actor | null, options: WriteOptions = {}): Promise<Post> {
    const who = this.policy.requireActor(actor);
    const recorded: BlogEvent[] = [];
    // The format may be the post's own, known only in the transaction: all of it then.
    if (input.body !== undefined || input.bodyFormat !== undefined || input.excerpt !== undefined || input.revision !== undefined) await this.renderer.prepare(input.bodyFormat);
    const post = await this.transactions.run(async (manager) => {
      recorded.length = 0;
      const current = await this.writable(id, who, manager);
      const { title, body, bodyFormat, slug, excerpt, metaTitle, metaDescription, canonicalUrl, status: newStatus } = input;
      const locale = input.locale === undefined ? undefined : this.localeOf(input.locale, current.locale);
      const change: PostChange = { title, body, bodyFormat, slug, excerpt, metaTitle, metaDescription, canonicalUrl, coverImageId: input.coverImageId, status: newStatus, locale };
      if (input.coverImageId != null && input.coverImageId !== current.coverImageId) await this.media.checkCover(input.coverImageId, who, manager);
      if (input.revision !== undefined) {
        if (input.title !== undefined || input.body !== undefined) {
          throw DomainError.badInput('revision restores a title and body: give it without title or body', [{ field: 'revision', message: 'cannot be combined with title or body' }]);
        }
        const revision = await this.revisions.contentOf(id, input.revision, manager);
        change.title = revision.title;
        change.body = revision.body;
      }
      const status = input.status ?? current.status;
      if (input.status !== undefined || (input.publishAt !== undefined && status === 'scheduled')) this.assertMayPublish(who, status);
      if (input.status !== undefined || input.publishAt !== undefined) {
        const kept = current.status === 'scheduled' || current.status === 'in_review' ? current.publishAt : null;
        change.publishAt = publishAtOf(status, input.publishAt, kept, new Date());
      }
      // New tags are a change of the post: apply bumps its version and records POST_UPDATED (tags have no revisions).
      const tagsBefore = await this.tags.tagsOfPost(id, manager);
      change.tags = input.tags === undefined ? tagsBefore : await this.tags.assignToPost({ id, authorId: current.authorId, status }, input.tags, manager, { replace: true, writer: who });
      const updated = await this.apply(current, change, who, manager, recorded, options.expectedVersion, undefined, tagsBefore.tags);
      // Its translations, for the answer's links: read only when it has some.
      if (this.config.supportedLocales.length > 1) updated.groupMembers = current.sharesGroup ? await this.posts.groupMembersOf(id, manager) : [];
      return updated;
    }).catch((error: unknown) => {
      if (isTranslationConflict(error) && input.locale !== undefined) throw translationConflict(this.localeOf(input.locale));
      throw error;
    });
    this.events.committed(recorded);
    return post;
  }

  /** DELETE: a post not in the trash moves there; a trashed one is deleted for good. */
  async delete(id: number, actor: Actor | null): Promise<void> {
    const who = this.policy.requireActor(actor);
    const recorded: BlogEvent[] = [];
    await this.transactions.run(async (manager) => {
      recorded.length = 0;
      const current = await this.writable(id, who, manager);
      if (current.status === 'trashed') await this.deleteForGood(current, who, manager, recorded);
      else await this.apply(current, { status: 'trashed', publishAt: null }, who, manager, recorded);
    });
    this.events.committed(recorded);
  }

  /**
   * A reviewer's decision on a post in review (CONTRACT §16), through the one write path: `approve`
   * publishes it (schedules it when its publishAt is still in the future), `request_changes` returns
   * it to draft; the decision is recorded with POST_REVIEWED (its author and the reviewers only).
   * 404 when the caller may not see the post, 403 unless they may review, 409 when it is not in review.
   */
  async review(id: number, decision: ReviewDecision, note: string | null, actor: Actor | null): Promise<PostReview> {
    const who = this.policy.requireActor(actor);
    const recorded: BlogEvent[] = [];
    const review = await this.transactions.run(async (manager) => {
      recorded.length = 0;
      const current = await this.posts.findForUpdate(id, manager);
      if (!current || !this.readPolicy.canSeePost(who, current)) throw DomainError.notFound('Post', id);
      this.policy.authorize(who, 'posts.review');
      if (current.status !== 'in_review') throw DomainError.conflict(`Post ${id} is not in review (its status is "${current.status}")`);
      const now = new Date();
      let change: PostChange = { status: 'draft', publishAt: null };
      if (decision === 'approve') {
        const due = current.publishAt;
        change = due && due.getTime() > now.getTime() ? { status: 'scheduled', publishAt: due } : { status: 'published', publishAt: null };
      }
      const updated = await this.apply(current, change, who, manager, recorded, undefined, { action: 'posts.review', changes: { decision: { from: null, to: decision }, ...(note === null ? {} : { note: { from: null, to: note } }) } });
      const made = await this.reviews.insert({ postId: id, reviewerId: who.id, decision, note, createdAt: now }, manager);
      const reviewed = event('postReviewed', updated, this.readPolicy.reviewAudienceOf(updated));
      recorded.push(reviewed);
      await this.events.record(manager, reviewed);
      return made;
    });
    this.events.committed(recorded);
    return review;
  }

  /**
   * Publishes the scheduled posts due at `now` (at most `limit`), each through the one write path,
   * in one transaction that holds their rows: another instance passes over them (PostgreSQL's
   * SKIP LOCKED) and finds them published once it may read them. Returns how many.
   */
  async publishDue(now: Date, limit: number): Promise<number> {
    // The poll runs every second on every instance: most find nothing, with one read and no transaction.
    if (!(await this.posts.anyDue(now))) return 0;
    const published = await this.transactions.run(async (manager) => {
      const due = await this.posts.lockDue(now, limit, manager);
      for (const post of due) await this.apply(post, { status: 'published', publishAt: null, publishedAt: post.publishAt ?? now }, null, manager, []);
      return due.length;
    });
    if (published > 0) this.events.committed();
    return published;
  }

  /** Deletes for good (with their events) up to `limit` posts trashed before `before`; returns how many. */
  async purgeTrash(before: Date, limit: number): Promise<number> {
    let purged = 0;
    for (const id of await this.posts.trashedBefore(before, limit)) {
      const gone = await this.transactions.run(async (manager) => {
        const current = await this.posts.findForUpdate(id, manager);
        if (!current || current.status !== 'trashed' || !current.trashedAt || current.trashedAt >= before) return false;
        await this.deleteForGood(current, SYSTEM, manager, []);
        return true;
      });
      if (gone) purged += 1;
    }
    if (purged > 0) this.events.committed();
    return purged;
  }

  /** The group a translation of `postId` joins; 404 when there is no such post the writer may see (the same answer for both). */
  private async groupToJoin(postId: number, who: Actor, manager: Executor): Promise<{ id: number; publishedAt: Date | null }> {
    const source = await this.posts.translationSourceOf(postId, manager);
    if (!source || !this.readPolicy.canSeePost(who, source)) throw DomainError.notFound('Post', postId);
    return { id: source.groupId, publishedAt: source.groupPublishedAt };
  }

  /**
   * Under POSTS_REVIEW=required, publishing or scheduling (a post written, or a PATCH naming that
   * status or a new publishAt of a scheduled post) is for those who may publish without review
   * (posts.publish); others are 403 and submit with `in_review` (posts.submit). With `off`, whoever
   * may change a post publishes it.
   */
  private assertMayPublish(who: Actor, status: PostStatus): void {
    if (status === 'in_review') this.policy.authorize(who, 'posts.submit', who.id);
    if ((status === 'published' || status === 'scheduled') && this.config.postsReview === 'required') this.policy.authorize(who, 'posts.publish');
  }

  /** The post, locked for the write; 404 when the caller may not see it, 403 when they may see but not change it. */
  private async writable(id: number, who: Actor, manager: Executor): Promise<Post> {
    const current = await this.posts.findForUpdate(id, manager);
    if (!current || !this.readPolicy.canSeePost(who, current)) throw DomainError.notFound('Post', id);
    this.policy.authorize(who, 'posts.edit', current.authorId);
    return current;
  }

  /**
   * The one write path of a post that stays: applies the change (bumping the version), records a
   * revision when the title, body or status changed (editor null: the scheduler), records the
   * media its body shows when the body is rendered again (those the editor may see), sets
   * publishedAt the first time it is published and trashedAt while in the trash, and records its
   * events with their audiences: public readers hear POST_PUBLISHED when it becomes public and
   * POST_UNPUBLISHED (ids only) when it stops being public; POST_UPDATED goes to whoever sees it
   * after the change (not sent on publication, which POST_PUBLISHED announces with the post).
   * The events go into `recorded` too (the response cache drops what they touch).
   */
  private async apply(
    current: Post,
    change: PostChange,
    editor: Actor | null,
    manager: Executor,
    recorded: BlogEvent[],
    expectedVersion?: number,
    auditAs?: AuditAs,
    tagsBefore?: readonly string[],
  ): Promise<Post> {
    const status = change.status ?? current.status;
    const values: Partial<Post> = {};
    if (change.title !== undefined && change.title !== current.title) values.title = change.title;
    if (change.body !== undefined && change.body !== current.body) values.body = change.body;
    if (change.publishAt !== undefined && change.publishAt?.getTime() !== current.publishAt?.getTime()) values.publishAt = change.publishAt;
    for (const key of ['bodyFormat', 'metaTitle', 'metaDescription', 'canonicalUrl', 'coverImageId', 'locale'] as const) {
      if (change[key] !== undefined && change[key] !== current[key]) Object.assign(values, { [key]: change[key] });
    }
    let excerptBefore: string | null | undefined;
    if (values.body !== undefined || values.bodyFormat !== undefined || change.excerpt !== undefined) {
      // The excerpt given before: kept when none is given now, and shown in the audit entry when one is.
      excerptBefore = await this.posts.customExcerptOf(current.id, manager);
      const given = change.excerpt !== undefined ? change.excerpt : excerptBefore;
      const { bodyMedia, ...rendered } = await this.rendered(values.body ?? current.body, values.bodyFormat ?? current.bodyFormat, given, editor, manager);
      Object.assign(values, rendered);
      await this.media.recordBodyMedia(current.id, bodyMedia, manager);
    }
    if (change.slug !== undefined && change.slug !== current.slug) {
      values.slug = change.slug;
      await this.slugs.change(current.id, change.slug, manager);
    }
    if (status !== current.status) {
      values.status = status;
      if (status === 'published' && current.publishedAt === null) {
        values.publishedAt = change.publishedAt ?? new Date();
        await this.placeInGroup(current, values.publishedAt, values, manager);
      }
      if (status === 'trashed') values.trashedAt = new Date();
      if (current.status === 'trashed') values.trashedAt = null;
    }
    const updated = await this.posts.updateVersioned(current, values, expectedVersion, manager);
    if (change.tags !== undefined) Object.assign(updated, change.tags);
    const revision = values.title !== undefined || values.body !== undefined || values.status !== undefined ? await this.revisions.record(updated, editor?.id ?? null, manager) : undefined;
    await this.audit.record(manager, editor ?? SYSTEM, {
      action: auditAs?.action ?? postActionOf(current, updated),
      resource: { type: 'post', id: updated.id },
      changes: { ...this.changesOf(current, updated, values, revision?.number, excerptBefore, change.excerpt, tagsBefore, change.tags?.tags), ...auditAs?.changes },
    });
    const wasPublic = current.status === 'published';
    const isPublic = updated.status === 'published';
    // Its earlier public events, and its comments', leave the public log (CONTRACT §18).
    if (wasPublic && !isPublic) await this.events.withdrawContent(manager, { postId: [updated.id] }, this.readPolicy.audienceOf(updated));
    // Tags that only non-public posts carried until now become public with it (the scheduler's change names no tags).
    if (isPublic && (updated.tags === undefined || updated.tags.length > 0)) await this.tags.announceTagsOf(updated.id, manager);
    const events: BlogEvent[] = [];
    if (!wasPublic && isPublic) events.push(event('postPublished', updated));
    else events.push(event('postUpdated', updated, this.readPolicy.audienceOf(updated)));
    if (wasPublic && !isPublic) events.push(event('postUnpublished', { id: updated.id, authorId: updated.authorId }));
    if (values.status === 'in_review') events.push(event('postSubmitted', updated, this.readPolicy.reviewAudienceOf(updated)));
    recorded.push(...events);
    await this.events.record(manager, ...events);
    return updated;
  }

  /** What a change to a post changed, for its audit entry: its fields, its body by revision number, its excerpt and tags when given. */
  private changesOf(
    current: Post,
    updated: Post,
    values: Partial<Post>,
    revision: number | undefined,
    excerptBefore: string | null | undefined,
    excerpt: string | null | undefined,
    tagsBefore: readonly string[] | undefined,
    tags: readonly string[] | undefined,
  ): AuditChanges {
    const changes = changesOf(current, updated, AUDITED_FIELDS);
    if (values.body !== undefined && revision !== undefined) changes.body = { from: { revision: revision - 1 }, to: { revision } };
    if (excerpt !== undefined && excerpt !== excerptBefore) changes.excerpt = { from: excerptBefore ?? null, to: excerpt };
    if (tagsBefore && tags && tagsBefore.join(',') !== tags.join(',')) changes.tags = { from: tagsBefore, to: tags };
    return changes;
  }

  /**
   * A post's first publication places its group in the lists (CONTRACT §15) unless another post
   * of the group was published before: the post's own group_published_at is set with its update,
   * the others' (when it shares its group) by one more statement.
   */
  private async placeInGroup(current: Post, publishedAt: Date, values: Partial<Post>, manager: Executor): Promise<void> {
    // Unknown for a post not read for a write (findForUpdate, lockDue): never the case.
    const groupTime = current.groupPublishedAt ?? null;
    if (earliest(groupTime, publishedAt) !== publishedAt || groupTime?.getTime() === publishedAt.getTime()) return;
    values.groupPublishedAt = publishedAt;
    if (current.sharesGroup) await this.posts.placeGroup(current.translationGroupId ?? current.id, publishedAt, current.id, manager);
  }

  /**
   * What is stored beside a body: its rendering, excerpt (the given one, else derived) and
   * reading time; and the media it shows that the writer may see (`bodyMedia`, rendered with
   * the variants they will have, made or not yet; others stay as written, so a body cannot make
   * another's private image public).
   */
  private async rendered(
    body: string,
    format: Post['bodyFormat'],
    givenExcerpt: string | null,
    writer: Actor | null,
    manager: Executor,
  ): Promise<Pick<Post, 'bodyHtml' | 'excerpt' | 'customExcerpt' | 'readingTimeMinutes'> & { bodyMedia: number[] }> {
    const ids = await this.renderer.mediaIdsOf(body, format);
    const usable = writer && ids.length > 0 ? await this.media.usableIn(ids, writer, manager) : new Map<number, Media>();
    const rendered = await this.renderer.renderPost(body, format, (id) => {
      const media = usable.get(id);
      return media && { width: media.width, height: media.height, alt: media.alt, variants: this.media.plannedVariants(media) };
    });
    return {
      bodyMedia: [...usable.keys()].sort((a, b) => a - b),
      bodyHtml: rendered.bodyHtml,
      excerpt: givenExcerpt ?? this.renderer.excerptOf(rendered),
      customExcerpt: givenExcerpt,
      readingTimeMinutes: rendered.readingTimeMinutes,
    };
  }

  /** Deletes a post for good, its comments by cascade, with their events (audience: each comment and the post as they were). */
  private async deleteForGood(current: Post, who: Actor | typeof SYSTEM, manager: Executor, recorded: BlogEvent[]): Promise<void> {
    const comments = await this.posts.cascadedComments(current.id, manager);
    // Two deletes that both read the row: only the one whose DELETE removed it succeeds.
    if (!(await this.posts.delete(current.id, manager))) throw DomainError.notFound('Post', current.id);
    await this.audit.record(manager, who, { action: 'posts.delete', resource: { type: 'post', id: current.id }, changes: changesOf(current, null, ['title', 'status', 'authorId']) });
    await this.audit.eraseContent(manager, { posts: [current.id], comments: comments.map((comment) => comment.id) });
    await this.events.eraseContent(manager, { postId: [current.id] });
    const events = [
      ...comments.map((comment) =>
        event('commentDeleted', { id: comment.id, postId: comment.postId, authorId: comment.authorId }, this.readPolicy.commentAudienceOf(comment, current)),
      ),
      // Public whatever the state (CONTRACT §7): ids only, and whoever kept the post must drop it.
      event('postDeleted', { id: current.id, authorId: current.authorId }),
    ];
    recorded.push(...events);
    await this.events.record(manager, ...events);
  }
}

/** The earlier of two times, null when neither is known. */
function earliest(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return b.getTime() < a.getTime() ? b : a;
}
