import { Args, Context, Int, Resolver, Subscription } from '@nestjs/graphql';
import { Comment } from '../comments/comment.entity.js';
import type { GraphQLContext } from '../graphql/graphql-context.js';
import { Post } from '../posts/post.entity.js';
import { SubscriptionGateway } from './subscription-gateway.js';

const optionalId = (name: string, description: string) =>
  Args(name, { type: () => Int, nullable: true, description });

/** `undefined`/`null` filters match everything. */
const is = (wanted: number | null | undefined, actual: number) => wanted === undefined || wanted === null || wanted === actual;

/** The six live events of CONTRACT §5, each with its optional filter. */
@Resolver()
export class SubscriptionsResolver {
  constructor(private readonly gateway: SubscriptionGateway) {}

  @Subscription(() => Post, { description: 'A post was written', resolve: (post: Post) => post })
  postCreated(@optionalId('authorId', 'Only posts by this author') authorId: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('postCreated', context, (post) => is(authorId, post.authorId));
  }

  @Subscription(() => Post, { description: 'A post was changed', resolve: (post: Post) => post })
  postUpdated(@optionalId('id', 'Only this post') id: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('postUpdated', context, (post) => is(id, post.id));
  }

  @Subscription(() => Int, { description: 'The id of a deleted post', resolve: (deleted: { id: number }) => deleted.id })
  postDeleted(@optionalId('id', 'Only this post') id: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('postDeleted', context, (deleted) => is(id, deleted.id));
  }

  @Subscription(() => Comment, { description: 'A comment was written', resolve: (comment: Comment) => comment })
  commentCreated(@optionalId('postId', 'Only comments on this post') postId: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('commentCreated', context, (comment) => is(postId, comment.postId));
  }

  @Subscription(() => Comment, { description: 'A comment was changed', resolve: (comment: Comment) => comment })
  commentUpdated(@optionalId('postId', 'Only comments on this post') postId: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('commentUpdated', context, (comment) => is(postId, comment.postId));
  }

  @Subscription(() => Int, { description: 'The id of a deleted comment', resolve: (deleted: { id: number }) => deleted.id })
  commentDeleted(@optionalId('postId', 'Only comments on this post') postId: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('commentDeleted', context, (deleted) => is(postId, deleted.postId));
  }
}
