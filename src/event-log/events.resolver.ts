import { Args, Context, Resolver, Subscription } from '@nestjs/graphql';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { Loaders } from '../common/graphql/loaders.js';
import { ResourceCatalog } from '../common/resource/resource-catalog.js';
import { EventLogService } from './event-log.service.js';
import { EventModel, EventType } from './models/event.model.js';
import type { FeedEvent } from './feed-event.js';

type Item = FeedEvent | Error;

/** The index of the first filter argument of `subscribe` (declareEventSchema adds them). */
export const FIRST_FILTER = 3;

/**
 * The `events` subscription: the event log, resumable from a cursor. The fields of an event
 * about a resource (`post`, …) are resolved by the resource's own feature.
 */
@Resolver(() => EventModel)
export class EventsResolver {
  /** Live events are one object for every subscriber: they share its loaders too. */
  private readonly eventLoaders = new WeakMap<object, Loaders>();

  constructor(
    private readonly events: EventLogService,
    private readonly catalog: ResourceCatalog,
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
    @Context() context: GraphQLContext,
    // One per ref a resource declares as a filter (declareEventSchema), from FIRST_FILTER on.
    ...filters: (number | null | undefined)[]
  ): Promise<AsyncIterableIterator<Item>> {
    const refs: Record<string, number> = {};
    this.catalog.filterRefs().forEach((ref, index) => {
      const id = filters[index];
      if (id !== null && id !== undefined) refs[ref] = id;
    });
    const stream = await this.events.stream(after, { types: types ?? undefined, ...(Object.keys(refs).length > 0 ? { refs } : {}) }, context.actor);
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

  private loadersFor(item: object): Loaders {
    let loaders = this.eventLoaders.get(item);
    if (!loaders) this.eventLoaders.set(item, (loaders = new Loaders()));
    return loaders;
  }
}
