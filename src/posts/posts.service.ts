import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { type PostStatus, ReadPolicy } from '../auth/read-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import { isForeignKeyViolation } from '../common/errors/normalize-error.js';
import type { Page, PageRequest } from '../common/pagination/cursor.js';
import { parseTextQuery } from '../common/persistence/text-search.js';
import type { LimitState } from '../common/rate-limit/rate-limit-headers.js';
import { SearchLimiter } from '../common/rate-limit/search-limiter.js';
import { AppConfig } from '../config/app-config.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import type { Executor } from '../common/persistence/sql.js';
import type { WriteOptions } from '../common/persistence/write-options.js';
import { type BlogEvent, event } from '../events/blog-events.js';
import { EventPublisher } from '../events/event-publisher.js';
import { type PostTags, TagsService } from '../tags/tags.service.js';
import { UsersService } from '../users/users.service.js';
import type { CreatePostDto } from './dto/create-post.dto.js';
import type { UpdatePostDto } from './dto/update-post.dto.js';
import type { Post } from './post.entity.js';
import type { PostRevision } from './post-revision.entity.js';
import { PostRevisionsRepository } from './post-revisions.repository.js';
import { decodePostCursor, encodePostCursor, listFingerprint, orderPlan, type PostSort } from './post-order.js';
import { type PostFilter, PostsRepository } from './posts.repository.js';

/** What GET /posts and Query.posts filter and order by besides the scope (CONTRACT §8). */
export interface PostFinding {
  /** Tag slugs: posts with every one. */
  tags?: readonly string[];
  /** A full-text search. */
  q?: string;
  /** Published at or after (inclusive). */
  publishedAfter?: Date;
  /** Published before (exclusive). */
  publishedBefore?: Date;
  sort?: PostSort;
}

/** The names the caller gave the parameters (REST `q`, `sort`, `cursor`; GraphQL `search`, `orderBy`, `after`), for errors. */
export interface PostFindingFields {
  q: string;
  sort: string;
  cursor: string;
}

/** How a search hit ranks (higher: more relevant) and the plain text around its first match. */
export interface SearchResult {
  rank: number;
  snippet: string;
}

/** A page of a filtered list; `search`: each post's rank and snippet when it is a search. */
export interface PostPage extends Page<Post> {
  search?: Map<number, SearchResult>;
  /** Where the caller's search budget stands after this search (RATE_LIMIT_SEARCH_MAX; none when off or when nothing was searched). */
  searchBudget?: LimitState;
}

/** The longest snippet, in characters (CONTRACT §8). */
const SNIPPET_MAX = 200;

export interface PostListRequest extends PageRequest {
  authorId?: number;
  /** A non-public state: the posts of it the caller may see (their own; an admin's: all). */
  status?: PostStatus;
}

/** What a list shows, once the read policy has been applied to the caller (see PostsService.scope). */
export interface PostListScope {
  authorId?: number;
  status?: PostStatus;
  /** With `status`: only this owner's posts (the caller, unless they read all). */
  ownerId?: number;
}

/** A change to a post, as the one write path takes it (a PATCH, a restore, the schedule, the trash). */
interface PostChange {
  title?: string;
  body?: string;
  status?: PostStatus;
  publishAt?: Date | null;
  /** For a scheduled publication: the time it was due, not the time it ran. */
  publishedAt?: Date;
  /** Its tags as they now are (set in the same transaction), shown in its events. */
  tags?: PostTags;
}

@Injectable()
export class PostsService {
  constructor(
    private readonly posts: PostsRepository,
    private readonly revisions: PostRevisionsRepository,
    private readonly users: UsersService,
    private readonly policy: AuthorizationPolicy,
    private readonly readPolicy: ReadPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
    private readonly tags: TagsService,
    private readonly searches: SearchLimiter,
    private readonly config: AppConfig,
  ) {}

