import { Field, GraphQLISODateTime, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { EVENT_TYPES, type EventTypeName } from '../feed-event.js';

/** GraphQL's `EventType`: the log's own type names. */
export const EventType = Object.fromEntries(EVENT_TYPES.map((type) => [type, type])) as { [K in EventTypeName]: K };

registerEnumType(EventType, {
  name: 'EventType',
  description: 'What a write did',
  valuesMap: {
    POST_CREATED: { description: 'A post was written' },
    POST_UPDATED: { description: 'A post was changed' },
    POST_DELETED: { description: 'A post was deleted (a COMMENT_DELETED for each of its comments comes before it)' },
    POST_PUBLISHED: { description: 'A post became public (published by an edit or by its schedule)' },
    POST_UNPUBLISHED: { description: 'A public post stopped being public (back to draft or scheduled, or trashed): ids only' },
    COMMENT_CREATED: { description: 'A comment was written' },
    COMMENT_UPDATED: { description: 'A comment was changed' },
    COMMENT_DELETED: { description: 'A comment was deleted' },
  },
});

/** The GraphQL `Event` type; `post` and `comment` are resolved fields (EventsResolver). */
@ObjectType('Event', { description: 'One entry of the event log: what a write did, in the order writes committed' })
export class EventModel {
  @Field(() => String, { description: 'Its place in the log (opaque): pass it as `after` to resume after this event' })
  cursor: string;

  @Field(() => EventType, { description: 'What happened' })
  type: EventTypeName;

  @Field(() => GraphQLISODateTime, { description: 'When the write happened' })
  occurredAt: Date;

  @Field(() => Int, { nullable: true, description: 'The post it is about (for a comment event, the post the comment is on)' })
  postId: number | null;

  @Field(() => Int, { nullable: true, description: 'The comment it is about; null for post events' })
  commentId: number | null;

  @Field(() => Int, { description: 'The author of the post or comment it is about' })
  authorId: number;
}
