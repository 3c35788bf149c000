import { Context, Info, Parent, ResolveField, Resolver } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { type PostVisibility, ReadPolicy } from '../auth/read-policy.js';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { selectsLiveField, withhold } from '../common/resource/snapshot-fields.js';
import type { FeedEvent } from '../event-log/feed-event.js';
import { EventModel } from '../event-log/models/event.model.js';
import { Post } from './post.entity.js';
import { PostLoaders } from './posts.loader.js';

/** What the read policy looks at; a post without a status (before the editorial states) is published. */
const visibilityOf = (post: Post): PostVisibility => ({ status: (post as Partial<PostVisibility>).status ?? 'published', authorId: post.authorId });

/** `Event.post`: the post an event of the log is about. */
@Resolver(() => EventModel)
export class PostEventsResolver {
  constructor(
    private readonly postLoaders: PostLoaders,
    private readonly policy: ReadPolicy,
  ) {}

  @ResolveField('post', () => Post, {
    nullable: true,
    description:
      "A post event's post as the write left it (null for POST_DELETED; its comments, commentCount and tags are judged by the post as it is now: none for a reader who may not see it now); a comment event's post as it is now, loaded by id (null if it no longer exists or the reader may not see it)",
  })
  async post(@Parent() event: FeedEvent, @Context() context: GraphQLContext, @Info() info: GraphQLResolveInfo): Promise<Post | null> {
    if (event.kind === 'post') {
      const snapshot = event.resource as Post | null;
      if (!snapshot || !selectsLiveField(info, 'Post')) return snapshot;
      return (await this.seesNow(snapshot.id, context)) ? snapshot : withhold(snapshot);
    }
    const postId = event.refs.postId ?? null;
    if (postId === null) return null;
    const post = await context.loaders.of(this.postLoaders).byId.load(postId);
    // As it is now: a public comment event's post may since have become a draft (the loaders are
    // shared by every subscriber of the event, so the check is here, per reader).
    return post && this.policy.canSeePost(context.actor, visibilityOf(post)) ? post : null;
  }

  /** Whether the reader may see the post as it is now (what judges a snapshot's live fields). */
  private async seesNow(postId: number, context: GraphQLContext): Promise<boolean> {
    const post = await context.loaders.of(this.postLoaders).byId.load(postId);
    return !!post && this.policy.canSeePost(context.actor, visibilityOf(post));
  }
}