  /**
   * The read policy turned into a list's filter: the public posts, or (with a non-public
   * `status`) the caller's own of that state, or every one of it for those who read all.
   * Anonymous callers asking for a non-public state get 401; `published` is the public list.
   */
  scope(actor: Actor | null | undefined, filter: { authorId?: number; status?: PostStatus }): PostListScope {
    if (filter.status === undefined || filter.status === 'published') return { authorId: filter.authorId };
    const who = this.policy.requireSignedIn(actor);
    // A read key reads what anonymous callers read: none of its user's non-public posts.
    const reader = this.readPolicy.reader(who);
    if (!reader) return { status: filter.status, authorId: filter.authorId, ownerId: -1 };
    const ownerId = this.readPolicy.readsAll(reader) ? filter.authorId : reader.id;
    // Another author's drafts: nothing the caller may see (an empty list, not an error).
    if (filter.authorId !== undefined && ownerId !== filter.authorId) return { status: filter.status, authorId: filter.authorId, ownerId: -1 };
    return { status: filter.status, ownerId };
  }

  /**
   * Public posts newest publication first, keyset on (published_at, id) (an id-only cursor of
   * before is taken: it pages after that post); a non-public state newest first by id (a time
   * cursor pages after its id).
   */
  async list(scope: PostListScope, request: PageRequest): Promise<Page<Post>> {
    if (scope.status === undefined) return this.posts.publicPage(request, scope.authorId);
    return this.posts.statusPage(scope.status, request, scope.ownerId);
  }

  /** Whether a finding is the plain list (no filter past authorId and status, newest first): `list` serves it, as it always has. */
  isPlainList(finding: PostFinding): boolean {
    return (finding.tags?.length ?? 0) === 0 && finding.q === undefined && finding.publishedAfter === undefined && finding.publishedBefore === undefined && (finding.sort ?? '-publishedAt') === '-publishedAt';
  }

  /**
   * A filtered, sorted or searched list within the scope, keyset-paged in its order: the cursor
   * carries the order's key and the id, and names the order and filters it was issued for
   * (another list refuses it, 400). `relevance` (the default with a search) needs a search. A
   * search counts against the budget of `clientAddress` once its input is known to be good.
   */
  async find(scope: PostListScope, finding: PostFinding, request: { limit: number; cursor?: string }, fields: PostFindingFields, clientAddress: string): Promise<PostPage> {
    const filter = this.filterOf(scope, finding);
    const sort = finding.sort ?? (finding.q !== undefined ? 'relevance' : '-publishedAt');
    if (sort === 'relevance' && finding.q === undefined) {
      throw DomainError.badInput(`${fields.sort} relevance orders a search: give ${fields.q} too`, [{ field: fields.sort, message: `relevance needs ${fields.q}` }]);
    }
    const plan = orderPlan(sort, scope.status === undefined);
    const fingerprint = listFingerprint({
      q: finding.q ?? null,
      tags: [...new Set(finding.tags ?? [])].sort(),
      status: scope.status ?? null,
      authorId: (scope.status === undefined ? scope.authorId : scope.ownerId) ?? null,
      after: finding.publishedAfter?.getTime() ?? null,
      before: finding.publishedBefore?.getTime() ?? null,
    });
    const after = request.cursor === undefined ? undefined : decodePostCursor(request.cursor, plan, fingerprint, fields.cursor);
    if (!filter) return { items: [], nextCursor: null, search: new Map() };
    const searchBudget = filter.search ? await this.searches.count(clientAddress) : null;
    const hits = await this.posts.findPage(filter, plan, request.limit + 1, after);
    const cursorOf = (post: Post) => {
      const key = plan.key === 'id' ? null : plan.key === 'title' ? post.title : plan.key === 'rank' ? (search.get(post.id)?.rank ?? 0) : plan.column === 't.updated_at' ? post.updatedAt : post.publishedAt;
      return encodePostCursor(sort, fingerprint, post.id, key);
    };
    const search = new Map<number, SearchResult>();
    for (const hit of hits) if (hit.rank !== null) search.set(hit.post.id, { rank: hit.rank, snippet: [...(hit.snippet ?? '')].slice(0, SNIPPET_MAX).join('') });
    const items = hits.slice(0, request.limit).map((hit) => hit.post);
    const hasMore = hits.length > request.limit;
    return {
      items,
      nextCursor: hasMore ? cursorOf(items[items.length - 1]) : null,
      cursorOf,
      // A cursor was issued for a post of this list: posts came before it.
      ...(after !== undefined ? { hasPrevious: () => Promise.resolve(true) } : {}),
      ...(filter.search ? { search } : {}),
      ...(searchBudget ? { searchBudget } : {}),
    };
  }

