import { Args, Context, Int, Mutation, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { connectionOf } from '../common/graphql/page-info.model.js';
import { toPageRequest } from '../common/graphql/page.args.js';
import { Comment } from './comment.entity.js';
import { CommentModerationService } from './comment-moderation.service.js';
import { DEFAULT_QUEUE_STATUS, MAX_MODERATED } from './dto/moderate-comment.dto.js';
import { CommentConnection, ModerationQueueArgs } from './models/comment-connection.model.js';
import { GraphQLCommentStatus } from './models/comment-status.enum.js';
import type { CommentStatus } from '../auth/read-policy.js';
import { ListSize } from '../common/graphql/cost.decorator.js';
import { DEFAULT_PAGE_SIZE } from '../common/pagination/cursor.js';

/** The moderation queue and bulk moderation over GraphQL: thin over CommentModerationService. */
@Resolver(() => CommentConnection)
export class ModerationResolver {
  constructor(private readonly moderation: CommentModerationService) {}

  @ListSize({ slicingArguments: ['first'], assumedSize: DEFAULT_PAGE_SIZE, sizedFields: ['edges', 'nodes'] })
  @Query(() => CommentConnection, { description: 'Moderators, editors and admins: the comments of one status (default PENDING), oldest first' })
  async comments(@Args() args: ModerationQueueArgs, @Context() context: GraphQLContext): Promise<CommentConnection> {
    const status = args.status ?? DEFAULT_QUEUE_STATUS;
    const page = await this.moderation.queue(status, toPageRequest(args), context.actor);
    return { ...connectionOf(page), status };
  }

  @ResolveField('totalCount', () => Int, { description: 'All the comments of this status you may moderate (a COUNT, run only when asked for)' })
  totalCount(connection: CommentConnection, _args: unknown, context: GraphQLContext): Promise<number> {
    return this.moderation.count(connection.status, context.actor);
  }

  @ListSize({ assumedSize: MAX_MODERATED })
  @Mutation(() => [Comment], { description: 'Moderators, editors and admins: set the status of 1-100 comments, all or nothing. Returns them in the order given' })
  moderateComments(
    @Args('ids', { type: () => [Int], description: 'The comments (1-100, each once)' }) ids: number[],
    @Args('status', { type: () => GraphQLCommentStatus, description: 'Their new status' }) status: CommentStatus,
    @Context() context: GraphQLContext,
  ): Promise<Comment[]> {
    return this.moderation.moderate(ids.map((id) => ({ id, status })), context.actor);
  }
}
