import { Body, Controller, Delete, Get, Headers, Ip, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Actor } from '../common/actor.js';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import { ApiCreate, ApiDelete, ApiGetList, ApiGetListWithFeeds, ApiGetOne, ApiGetOneWithHeaders, ApiUpdate, type DocumentedResource } from '../common/openapi/api-docs.decorators.js';
import { DEFAULT_PAGE_SIZE, LIST_OR_TIME_CURSOR_PATTERN, PageQueryDto, toPageRequest } from '../common/pagination/cursor.js';
import { setRateLimitItem } from '../common/rate-limit/rate-limit-headers.js';
import { DomainError } from '../common/errors/domain-error.js';
import { IfMatch } from '../common/resource/etag.js';
import { ChoosesLanguage, NegotiatedRepresentations, ServesFeeds } from '../common/resource/negotiated.js';
import { nextPageHref, type Resource, ResourceList } from '../common/resource/resource.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { CreatePostDto } from './dto/create-post.dto.js';
import { ListPostsQuery, PostStatusQuery } from './dto/list-posts.query.js';
import { UpdatePostDto } from './dto/update-post.dto.js';
import { REVISION_RESOURCE } from './post-revision.resource.js';
import { POST_RESOURCE } from './post.resource.js';
import type { Post as BlogPost } from './post.entity.js';
import { POST_CURSOR_PATTERN } from './post-order.js';
import { PostFinder, type PostFinding, type PostFindingFields } from './post-finder.service.js';
import { PostRevisions } from './post-revisions.service.js';
import { PostsService } from './posts.service.js';

/** Post lists page by (publishedAt, id) cursors, or by id ones with ?status. */
const POST_LISTS: DocumentedResource = {
  kind: POST_RESOURCE.kind,
  plural: POST_RESOURCE.plural,
  get schema() {
    return POST_RESOURCE.schema;
  },
  cursorPattern: LIST_OR_TIME_CURSOR_PATTERN,
};

/** A preview token as GET /posts/{id} takes it (longer ones are no token: 400). */
const MAX_PREVIEW_TOKEN_LENGTH = 100;
const PREVIEW_TOKEN_SCHEMA = { type: 'string', maxLength: MAX_PREVIEW_TOKEN_LENGTH } as const;

const REST_FIELDS: PostFindingFields = { q: 'q', sort: 'sort', cursor: 'cursor' };

/** The next page of a filtered list: the same query (every tag repeated), after `cursor`. */
function nextListHref(cursor: string | null, query: ListPostsQuery, limit: number): string | null {
  if (cursor === null) return null;
  const params = new URLSearchParams({ limit: String(limit) });
  if (query.status !== undefined) params.set('status', query.status);
  if (query.authorId !== undefined) params.set('authorId', String(query.authorId));
  if (query.locale !== undefined) params.set('locale', query.locale);
  for (const tag of query.tag ?? []) params.append('tag', tag);
  if (query.q !== undefined) params.set('q', query.q);
  if (query.publishedAfter !== undefined) params.set('publishedAfter', query.publishedAfter.toISOString());
  if (query.publishedBefore !== undefined) params.set('publishedBefore', query.publishedBefore.toISOString());
  if (query.sort !== undefined) params.set('sort', query.sort);
  params.set('cursor', cursor);
  return `/posts?${params.toString()}`;
}

/** GET /posts: posts that, in a search (`q`), carry `_search` {rank, snippet}; cursors of either kind or of a filtered list. */
const FOUND_POSTS: DocumentedResource = {
  kind: 'foundPost',
  plural: POST_RESOURCE.plural,
  get schema() {
    const schema = POST_RESOURCE.schema;
    const search = {
      type: 'object',
      description: 'With q: how the post ranks (higher: more relevant) and the plain text around its first match',
      properties: { rank: { type: 'number' }, snippet: { type: 'string', maxLength: 200 } },
      required: ['rank', 'snippet'],
      additionalProperties: false,
    } satisfies DocumentedResource['schema'];
    return { ...schema, properties: { ...schema.properties, _search: search } };
  },
  cursorPattern: `^(?:${LIST_OR_TIME_CURSOR_PATTERN.slice(1, -1)}|${POST_CURSOR_PATTERN.slice(1, -1)})$`,
};

