import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { type PostStatus, ReadPolicy } from '../auth/read-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { Page, PageRequest } from '../common/pagination/cursor.js';
import { parseTextQuery } from '../common/persistence/text-search.js';
import type { LimitState } from '../common/rate-limit/rate-limit-headers.js';
import { SearchLimiter } from '../common/rate-limit/search-limiter.js';
import { AppConfig } from '../config/app-config.js';
import { type ListLocale, listLocale } from '../common/i18n/locale-lookup.js';
import { UsersService } from '../users/users.service.js';
import type { Post } from './post.entity.js';
import { decodePostCursor, encodePostCursor, listFingerprint, orderPlan, type PostSort } from './post-order.js';
import { type PostAddress, type PostFilter, PostsRepository } from './posts.repository.js';
import { PostSlugs } from './post-slugs.service.js';

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

/** What a list shows, once the read policy has been applied to the caller (see PostFinder.scope). */
export interface PostListScope {
  authorId?: number;
  status?: PostStatus;
  /** With `status`: only this owner's posts (the caller, unless they read all). */
  ownerId?: number;
  /** The list's language (CONTRACT §15); none with a single supported locale (no groups to choose in). */
  languages?: ListLocale;
}

/**
 * Every read of posts but the one by id: the lists (plain, filtered, sorted, searched), their
 * cursors and counts, and the batched reads of the GraphQL loaders. REST and GraphQL both read
 * here, so the two doors scope, validate and page alike.
 */
@Injectable()
export class PostFinder {
  constructor(
    private readonly posts: PostsRepository,
    private readonly users: UsersService,
    private readonly policy: AuthorizationPolicy,
    private readonly readPolicy: ReadPolicy,
    private readonly searches: SearchLimiter,
    private readonly config: AppConfig,
    private readonly slugs: PostSlugs,
  ) {}

  /**
   * The read policy turned into a list's filter: the public posts, or (with a non-public
   * `status`) the caller's own of that state, or every one of it for those who read all.
   * Anonymous callers asking for a non-public state get 401; `published` is the public list.
   */
  scope(actor: Actor | null | undefined, filter: { authorId?: number; status?: PostStatus }, languages?: ListLocale): PostListScope {
    const language = languages === undefined ? {} : { languages };
    if (filter.status === undefined || filter.status === 'published') return { authorId: filter.authorId, ...language };
    const who = this.policy.requireSignedIn(actor);
    // A read key reads what anonymous callers read: none of its user's non-public posts.
    const reader = this.readPolicy.reader(who);
    if (!reader) return { status: filter.status, authorId: filter.authorId, ownerId: -1, ...language };
    const ownerId = this.readPolicy.readsAll(reader) ? filter.authorId : reader.id;
    // Another author's drafts: nothing the caller may see (an empty list, not an error).
    if (filter.authorId !== undefined && ownerId !== filter.authorId) return { status: filter.status, authorId: filter.authorId, ownerId: -1, ...language };
    return { status: filter.status, ownerId, ...language };
  }

  /**
   * The language a list is shown in (CONTRACT §15): `?locale=` (GraphQL `locale:`; `*` for every
   * translation), else Accept-Language, else DEFAULT_LOCALE; 400 naming `field` for a locale not
   * supported. Undefined with a single supported locale: lists are of posts, as they were.
   */
  languagesOf(given: string | undefined, acceptLanguage: string | undefined, field = 'locale'): ListLocale | undefined {
    const chosen = listLocale(given, acceptLanguage, this.config);
    if (chosen === null) {
      const message = `${field} must be * or one of SUPPORTED_LOCALES: ${this.config.supportedLocales.join(', ')}`;
      throw DomainError.badInput(message, [{ field, message }]);
    }
    return this.config.supportedLocales.length > 1 ? chosen : undefined;
  }

