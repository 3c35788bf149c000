import { Args, Context, ResolveField, Resolver, Subscription } from '@nestjs/graphql';
import { type PostVisibility, ReadPolicy } from '../auth/read-policy.js';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { Loaders } from '../common/graphql/loaders.js';
import { Comment } from '../comments/comment.entity.js';
import { optionalId } from '../events/subscription-gateway.js';
import { Post } from '../posts/post.entity.js';
import { PostLoaders } from '../posts/posts.loader.js';
import { EventLogService } from './event-log.service.js';
import { EventModel, EventType } from './models/event.model.js';
import type { FeedEvent } from './feed-event.js';

type Item = FeedEvent | Error;

/** What the read policy looks at; a post without a status (before the editorial states) is published. */
const visibilityOf = (post: Post): PostVisibility => ({ status: (post as Partial<PostVisibility>).status ?? 'published', authorId: post.authorId });

/** The `events` subscription: the event log, resumable from a cursor. */
@Resolver(() => EventModel)
export class EventsResolver {
  /** Live events are one object for every subscriber: they share its loaders too. */
  private readonly eventLoaders = new WeakMap<object, Loaders>();

  constructor(
    private readonly events: EventLogService,
    private readonly postLoaders: PostLoaders,
    private readonly policy: ReadPolicy,
  ) {}

  @Subscription(() => EventModel, {
    name: 'events',
    description:
      'Every write, as the event log records it, in commit order. With `after`, the events after that cursor first (CURSOR_EXPIRED when retention has pruned past it), then live ones, with none missed or repeated at the switch; without it, live ones only',
    // An Error here is the field's error (CURSOR_EXPIRED when pruning overtook a replay).
    resolve: (item: Item) => item,
  })
  async subscribe(
    @Args('after', { type: () => String, nullable: true, description: 'The cursor of the last event seen: replay what followed it, then go on live' }) after: string | null,
    @Args('types', { type: () => [EventType], nullable: true, description: 'Only events of these types' }) types: string[] | null,
    @optionalId('postId', 'Only events about this post (for comment events: the post they are on)') postId: number | null,
    @optionalId('authorId', 'Only events about posts and comments by this user') authorId: number | null,
    @Context() context: GraphQLContext,
  ): Promise<AsyncIterableIterator<Item>> {
    const stream = await this.events.stream(after, { types: types ?? undefined, postId: postId ?? undefined, authorId: authorId ?? undefined }, context.actor);
    const next = async (): Promise<IteratorResult<Item>> => {
      const result = await stream.next();
      if (!result.done) context.loaders = this.loadersFor(result.value);
      return result;
    };
    const iterator: AsyncIterableIterator<Item> = {
      next,
      return: () => stream.return(),
      throw: (error?: unknown) => stream.throw(error),
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  @ResolveField('post', () => Post, {
    nullable: true,
    description:
      "A post event's post as the write left it (null for POST_DELETED); a comment event's post as it is now, loaded by id (null if it no longer exists or the reader may not see it)",
  })
  async post(event: FeedEvent, _args: unknown, context: GraphQLContext): Promise<Post | null> {
    if (event.kind === 'post') return event.resource as Post | null;
    if (event.postId === null) return null;
    const post = await context.loaders.of(this.postLoaders).byId.load(event.postId);
    // As it is now: a public comment event's post may since have become a draft (the loaders are
    // shared by every subscriber of the event, so the check is here, per reader).
    return post && this.policy.canSeePost(context.actor, visibilityOf(post)) ? post : null;
  }

  @ResolveField('comment', () => Comment, {
    nullable: true,
    description: "A comment event's comment as the write left it; null for COMMENT_DELETED and for post events",
  })
  comment(event: FeedEvent): Comment | null {
    return event.kind === 'comment' ? (event.resource as Comment | null) : null;
  }

  private loadersFor(item: object): Loaders {
    let loaders = this.eventLoaders.get(item);
    if (!loaders) this.eventLoaders.set(item, (loaders = new Loaders()));
    return loaders;
  }
}
