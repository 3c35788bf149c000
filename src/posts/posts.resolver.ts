import { Args, Context, Info, Int, Mutation, Parent, Query, ResolveField, ResolveReference, Resolver, Subscription } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { type EntityReference, referencedId } from '../common/graphql/entity-reference.js';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { connectionOf } from '../common/graphql/page-info.model.js';
import { toPageRequest } from '../common/graphql/page.args.js';
import { required } from '../common/graphql/required.js';
import { selectsField } from '../common/graphql/selection.js';
import type { EventAudience } from '../auth/read-policy.js';
import { SubscriptionGateway, optionalId, matches, type VisibilityChange } from '../events/subscription-gateway.js';
import { User } from '../users/user.entity.js';
import { UserLoaders } from '../users/users.loader.js';
import { CreatePostDto } from './dto/create-post.dto.js';
import { UpdatePostDto } from './dto/update-post.dto.js';
import { PostConnection, PostsArgs, RevisionsArgs, UserPostsArgs } from './models/post-connection.model.js';
import { Post } from './post.entity.js';
import { PostRevision } from './post-revision.entity.js';
import { PostLoaders } from './posts.loader.js';
import { PostFinder, type PostFinding, type PostFindingFields } from './post-finder.service.js';
import { PostRevisions } from './post-revisions.service.js';
import { PostsService } from './posts.service.js';
import { ListSize } from '../common/graphql/cost.decorator.js';
import { DEFAULT_PAGE_SIZE } from '../common/pagination/cursor.js';
import { setRateLimitItem } from '../common/rate-limit/rate-limit-headers.js';

/** What the cost model assumes a post's translations number (a group has one post per supported locale). */
const MAX_TRANSLATIONS_ASSUMED = 10;

const GRAPHQL_FIELDS: PostFindingFields = { q: 'search', sort: 'orderBy', cursor: 'after' };

/** Who saw a post before it was public: its author (and who sees what is restricted to them). */
const seenBefore = (post: object): EventAudience => ({ audience: 'restricted', owner: (post as Pick<Post, 'authorId'>).authorId });

/**
 * The v1 subscriptions that follow a post's visibility (CONTRACT §7): `postCreated` also fires
 * when a post becomes public (postPublished) and `postDeleted` when it stops being public
 * (postUnpublished), for the subscribers who cannot see non-public posts. Those who can (its
 * author, admins) saw it as a draft already and still see it: for them the post was created by
 * its restricted postCreated and goes with its postDeleted.
 */
const PUBLISHED: VisibilityChange = { name: 'postPublished', seenBefore };
const UNPUBLISHED: VisibilityChange = { name: 'postUnpublished', seenBefore };

/**
 * Posts over GraphQL: thin over PostsService, PostFinder and PostRevisions (same validation, policy and errors as REST).
 * Related resources are read through the request's DataLoaders. Field resolvers without
 * parameter decorators are called directly by graphql-js (no Nest pipeline per field).
 */
@Resolver(() => Post)
export class PostsResolver {
  constructor(
    private readonly postsService: PostsService,
    private readonly finder: PostFinder,
    private readonly postRevisions: PostRevisions,
    private readonly postLoaders: PostLoaders,
    private readonly userLoaders: UserLoaders,
    private readonly gateway: SubscriptionGateway,
  ) {}

