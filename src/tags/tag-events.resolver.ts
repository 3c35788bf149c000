import { ResolveField, Resolver } from '@nestjs/graphql';
import type { FeedEvent } from '../event-log/feed-event.js';
import { EventModel } from '../event-log/models/event.model.js';
import { Tag } from './tag.entity.js';

/** `Event.tag`: the tag an event of the log is about. */
@Resolver(() => EventModel)
export class TagEventsResolver {
  @ResolveField('tag', () => Tag, {
    nullable: true,
    description: "A tag event's tag as the write left it; null for TAG_DELETED and for other events",
  })
  tag(event: FeedEvent): Tag | null {
    return event.kind === 'tag' ? (event.resource as Tag | null) : null;
  }
}
