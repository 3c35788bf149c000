import { Args, Context, Info, Int, Mutation, Parent, Query, ResolveField, ResolveReference, Resolver, Subscription } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { type EntityReference, referencedId } from '../common/graphql/entity-reference.js';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { toPageRequest } from '../common/graphql/page.args.js';
import { partialRelated } from '../common/graphql/loaders.js';
import { required } from '../common/graphql/required.js';
import { matches, optionalId, SubscriptionGateway } from '../events/subscription-gateway.js';
import { Post } from '../posts/post.entity.js';
import { PostLoaders } from '../posts/posts.loader.js';
import { PostsService } from '../posts/posts.service.js';
import { User } from '../users/user.entity.js';
import { UserLoaders } from '../users/users.loader.js';
import { Comment } from './comment.entity.js';
import { CommentLoaders, readingFor } from './comments.loader.js';
import { CommentsService } from './comments.service.js';
import { UpdateCommentDto } from './dto/update-comment.dto.js';
import { CommentsArgs, CreateCommentInput, DEFAULT_COMMENTS_PAGE_SIZE } from './models/comment.inputs.js';
import { ListSize } from '../common/graphql/cost.decorator.js';
import { declareLiveFields, isWithheld } from '../common/resource/snapshot-fields.js';

// What these resolve is read now, not from an event's snapshot (snapshot-fields).
declareLiveFields('Comment', 'replies');
declareLiveFields('Post', 'comments', 'commentCount');

/** Comments over GraphQL: thin over CommentsService; related resources through the DataLoaders. */
@Resolver(() => Comment)
export class CommentsResolver {
  constructor(
    private readonly comments: CommentsService,
    private readonly commentLoaders: CommentLoaders,
    private readonly postLoaders: PostLoaders,
    private readonly userLoaders: UserLoaders,
    private readonly gateway: SubscriptionGateway,
    private readonly posts: PostsService,
  ) {}

  @Query(() => Comment, { nullable: true, description: 'A comment; null when there is none with this id' })
  comment(@Args('id', { type: () => Int, description: "The comment's id" }) id: number, @Context() context: GraphQLContext): Promise<Comment | null> {
    return this.visible(id, context);
  }

  /** Federation's `_entities` (GRAPHQL_FEDERATION): a Comment by reference, as `comment(id)` reads it. */
  @ResolveReference()
  async resolveReference(reference: EntityReference, context: GraphQLContext): Promise<Comment | null> {
    const id = referencedId(reference);
    return id === null ? null : this.visible(id, context);
  }

  /** A comment through the request's loader; null unless the caller may see it (the read policy). */
  private async visible(id: number, context: GraphQLContext): Promise<Comment | null> {
    const comment = await context.loaders.of(this.commentLoaders).byId.load(id);
    return comment && this.comments.canSee(context.actor, comment) ? comment : null;
  }

  @Mutation(() => Comment, { description: 'Signed in' })
  createComment(@Args('input', { description: 'The new comment' }) input: CreateCommentInput, @Context() context: GraphQLContext): Promise<Comment> {
    return this.comments.create(input.postId, input, context.actor);
  }

  @Mutation(() => Comment, { description: 'The text: its author or an admin; the status: moderators, editors and admins' })
  updateComment(
    @Args('id', { type: () => Int, description: 'The id of the comment to change' }) id: number,
    @Args('input', { description: 'What to change' }) input: UpdateCommentDto,
    @Context() context: GraphQLContext,
  ): Promise<Comment> {
    return this.comments.update(id, input, context.actor);
  }

  @Mutation(() => Int, { description: 'Its author or an admin. Returns the id' })
  async deleteComment(@Args('id', { type: () => Int, description: 'The id of the comment to delete' }) id: number, @Context() context: GraphQLContext): Promise<number> {
    await this.comments.delete(id, context.actor);
    return id;
  }

  @ResolveField('author', () => User, { description: 'The user who wrote it' })
  author(comment: Comment, _args: unknown, context: GraphQLContext): Promise<User> | User {
    // Read with its list, with just the fields the request selects of it (CommentLoaders.byPost).
    const joined = partialRelated<User>(comment, 'author');
    if (joined !== undefined) return joined;
    return required(context.loaders.of(this.userLoaders).byId.load(comment.authorId), 'User', comment.authorId);
  }