  /** How many posts a filtered list holds. */
  async countFound(scope: PostListScope, finding: PostFinding): Promise<number> {
    const filter = this.filterOf(scope, finding);
    return filter ? this.posts.countMatching(filter) : 0;
  }

  /** The repository's filter; null for a search that has no word to find (it finds nothing). */
  private filterOf(scope: PostListScope, finding: PostFinding): PostFilter | null {
    // A search with no word to find (empty, punctuation, only exclusions) finds nothing.
    const search = finding.q === undefined ? null : parseTextQuery(finding.q, this.config.searchMaxTerms);
    if (finding.q !== undefined && !search) return null;
    return {
      status: scope.status,
      authorId: scope.status === undefined ? scope.authorId : scope.ownerId,
      tags: [...new Set(finding.tags ?? [])].sort(),
      search,
      publishedAfter: finding.publishedAfter,
      publishedBefore: finding.publishedBefore,
    };
  }

  /** A user's posts (public, or of one state for their author and admins); 404 when the user does not exist. */
  async listForAuthor(authorId: number, request: PageRequest, actor: Actor | null, status?: PostStatus): Promise<Page<Post>> {
    const scope = this.scope(actor, { authorId, status });
    if (!(await this.users.exists(authorId))) throw DomainError.notFound('User', authorId);
    return this.list(scope, request);
  }

  /** How many posts a list of this scope holds. */
  count(scope: PostListScope): Promise<number> {
    return this.posts.countVisible({ status: scope.status, authorId: scope.status === undefined ? scope.authorId : scope.ownerId });
  }

  /** A row whatever its state: callers apply `canSee` (loaders stay shareable between readers). */
  findById(id: number): Promise<Post | null> {
    return this.posts.findById(id);
  }

  canSee(actor: Actor | null | undefined, post: Post): boolean {
    return this.readPolicy.canSeePost(actor, post);
  }

  /** The post if the caller may see it; 404 otherwise (never 403: a non-public post does not exist for them). */
  async get(id: number, actor: Actor | null | undefined): Promise<Post> {
    const post = await this.findById(id);
    if (!post || !this.readPolicy.canSeePost(actor, post)) throw DomainError.notFound('Post', id);
    return post;
  }

  /** 404 unless the post exists and the caller may see it; reads only what the policy needs. */
  async assertVisible(id: number, actor: Actor | null | undefined): Promise<void> {
    const post = await this.posts.visibilityOf(id);
    if (!post || !this.readPolicy.canSeePost(actor, post)) throw DomainError.notFound('Post', id);
  }

  /**
   * For batching: the posts with these ids, in no particular order, whatever their state. With
   * `withAuthors`, each post's author is joined in (`post.author`).
   */
  findByIds(ids: readonly number[], options: { withAuthors?: boolean } = {}): Promise<Post[]> {
    return this.posts.findByIds(ids, options.withAuthors ? this.posts.withAuthor : undefined);
  }

  /** For batching (User.posts): the first public posts of each of these authors, in one statement. */
  listForAuthors(authorIds: readonly number[], limit: number): Promise<Map<number, Post[]>> {
    return this.posts.publicPagesFor(authorIds, limit);
  }

  // --- Revisions ---------------------------------------------------------------------------------

  /** A post's revisions, newest first: for its author and admins; 404 for everyone else. */
  async listRevisions(postId: number, request: PageRequest, actor: Actor | null | undefined): Promise<Page<PostRevision>> {
    await this.revisionsOf(postId, actor);
    return this.revisions.page(postId, request);
  }

  async getRevision(postId: number, number: number, actor: Actor | null | undefined): Promise<PostRevision> {
    await this.revisionsOf(postId, actor);
    const revision = await this.revisions.find(postId, number);
    if (!revision) throw DomainError.notFound('Revision', number);
    return revision;
  }

