import { Args, Context, Mutation, Resolver } from '@nestjs/graphql';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { ReviewPostArgs } from './dto/review-post.dto.js';
import { PostReview } from './post-review.entity.js';
import { PostsService } from './posts.service.js';

/** reviewPost (CONTRACT §16): thin over PostsService.review, as POST /posts/{id}/reviews. */
@Resolver(() => PostReview)
export class PostReviewsResolver {
  constructor(private readonly posts: PostsService) {}

  @Mutation(() => PostReview, {
    description: 'Editors and admins: decide on a post in review (APPROVE publishes or schedules it, REQUEST_CHANGES returns it to draft); CONFLICT when it is not in review',
  })
  reviewPost(@Args() args: ReviewPostArgs, @Context() context: GraphQLContext): Promise<PostReview> {
    return this.posts.review(args.id, args.decision, args.note ?? null, context.actor);
  }
}