@ApiTags('posts')
@NegotiatedRepresentations()
@Controller()
export class PostsController {
  constructor(
    private readonly posts: PostsService,
    private readonly finder: PostFinder,
    private readonly postRevisions: PostRevisions,
  ) {}

  /**
   * A post as this reader sees it: with its `revisions` link when they may read them (the rule of
   * GET /posts/{id}/revisions), and its translations that they may see.
   */
  private shown(post: BlogPost, actor: Actor | null): Resource {
    return POST_RESOURCE.one(this.posts.withTranslations(post, actor), this.postRevisions.canSee(actor, post));
  }

  /** Which posts of a list show this reader their `revisions` link; each gets the translations the reader may see. */
  private revealedTo(actor: Actor | null): (post: BlogPost) => boolean {
    return (post) => this.postRevisions.canSee(actor, this.posts.withTranslations(post, actor));
  }

  @Get('posts')
  @ServesFeeds('also')
  @ChoosesLanguage()
  @ApiOperation({
    summary:
      'Public posts, newest publication first; filter by authorId, tag, publishedAfter/Before, search with q, order with sort; ?status=draft|in_review|scheduled|trashed: the non-public ones you may see',
    description:
      'Every filter and order pages by cursor (the sort key, then the id). A cursor belongs to the list that issued it: with another order or other filters it is 400 naming cursor. sort=relevance needs q.',
  })
  @ApiGetListWithFeeds(FOUND_POSTS, 401)
  async list(
    @Query() query: ListPostsQuery,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @CurrentActor() actor: Actor | null,
    @Ip() clientAddress: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ResourceList> {
    if (query.slug !== undefined) return POST_RESOURCE.list(await this.finder.bySlug(query, actor), null, this.revealedTo(actor));
    const scope = this.finder.scope(actor, query, this.finder.languagesOf(query.locale, acceptLanguage));
    const finding: PostFinding = { tags: query.tag, q: query.q, publishedAfter: query.publishedAfter, publishedBefore: query.publishedBefore, sort: query.sort };
    if (this.finder.isPlainList(finding)) {
      const request = toPageRequest(query);
      const page = await this.finder.list(scope, request);
      const next = nextPageHref('/posts', page.nextCursor, { limit: request.limit, authorId: query.authorId, status: query.status, locale: query.locale });
      return POST_RESOURCE.list(page.items, next, this.revealedTo(actor));
    }
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const page = await this.finder.find(scope, finding, { limit, cursor: query.cursor }, REST_FIELDS, clientAddress);
    if (page.searchBudget) setRateLimitItem(reply, page.searchBudget);
    const next = nextListHref(page.nextCursor, query, limit);
    const { search } = page;
    const reveal = this.revealedTo(actor);
    if (!search) return POST_RESOURCE.list(page.items, next, reveal);
    const views = page.items.map((post) => ({ ...POST_RESOURCE.view(post, reveal(post)), _search: search.get(post.id) }));
    return new ResourceList(POST_RESOURCE, views, next, page.items);
  }

  @Get('users/:id/posts')
  @ServesFeeds('also')
  @ChoosesLanguage()
  @ApiTags('users')
  @ApiOperation({ summary: "A user's public posts, newest publication first; ?status: their non-public ones (the user, editors and admins)" })
  @ApiGetListWithFeeds(POST_LISTS, 401)
  async listForAuthor(
    @Param('id', ParseIdPipe) authorId: number,
    @Query() query: PostStatusQuery,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @CurrentActor() actor: Actor | null,
  ): Promise<ResourceList> {
    const request = toPageRequest(query);
    const page = await this.finder.listForAuthor(authorId, request, actor, query.status, this.finder.languagesOf(query.locale, acceptLanguage));
    const next = nextPageHref(`/users/${authorId}/posts`, page.nextCursor, { limit: request.limit, status: query.status, locale: query.locale });
    return POST_RESOURCE.list(page.items, next, this.revealedTo(actor));
  }

  @Post('posts')
  @SignedIn()
  @ApiOperation({ summary: 'Write a post: published at once, or a draft, or scheduled (authorId: admins only)' })
  @ApiCreate(POST_RESOURCE, 404, 409)
  async create(
    @Body() input: CreatePostDto,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Resource> {
    // GraphQL's translationOf is the id; REST's names it, as {"postId": …}.
    if (typeof input.translationOf === 'number') {
      throw DomainError.badInput('translationOf must be {"postId": <the id of a post>}', [{ field: 'translationOf', message: 'must be {"postId": <the id of a post>}' }]);
    }
    const post = await this.posts.create(input, actor);
    reply.header('location', POST_RESOURCE.path(post.id));
    return this.shown(post, actor);
  }

  @Get('posts/:id')
  @ApiOperation({ summary: 'One post (a non-public one: 404 unless you are its author, an editor or an admin)' })
  @ApiGetOneWithHeaders(POST_RESOURCE, { 'Content-Language': { description: 'The language of the post (its locale)', required: true, schema: { type: 'string', example: 'en' } } })
  @ApiQuery({ name: 'preview', required: false, schema: PREVIEW_TOKEN_SCHEMA, description: 'A preview token (POST /posts/{id}/previews): the post in its current state, whatever it is; never cached, not indexed' })
  async get(
    @Param('id', ParseIdPipe) id: number,
    @Query('preview') preview: unknown,
    @CurrentActor() actor: Actor | null,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Resource> {
    if (preview !== undefined) {
      // Whatever it answers: a preview is kept by no cache and indexed by no search engine.
      reply.header('cache-control', 'no-store').header('x-robots-tag', 'noindex');
      if (typeof preview !== 'string' || preview.length > MAX_PREVIEW_TOKEN_LENGTH) {
        throw DomainError.badInput('preview must be one preview token', [{ field: 'preview', message: 'must be one preview token' }]);
      }
    }
    const post = await this.posts.get(id, actor, preview);
    reply.header('content-language', post.locale);
    return this.shown(post, actor);
  }

  @Patch('posts/:id')
  @SignedIn()
  @ApiOperation({ summary: 'Change a post: title, body, status (restores from the trash), publishAt, or restore a revision (its author, an editor or an admin)' })
  @ApiUpdate(POST_RESOURCE)
  async update(
    @Param('id', ParseIdPipe) id: number,
    @Body() input: UpdatePostDto,
    @CurrentActor() actor: Actor,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Resource> {
    return this.shown(await this.posts.update(id, input, actor, { expectedVersion }), actor);
  }

  @Delete('posts/:id')
  @SignedIn()
  @ApiOperation({ summary: 'Move a post to the trash; a trashed post: delete it and its comments for good (its author, an editor or an admin)' })
  @ApiDelete('Trashed, or deleted for good')
  async delete(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor): Promise<void> {
    await this.posts.delete(id, actor);
  }

  @Get('posts/:id/revisions')
  @ApiOperation({ summary: "A post's revisions, newest first (its author, editors and admins; 404 for others)" })
  @ApiGetList(REVISION_RESOURCE)
  async revisions(@Param('id', ParseIdPipe) id: number, @Query() query: PageQueryDto, @CurrentActor() actor: Actor | null): Promise<ResourceList> {
    const request = toPageRequest(query);
    const page = await this.postRevisions.list(id, request, actor);
    const next = nextPageHref(`/posts/${id}/revisions`, page.nextCursor, { limit: request.limit });
    return REVISION_RESOURCE.list(page.items, next);
  }

  @Get('posts/:id/revisions/:number')
  @ApiOperation({ summary: 'One revision of a post (its author, editors and admins; 404 for others)' })
  @ApiGetOne(REVISION_RESOURCE)
  async revision(@Param('id', ParseIdPipe) id: number, @Param('number', ParseIdPipe) number: number, @CurrentActor() actor: Actor | null): Promise<Resource> {
    return REVISION_RESOURCE.one(await this.postRevisions.get(id, number, actor));
  }
}