  canSeeRevisions(actor: Actor | null | undefined, post: Post): boolean {
    return this.readPolicy.canSeeRevisions(actor, post);
  }

  /** For batching (Post.revisions): the newest revisions of each of these posts, in one statement. */
  newestRevisions(postIds: readonly number[], limit: number): Promise<Map<number, PostRevision[]>> {
    return this.revisions.newestFor(postIds, limit);
  }

  private async revisionsOf(postId: number, actor: Actor | null | undefined): Promise<Post> {
    const post = await this.findById(postId);
    if (!post || !this.readPolicy.canSeeRevisions(actor, post)) throw DomainError.notFound('Post', postId);
    return post;
  }

  // --- Writes: one path for every change ---------------------------------------------------------

  /** A new post (published at once unless a status says otherwise), its revision 1 and its event, in one transaction. */
  async create(input: CreatePostDto, actor: Actor | null): Promise<Post> {
    const who = this.policy.authorize(actor, 'posts.write', actor?.id);
    if (input.authorId !== undefined && input.authorId !== who.id) this.policy.authorize(who, 'posts.setAuthor');
    const authorId = input.authorId ?? who.id;
    const status = input.status ?? 'published';
    const now = new Date();
    const publishAt = this.schedule(status, input.publishAt, null, now);
    const recorded: BlogEvent[] = [];
    const post = await this.transactions
      .run(async (manager) => {
        recorded.length = 0;
        const created = await this.posts.insert(
          { title: input.title, body: input.body, authorId, status, publishAt, publishedAt: status === 'published' ? now : null, trashedAt: null, createdAt: now },
          manager,
        );
        const tags = await this.tags.assignToPost(created, input.tags ?? [], manager, { replace: false, writer: who });
        Object.assign(created, tags);
        if (created.status === 'published' && tags.tags.length > 0) await this.tags.announceTagsOf(created.id, manager);
        await this.revisions.recordFirst(created, who.id, manager);
        recorded.push(event('postCreated', created, this.readPolicy.audienceOf(created)));
        await this.events.record(manager, ...recorded);
        return created;
      })
      .catch((error: unknown) => {
        if (authorId !== who.id && isForeignKeyViolation(error)) {
          throw DomainError.badInput(`authorId ${authorId} is not a user`, [{ field: 'authorId', message: `authorId ${authorId} is not a user` }]);
        }
        throw error;
      });
    this.events.committed(recorded);
    return post;
  }

