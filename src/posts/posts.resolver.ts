import { Args, Context, Info, Int, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { Comment } from '../comments/comment.entity.js';
import { CommentsArgs } from '../comments/models/comment.inputs.js';
import type { GraphQLContext } from '../graphql/graphql-context.js';
import { connectionOf } from '../graphql/models/page-info.model.js';
import { toPageRequest } from '../graphql/models/page.args.js';
import { required } from '../graphql/required.js';
import { selectsField } from '../graphql/selection.js';
import { User } from '../users/user.entity.js';
import { CreatePostDto } from './dto/create-post.dto.js';
import { UpdatePostDto } from './dto/update-post.dto.js';
import { PostConnection, PostsArgs } from './models/post-connection.model.js';
import { Post } from './post.entity.js';
import { PostsService } from './posts.service.js';

/**
 * Posts over GraphQL: thin over PostsService (same validation, policy and errors as REST).
 * Related resources are read through the request's DataLoaders. Field resolvers without
 * parameter decorators are called directly by graphql-js (no Nest pipeline per field).
 */
@Resolver(() => Post)
export class PostsResolver {
  constructor(private readonly postsService: PostsService) {}

  @Query(() => Post, { nullable: true, description: 'A post; null when there is none with this id' })
  post(@Args('id', { type: () => Int }) id: number, @Context() context: GraphQLContext): Promise<Post | null> {
    return context.loaders.postById.load(id);
  }

  @Query(() => PostConnection, { description: 'Posts, newest first' })
  async posts(@Args() args: PostsArgs, @Context() context: GraphQLContext): Promise<PostConnection> {
    const authorId = args.authorId ?? undefined;
    const page = await this.postsService.list({ ...toPageRequest(args), authorId });
    for (const post of page.items) context.loaders.postById.prime(post.id, post);
    return { ...connectionOf(page), authorId };
  }

  @Mutation(() => Post, { description: 'Signed in. authorId: admins only' })
  createPost(@Args('input') input: CreatePostDto, @Context() context: GraphQLContext): Promise<Post> {
    return this.postsService.create(input, context.actor);
  }

  @Mutation(() => Post, { description: 'Its author or an admin' })
  updatePost(
    @Args('id', { type: () => Int }) id: number,
    @Args('input') input: UpdatePostDto,
    @Context() context: GraphQLContext,
  ): Promise<Post> {
    return this.postsService.update(id, input, context.actor);
  }

  @Mutation(() => Int, { description: 'Its author or an admin; deletes its comments too. Returns the id' })
  async deletePost(@Args('id', { type: () => Int }) id: number, @Context() context: GraphQLContext): Promise<number> {
    await this.postsService.delete(id, context.actor);
    return id;
  }

  @ResolveField('author', () => User)
  author(post: Post, _args: unknown, context: GraphQLContext): Promise<User> {
    return required(context.loaders.userById.load(post.authorId), 'User', post.authorId);
  }

  @ResolveField('comments', () => [Comment], { description: 'Oldest first' })
  comments(
    // A plain type, not the entity class, so that no validation pipe looks at the parent.
    @Parent() post: Pick<Post, 'id'>,
    @Args() args: CommentsArgs,
    @Context() context: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Comment[]> {
    return context.loaders.commentsByPost(toPageRequest(args), selectsField(info, 'author')).load(post.id);
  }

  @ResolveField('commentCount', () => Int)
  commentCount(post: Post, _args: unknown, context: GraphQLContext): Promise<number> {
    return context.loaders.commentCountByPost.load(post.id);
  }
}

@Resolver(() => PostConnection)
export class PostConnectionResolver {
  constructor(private readonly postsService: PostsService) {}

  @ResolveField('totalCount', () => Int, { description: 'All posts matching the filter (a COUNT, run only when asked for)' })
  totalCount(connection: PostConnection): Promise<number> {
    return this.postsService.count(connection.authorId);
  }
}