  @Query(() => Post, { nullable: true, description: 'A post by id or by a slug it has or had (exactly one of the two); null when there is none that you may see' })
  async post(
    @Args('id', { type: () => Int, nullable: true, description: "The post's id" }) id: number | null | undefined,
    @Args('slug', { type: () => String, nullable: true, description: 'A slug the post has or had (its `slug` is the current one)' }) slug: string | null | undefined,
    @Args('preview', { type: () => String, nullable: true, description: 'A preview token (POST /posts/{id}/previews): the post in its current state, whatever it is' }) preview: string | null | undefined,
    @Context() context: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Post | null> {
    const lookup = this.postsService.lookupOf(id ?? undefined, slug ?? undefined, preview ?? undefined);
    if (lookup.preview !== undefined) {
      // Never kept by the response cache, never indexed.
      context.uncacheable = true;
      context.reply?.header('cache-control', 'no-store').header('x-robots-tag', 'noindex');
    }
    const postId = lookup.id ?? (await this.postsService.idOfSlug(lookup.slug!));
    if (postId === null) return null;
    const post = await this.loaded(postId, context, info);
    if (!post) return null;
    if (this.postsService.canSee(context.actor, post)) return post;
    return lookup.preview !== undefined && (await this.postsService.previewOpens(post, lookup.preview)) ? post : null;
  }

  /** Federation's `_entities` (GRAPHQL_FEDERATION): a Post by reference, as `post(id)` reads it. */
  @ResolveReference()
  async resolveReference(reference: EntityReference, context: GraphQLContext, info: GraphQLResolveInfo): Promise<Post | null> {
    const id = referencedId(reference);
    return id === null ? null : this.visible(id, context, info);
  }

  /** A post through the request's loaders; null unless the caller may see it (the read policy). */
  private async visible(id: number, context: GraphQLContext, info: GraphQLResolveInfo): Promise<Post | null> {
    const post = await this.loaded(id, context, info);
    return post && this.postsService.canSee(context.actor, post) ? post : null;
  }

  /** A post whatever its state, through the request's loaders (callers apply the read policy). */
  private loaded(id: number, context: GraphQLContext, info: GraphQLResolveInfo): Promise<Post | null> {
    const loaders = context.loaders.of(this.postLoaders);
    return (selectsField(info, 'author') ? loaders.byIdWithAuthor : loaders.byId).load(id);
  }

  @ListSize({ slicingArguments: ['first'], assumedSize: DEFAULT_PAGE_SIZE, sizedFields: ['edges', 'nodes'] })
  @Query(() => PostConnection, {
    description:
      'Public posts, newest publication first; filtered by authorId, tag, publishedAfter/Before, searched, ordered by orderBy; with status DRAFT, IN_REVIEW, SCHEDULED or TRASHED the ones of that state you may see (signed in)',
  })
  async posts(@Args() args: PostsArgs, @Context() context: GraphQLContext): Promise<PostConnection> {
    const languages = this.finder.languagesOf(args.locale ?? undefined, context.req?.headers['accept-language']);
    const scope = this.finder.scope(context.actor, { authorId: args.authorId ?? undefined, status: args.status ?? undefined }, languages);
    const finding: PostFinding = {
      tags: args.tag ?? undefined,
      q: args.search ?? undefined,
      publishedAfter: args.publishedAfter ?? undefined,
      publishedBefore: args.publishedBefore ?? undefined,
      sort: args.orderBy ?? undefined,
    };
    const byId = context.loaders.of(this.postLoaders).byId;
    if (this.finder.isPlainList(finding)) {
      const page = await this.finder.list(scope, toPageRequest(args));
      for (const post of page.items) byId.prime(post.id, post);
      return { ...connectionOf(page), scope };
    }
    const page = await this.finder.find(scope, finding, { limit: args.first, cursor: args.after ?? undefined }, GRAPHQL_FIELDS, context.clientAddress);
    if (page.searchBudget && context.reply) setRateLimitItem(context.reply, page.searchBudget);
    for (const post of page.items) byId.prime(post.id, post);
    const connection = connectionOf(page);
    const edges = connection.edges.map((edge) => ({ ...edge, rank: page.search?.get(edge.node.id)?.rank ?? null, snippet: page.search?.get(edge.node.id)?.snippet ?? null }));
    return { ...connection, edges, scope, finding };
  }

  @Mutation(() => Post, { description: 'Signed in. authorId: admins only' })
  createPost(@Args('input', { description: 'The new post' }) input: CreatePostDto, @Context() context: GraphQLContext): Promise<Post> {
    return this.postsService.create(input, context.actor);
  }

  @Mutation(() => Post, { description: 'Its author, an editor or an admin' })
  updatePost(
    @Args('id', { type: () => Int, description: 'The id of the post to change' }) id: number,
    @Args('input', { description: 'What to change' }) input: UpdatePostDto,
    @Context() context: GraphQLContext,
  ): Promise<Post> {
    return this.postsService.update(id, input, context.actor);
  }

  @Mutation(() => Int, { description: 'Its author, an editor or an admin; deletes its comments too. Returns the id' })
  async deletePost(@Args('id', { type: () => Int, description: 'The id of the post to delete' }) id: number, @Context() context: GraphQLContext): Promise<number> {
    await this.postsService.delete(id, context.actor);
    return id;
  }

  @ResolveField('author', () => User, { description: 'The user who wrote it' })
  author(post: Post, _args: unknown, context: GraphQLContext): Promise<User> {
    return required(context.loaders.of(this.userLoaders).byId.load(post.authorId), 'User', post.authorId);
  }

  // A group has at most one post per supported locale.
  @ListSize({ assumedSize: MAX_TRANSLATIONS_ASSUMED })
  @ResolveField('translations', () => [Post], { description: 'The other posts of its translation group that you may see (each in another locale), by locale' })
  async translations(post: Post, _args: unknown, context: GraphQLContext): Promise<Post[]> {
    const group = await context.loaders.of(this.postLoaders).translations.load(post.id);
    return group.filter((translation) => this.postsService.canSee(context.actor, translation));
  }

  @ListSize({ slicingArguments: ['first'], assumedSize: DEFAULT_PAGE_SIZE })
  @ResolveField('revisions', () => [PostRevision], { description: 'Its newest revisions, newest first: for its author, editors and admins (an empty list for everyone else)' })
  async revisions(@Parent() post: Post, @Args() args: RevisionsArgs, @Context() context: GraphQLContext): Promise<PostRevision[]> {
    if (!this.postRevisions.canSee(context.actor, post)) return [];
    return context.loaders.of(this.postLoaders).revisions(args.first).load(post.id);
  }

  @Subscription(() => Post, { description: 'A post was written', resolve: (post: Post) => post })
  postCreated(@optionalId('authorId', 'Only posts by this author') authorId: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('postCreated', context, (post) => matches(authorId, post.authorId), PUBLISHED);
  }

  @Subscription(() => Post, { description: 'A post was changed', resolve: (post: Post) => post })
  postUpdated(@optionalId('id', 'Only this post') id: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('postUpdated', context, (post) => matches(id, post.id));
  }

  @Subscription(() => Int, { description: 'The id of a deleted post', resolve: (deleted: { id: number }) => deleted.id })
  postDeleted(@optionalId('id', 'Only this post') id: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('postDeleted', context, (deleted) => matches(id, deleted.id), UNPUBLISHED);
  }
}

/** User.posts: a user's posts, newest first. */
@Resolver(() => User)
export class UserPostsResolver {
  constructor(private readonly postLoaders: PostLoaders) {}

  @ListSize({ slicingArguments: ['first'], assumedSize: DEFAULT_PAGE_SIZE })
  @ResolveField('posts', () => [Post], { description: 'Their newest public posts, newest publication first (all of them: Query.posts(authorId))' })
  posts(
    // A plain type, not the entity class, so that no validation pipe looks at the parent.
    @Parent() user: Pick<User, 'id'>,
    @Args() args: UserPostsArgs,
    @Context() context: GraphQLContext,
  ): Promise<Post[]> {
    return context.loaders.of(this.postLoaders).byAuthor(toPageRequest(args)).load(user.id);
  }
}

@Resolver(() => PostConnection)
export class PostConnectionResolver {
  constructor(private readonly finder: PostFinder) {}

  @ResolveField('totalCount', () => Int, { description: 'All the posts of this list you may see (a COUNT, run only when asked for)' })
  totalCount(connection: PostConnection): Promise<number> {
    if (connection.finding) return this.finder.countFound(connection.scope, connection.finding);
    return this.finder.count(connection.scope);
  }
}
