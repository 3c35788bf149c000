import { Args, Context, Int, Mutation, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { GraphQLContext } from '../graphql/graphql-context.js';
import { required } from '../graphql/required.js';
import { Post } from '../posts/post.entity.js';
import { User } from '../users/user.entity.js';
import { Comment } from './comment.entity.js';
import { CommentsService } from './comments.service.js';
import { UpdateCommentDto } from './dto/update-comment.dto.js';
import { CreateCommentInput } from './models/comment.inputs.js';

/** Comments over GraphQL: thin over CommentsService; related resources through the DataLoaders. */
@Resolver(() => Comment)
export class CommentsResolver {
  constructor(private readonly comments: CommentsService) {}

  @Query(() => Comment, { nullable: true, description: 'A comment; null when there is none with this id' })
  comment(@Args('id', { type: () => Int }) id: number, @Context() context: GraphQLContext): Promise<Comment | null> {
    return context.loaders.commentById.load(id);
  }

  @Mutation(() => Comment, { description: 'Signed in' })
  createComment(@Args('input') input: CreateCommentInput, @Context() context: GraphQLContext): Promise<Comment> {
    return this.comments.create(input.postId, input, context.actor);
  }

  @Mutation(() => Comment, { description: 'Its author or an admin' })
  updateComment(
    @Args('id', { type: () => Int }) id: number,
    @Args('input') input: UpdateCommentDto,
    @Context() context: GraphQLContext,
  ): Promise<Comment> {
    return this.comments.update(id, input, context.actor);
  }

  @Mutation(() => Int, { description: 'Its author or an admin. Returns the id' })
  async deleteComment(@Args('id', { type: () => Int }) id: number, @Context() context: GraphQLContext): Promise<number> {
    await this.comments.delete(id, context.actor);
    return id;
  }

  @ResolveField('author', () => User)
  author(comment: Comment, _args: unknown, context: GraphQLContext): Promise<User> {
    return required(context.loaders.userById.load(comment.authorId), 'User', comment.authorId);
  }

  @ResolveField('post', () => Post)
  post(comment: Comment, _args: unknown, context: GraphQLContext): Promise<Post> {
    return required(context.loaders.postById.load(comment.postId), 'Post', comment.postId);
  }
}