  /** PATCH: title, body, status (publish, unpublish, schedule, restore from the trash), publishAt, or a revision's content. */
  async update(id: number, input: UpdatePostDto, actor: Actor | null, options: WriteOptions = {}): Promise<Post> {
    const who = this.policy.requireActor(actor);
    const recorded: BlogEvent[] = [];
    const post = await this.transactions.run(async (manager) => {
      recorded.length = 0;
      const current = await this.writable(id, who, manager);
      const change: PostChange = { title: input.title, body: input.body, status: input.status };
      if (input.revision !== undefined) {
        if (input.title !== undefined || input.body !== undefined) {
          throw DomainError.badInput('revision restores a title and body: give it without title or body', [{ field: 'revision', message: 'cannot be combined with title or body' }]);
        }
        const revision = await this.revisions.find(id, input.revision, manager);
        if (!revision) throw DomainError.badInput(`post ${id} has no revision ${input.revision}`, [{ field: 'revision', message: 'is not a revision of this post' }]);
        change.title = revision.title;
        change.body = revision.body;
      }
      const status = input.status ?? current.status;
      if (input.status !== undefined || input.publishAt !== undefined) {
        change.publishAt = this.schedule(status, input.publishAt, current.status === 'scheduled' ? current.publishAt : null, new Date());
      }
      // New tags are a change of the post: apply bumps its version and records POST_UPDATED (tags have no revisions).
      change.tags = input.tags === undefined ? await this.tags.tagsOfPost(id, manager) : await this.tags.assignToPost({ id, authorId: current.authorId, status }, input.tags, manager, { replace: true, writer: who });
      return this.apply(current, change, who.id, manager, recorded, options.expectedVersion);
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
      if (current.status === 'trashed') await this.deleteForGood(current, manager, recorded);
      else await this.apply(current, { status: 'trashed', publishAt: null }, who.id, manager, recorded);
    });
    this.events.committed(recorded);
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
        await this.deleteForGood(current, manager, []);
        return true;
      });
      if (gone) purged += 1;
    }
    if (purged > 0) this.events.committed();
    return purged;
  }

  /** The post, locked for the write; 404 when the caller may not see it, 403 when they may see but not change it. */
  private async writable(id: number, who: Actor, manager: Executor): Promise<Post> {
    const current = await this.posts.findForUpdate(id, manager);
    if (!current || !this.readPolicy.canSeePost(who, current)) throw DomainError.notFound('Post', id);
    this.policy.authorize(who, 'posts.edit', current.authorId);
    return current;
  }

  /**
   * publishAt as it is to be stored: only a scheduled post has one, in the future (given, or
   * the one it already had); given with any other status it is 400.
   */
  private schedule(status: PostStatus, given: Date | null | undefined, kept: Date | null, now: Date): Date | null {
    if (status === 'trashed') throw DomainError.badInput('status "trashed" is reached by DELETE', [{ field: 'status', message: 'must be "draft", "scheduled" or "published"' }]);
    if (status !== 'scheduled') {
      if (given != null) throw DomainError.badInput('publishAt is only taken with status "scheduled"', [{ field: 'publishAt', message: 'is only taken with status "scheduled"' }]);
      return null;
    }
    const publishAt = given ?? kept;
    if (!publishAt || publishAt.getTime() <= now.getTime()) {
      throw DomainError.badInput('status "scheduled" needs publishAt in the future', [{ field: 'publishAt', message: 'must be a date-time in the future' }]);
    }
    return publishAt;
  }

  /**
   * The one write path of a post that stays: applies the change (bumping the version), records a
   * revision when the title, body or status changed (editor null: the scheduler), sets
   * publishedAt the first time it is published and trashedAt while in the trash, and records its
   * events with their audiences: public readers hear POST_PUBLISHED when it becomes public and
   * POST_UNPUBLISHED (ids only) when it stops being public; POST_UPDATED goes to whoever sees it
   * after the change (not sent on publication, which POST_PUBLISHED announces with the post).
   * The events go into `recorded` too (the response cache drops what they touch).
   */
  private async apply(current: Post, change: PostChange, editorId: number | null, manager: Executor, recorded: BlogEvent[], expectedVersion?: number): Promise<Post> {
    const status = change.status ?? current.status;
    const values: Partial<Post> = {};
    if (change.title !== undefined && change.title !== current.title) values.title = change.title;
    if (change.body !== undefined && change.body !== current.body) values.body = change.body;
    if (change.publishAt !== undefined && change.publishAt?.getTime() !== current.publishAt?.getTime()) values.publishAt = change.publishAt;
    if (status !== current.status) {
      values.status = status;
      if (status === 'published' && current.publishedAt === null) values.publishedAt = change.publishedAt ?? new Date();
      if (status === 'trashed') values.trashedAt = new Date();
      if (current.status === 'trashed') values.trashedAt = null;
    }
    const updated = await this.posts.updateVersioned(current, values, expectedVersion, manager);
    if (change.tags !== undefined) Object.assign(updated, change.tags);
    if (values.title !== undefined || values.body !== undefined || values.status !== undefined) await this.revisions.record(updated, editorId, manager);
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
    recorded.push(...events);
    await this.events.record(manager, ...events);
    return updated;
  }

  /** Deletes a post for good, its comments by cascade, with their events (audience: each comment and the post as they were). */
  private async deleteForGood(current: Post, manager: Executor, recorded: BlogEvent[]): Promise<void> {
    const comments = await this.posts.cascadedComments(current.id, manager);
    // Two deletes that both read the row: only the one whose DELETE removed it succeeds.
    if (!(await this.posts.delete(current.id, manager))) throw DomainError.notFound('Post', current.id);
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
