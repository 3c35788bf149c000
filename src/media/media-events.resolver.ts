import { ResolveField, Resolver } from '@nestjs/graphql';
import type { FeedEvent } from '../event-log/feed-event.js';
import { EventModel } from '../event-log/models/event.model.js';
import { Media } from './media.entity.js';

/** `Event.media`: the media item an event of the log is about. */
@Resolver(() => EventModel)
export class MediaEventsResolver {
  @ResolveField('media', () => Media, {
    nullable: true,
    description: "A media event's item as the write left it; null for MEDIA_DELETED and for other events",
  })
  media(event: FeedEvent): Media | null {
    return event.kind === 'media' ? (event.resource as Media | null) : null;
  }
}