  /**
   * Public posts newest publication first, keyset on (published_at, id) (an id-only cursor of
   * before is taken: it pages after that post); a non-public state newest first by id (a time
   * cursor pages after its id).
   */
  async list(scope: PostListScope, request: PageRequest): Promise<Page<Post>> {
    if (scope.status === undefined) return this.posts.publicPage(request, scope.authorId, scope.languages);
    return this.posts.statusPage(scope.status, request, scope.ownerId, scope.languages);
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
      ...(scope.languages ? { locale: scope.languages.locale } : {}),
    });
    const after = request.cursor === undefined ? undefined : decodePostCursor(request.cursor, plan, fingerprint, fields.cursor);
    if (!filter) return { items: [], nextCursor: null, search: new Map() };
    const searchBudget = filter.search ? await this.searches.count(clientAddress) : null;
    const hits = await this.posts.findPage(filter, plan, request.limit + 1, after);
    const cursorOf = (post: Post) => {
      const key = plan.key === 'id' ? null : plan.key === 'title' ? post.title : plan.key === 'rank' ? (search.get(post.id)?.rank ?? 0) : plan.column === 't.updated_at' ? post.updatedAt : (post.groupPublishedAt ?? post.publishedAt);
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
      ...(scope.languages ? { languages: scope.languages } : {}),
      publishedAfter: finding.publishedAfter,
      publishedBefore: finding.publishedBefore,
    };
  }

  /**
   * `?slug=`: the post that has or had the slug, if the caller may see it (a list of at most one;
   * its item carries the current slug). Other filters do not combine with it (400).
   */
  async bySlug(query: { slug?: string }, actor: Actor | null | undefined): Promise<Post[]> {
    const given = query as Record<string, unknown>;
    const others = Object.keys(given).filter((name) => name !== 'slug' && name !== 'limit' && given[name] !== undefined);
    if (others.length > 0) throw DomainError.badInput(`slug finds one post: give it without ${others.join(', ')}`, [{ field: 'slug', message: `cannot be combined with ${others.join(', ')}` }]);
    const id = await this.slugs.postIdOf(query.slug!);
    const post = id === null ? null : await this.posts.findById(id);
    return post && this.readPolicy.canSeePost(actor, post) ? [post] : [];
  }

  /** A user's posts (public, or of one state for their author and admins); 404 when the user does not exist. */
  async listForAuthor(authorId: number, request: PageRequest, actor: Actor | null, status?: PostStatus, languages?: ListLocale): Promise<Page<Post>> {
    const scope = this.scope(actor, { authorId, status }, languages);
    if (!(await this.users.exists(authorId))) throw DomainError.notFound('User', authorId);
    return this.list(scope, request);
  }

  /** For the sitemap: the addresses of public posts by id (no bodies), `limit` of them after the first `offset`. */
  publicAddresses(offset: number, limit: number): Promise<PostAddress[]> {
    return this.posts.publicAddresses(offset, limit);
  }

  /** For the sitemap's alternates: the public posts of the groups of that same page that have more than one, by group id. */
  publicTranslationsOfPage(offset: number, limit: number): Promise<Map<number, PostAddress[]>> {
    return this.posts.publicTranslationsOfPage(offset, limit);
  }

  /** How many posts a list of this scope holds. */
  count(scope: PostListScope): Promise<number> {
    return this.posts.countVisible({ status: scope.status, authorId: scope.status === undefined ? scope.authorId : scope.ownerId, languages: scope.languages });
  }

  /**
   * For batching: the posts with these ids, in no particular order, whatever their state (callers
   * apply PostsService.canSee). With `withAuthors`, each post's author is joined in (`post.author`).
   */
  findByIds(ids: readonly number[], options: { withAuthors?: boolean } = {}): Promise<Post[]> {
    return this.posts.findByIds(ids, options.withAuthors ? this.posts.withAuthor : undefined);
  }

  /** For batching (User.posts): the first public posts of each of these authors, in one statement. */
  listForAuthors(authorIds: readonly number[], limit: number): Promise<Map<number, Post[]>> {
    return this.posts.publicPagesFor(authorIds, limit);
  }

  /** For batching (Tag.posts): the newest public posts of each tag, in one statement. */
  listForTags(tagIds: readonly number[], limit: number): Promise<Map<number, Post[]>> {
    return this.posts.publicPagesOfTags(tagIds, limit);
  }

  /** For batching (Post.translations): the other posts of each post's group, whatever their state, in one statement. */
  translationsOf(postIds: readonly number[]): Promise<Map<number, Post[]>> {
    return this.posts.translationsOf(postIds);
  }
}
