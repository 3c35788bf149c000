import { Args, Field, GraphQLISODateTime, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import type { ResourceCatalog } from '../../common/resource/resource-catalog.js';
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

/** The vocabulary declared (declareEventSchema), as JSON: a process has one. */
let declared: string | null = null;

/**
 * Adds what the catalog's resources declare about their events to the GraphQL schema: the
 * values of `EventType`, a nullable Int field of `Event` per ref, and the filters of the `events`
 * subscription (`resolver` and `method`, whose arguments from `firstFilter` on are the filters,
 * in the catalog's filterRefs order). Called by EventLogModule.forRoot with the application's
 * catalog, before the schema is built. Nest keeps the code-first schema's metadata per process,
 * so this declares it once: again with the same vocabulary (another application of the same
 * resources) it does nothing, with another one it throws rather than serve a wrong schema.
 */
export function declareEventSchema(catalog: ResourceCatalog, resolver: object, method: string, firstFilter: number): void {
  const vocabulary = JSON.stringify([catalog.eventTypes(), catalog.eventRefs()]);
  if (declared !== null) {
    if (declared === vocabulary) return;
    throw new Error('The GraphQL event schema of this process was declared for other resources: one process serves one event vocabulary');
  }
  declared = vocabulary;
  for (const { type, description } of catalog.eventTypes()) {
    EventType[type] = type;
    eventTypeValues[type] = { description };
  }
  for (const { ref, description } of catalog.eventRefs()) {
    Field(() => Int, {
      nullable: true,
      description: description ?? `The ${ref} of what it is about (null if none)`,
      middleware: [({ source }) => (source as FeedEvent).refs[ref] ?? null],
    })(EventModel.prototype, ref);
  }
  const filters = catalog.eventRefs().filter(({ filter }) => filter);
  filters.forEach(({ ref, filter }, index) => Args(ref, { type: () => Int, nullable: true, description: filter })(resolver, method, firstFilter + index));
}
