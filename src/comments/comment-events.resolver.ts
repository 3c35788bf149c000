import { Context, Info, Parent, ResolveField, Resolver } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { selectsLiveField, withhold } from '../common/resource/snapshot-fields.js';
import type { FeedEvent } from '../event-log/feed-event.js';
import { EventModel } from '../event-log/models/event.model.js';
import { PostLoaders } from '../posts/posts.loader.js';
import { PostsService } from '../posts/posts.service.js';
import { Comment } from './comment.entity.js';

/** `Event.comment`: the comment an event of the log is about. */
@Resolver(() => EventModel)
export class CommentEventsResolver {
  constructor(
    private readonly postLoaders: PostLoaders,
    private readonly posts: PostsService,
  ) {}

  @ResolveField('comment', () => Comment, {
    nullable: true,
    description:
      "A comment event's comment as the write left it (its replies are judged by its post as it is now: none for a reader who may not see it now); null for COMMENT_DELETED and for post events",
  })
  async comment(@Parent() event: FeedEvent, @Context() context: GraphQLContext, @Info() info: GraphQLResolveInfo): Promise<Comment | null> {
    const snapshot = event.kind === 'comment' ? (event.resource as Comment | null) : null;
    if (!snapshot || !selectsLiveField(info, 'Comment')) return snapshot;
    const post = await context.loaders.of(this.postLoaders).byId.load(snapshot.postId);
    return post && this.posts.canSee(context.actor, post) ? snapshot : withhold(snapshot);
  }
}
