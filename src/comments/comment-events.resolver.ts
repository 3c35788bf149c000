import { ResolveField, Resolver } from '@nestjs/graphql';
import type { FeedEvent } from '../event-log/feed-event.js';
import { EventModel } from '../event-log/models/event.model.js';
import { Comment } from './comment.entity.js';

/** `Event.comment`: the comment an event of the log is about. */
@Resolver(() => EventModel)
export class CommentEventsResolver {
  @ResolveField('comment', () => Comment, {
    nullable: true,
    description: "A comment event's comment as the write left it; null for COMMENT_DELETED and for post events",
  })
  comment(event: FeedEvent): Comment | null {
    return event.kind === 'comment' ? (event.resource as Comment | null) : null;
  }
}
