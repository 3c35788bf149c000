import { Args, Field, GraphQLISODateTime, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { resources } from '../../common/resource/resource-definition.js';
import type { FeedEvent } from '../feed-event.js';

/** GraphQL's `EventType`: the log's own type names, as the resources declare them (declareEventSchema). */
export const EventType: Record<string, string> = {};
const eventTypeValues: Record<string, { description: string }> = {};

// Read when the schema is built: EventType and its values are filled by then.
registerEnumType(EventType, { name: 'EventType', description: 'What a write did', valuesMap: eventTypeValues });

/**
 * The GraphQL `Event` type. Its refs (`postId`, …) are the resources' (declareEventSchema); each
 * resource with events adds a field of its own kind (`post`, …), resolved in its feature folder.
 */
@ObjectType('Event', { description: 'One entry of the event log: what a write did, in the order writes committed' })
export class EventModel {
  @Field(() => String, { description: 'Its place in the log (opaque): pass it as `after` to resume after this event' })
  cursor: string;

  @Field(() => EventType, { description: 'What happened' })
  type: string;

  @Field(() => GraphQLISODateTime, { description: 'When the write happened' })
  occurredAt: Date;
}

/** The filters of the `events` subscription after its own arguments: one per ref declared with a `filter`. */
export const eventFilterRefs = (): string[] => resources.eventRefs().flatMap(({ ref, filter }) => (filter ? [ref] : []));

let declared = false;

/**
 * Adds what the resources declare about their events to the GraphQL schema: the values of
 * `EventType`, a nullable Int field of `Event` per ref, and the filters of the `events`
 * subscription (`resolver` and `method`, whose arguments from `firstFilter` on are the filters,
 * in eventFilterRefs' order). Called once every feature module is loaded (EventLogModule's
 * constructor), before the schema is built; once per process, since the schema's metadata is.
 */
export function declareEventSchema(resolver: object, method: string, firstFilter: number): void {
  if (declared) return;
  declared = true;
  for (const { type, description } of resources.eventTypes()) {
    EventType[type] = type;
    eventTypeValues[type] = { description };
  }
  for (const { ref, description } of resources.eventRefs()) {
    Field(() => Int, {
      nullable: true,
      description: description ?? `The ${ref} of what it is about (null if none)`,
      middleware: [({ source }) => (source as FeedEvent).refs[ref] ?? null],
    })(EventModel.prototype, ref);
  }
  const filters = resources.eventRefs().filter(({ filter }) => filter);
  filters.forEach(({ ref, filter }, index) => Args(ref, { type: () => Int, nullable: true, description: filter })(resolver, method, firstFilter + index));
}