  @ResolveField('parent', () => Comment, { nullable: true, description: 'The comment it replies to; null for a top-level comment, or when the reader may not see it' })
  async parent(@Parent() comment: Pick<Comment, 'parentId'>, @Context() context: GraphQLContext): Promise<Comment | null> {
    if (comment.parentId === null || comment.parentId === undefined) return null;
    const parent = await context.loaders.of(this.commentLoaders).byId.load(comment.parentId);
    return parent && this.comments.canSee(context.actor, parent) ? parent : null;
  }

  @ListSize({ slicingArguments: ['first'], assumedSize: DEFAULT_COMMENTS_PAGE_SIZE })
  @ResolveField('replies', () => [Comment], { description: 'Its first replies the reader sees, oldest first (batched: one statement for every comment of the request)' })
  replies(
    @Parent() comment: Pick<Comment, 'id'>,
    @Args() args: CommentsArgs,
    @Context() context: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Comment[]> {
    if (isWithheld(comment)) return Promise.resolve([]);
    const scope = this.comments.scopeOf(context.actor);
    return context.loaders.of(this.commentLoaders).repliesOf(toPageRequest(args), readingFor(info), scope).load(comment.id);
  }

  /**
   * A comment is reached only through a post the reader sees (comment(id) is null otherwise), so
   * its post is there for them; should it not be, it is NOT_FOUND, as a post that is gone.
   */
  @ResolveField('post', () => Post, { description: 'The post it is on' })
  post(comment: Comment, _args: unknown, context: GraphQLContext): Promise<Post> {
    const load = context.loaders.of(this.postLoaders).byId.load(comment.postId);
    const visible = load.then((post) => (post && this.posts.canSee(context.actor, post) ? post : null));
    return required(visible, 'Post', comment.postId);
  }

  @Subscription(() => Comment, { description: 'A comment was written', resolve: (comment: Comment) => comment })
  commentCreated(@optionalId('postId', 'Only comments on this post') postId: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('commentCreated', context, (comment) => matches(postId, comment.postId));
  }

  @Subscription(() => Comment, { description: 'A comment was changed', resolve: (comment: Comment) => comment })
  commentUpdated(@optionalId('postId', 'Only comments on this post') postId: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('commentUpdated', context, (comment) => matches(postId, comment.postId));
  }

  @Subscription(() => Int, { description: 'The id of a deleted comment', resolve: (deleted: { id: number }) => deleted.id })
  commentDeleted(@optionalId('postId', 'Only comments on this post') postId: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('commentDeleted', context, (deleted) => matches(postId, deleted.postId));
  }
}

/** Post.comments and Post.commentCount: the comments feature's fields on posts. */
@Resolver(() => Post)
export class PostCommentsResolver {
  constructor(
    private readonly commentLoaders: CommentLoaders,
    private readonly commentsService: CommentsService,
  ) {}

  @ListSize({ slicingArguments: ['first'], assumedSize: DEFAULT_COMMENTS_PAGE_SIZE })
  @ResolveField('comments', () => [Comment], { description: 'Its first comments the reader sees, oldest first, replies included (each with its parentId)' })
  comments(
    // A plain type, not the entity class, so that no validation pipe looks at the parent.
    @Parent() post: Pick<Post, 'id'>,
    @Args() args: CommentsArgs,
    @Context() context: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Comment[]> {
    if (isWithheld(post)) return Promise.resolve([]);
    const scope = this.commentsService.scopeOf(context.actor);
    return context.loaders.of(this.commentLoaders).byPost(toPageRequest(args), readingFor(info), scope).load(post.id);
  }

  @ResolveField('commentCount', () => Int, { description: 'How many comments it has that the reader sees' })
  commentCount(post: Post, _args: unknown, context: GraphQLContext): Promise<number> {
    if (isWithheld(post)) return Promise.resolve(0);
    return context.loaders.of(this.commentLoaders).countByPost(this.commentsService.scopeOf(context.actor)).load(post.id);
  }
}
