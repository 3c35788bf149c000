import type { DocumentedResource } from '../common/openapi/api-docs.decorators.js';
import { type SchemaObject, schemaRef } from '../common/openapi/schemas.js';
import { resources } from '../common/resource/resource-definition.js';
import type { ListItem, ResourceOrigin } from '../common/resource/resource.js';
import { EVENT_CURSOR_PATTERN } from '../events/event-cursor.js';
import { eventTypes, type FeedEvent } from './feed-event.js';

const capitalized = (kind: string) => kind.charAt(0).toUpperCase() + kind.slice(1);

/** The path of one event: GET /events/{cursor}. */
export const eventPath = (cursor: string) => `/events/${cursor}`;

/** An event as GET /events shows it: ids only when it has them, the resource (its REST view) unless deleted. */
export function eventItem(event: FeedEvent): ListItem {
  const item: ListItem = { cursor: event.cursor, type: event.type, occurredAt: event.occurredAt.toISOString() };
  for (const ref in event.refs) {
    const id = event.refs[ref];
    if (id !== null) item[ref] = id;
  }
  const definition = resources.get(event.kind);
  if (event.resource !== null && definition) item.resource = definition.view(event.resource as never);
  return item;
}

const LINK: SchemaObject = { type: 'object', properties: { href: { type: 'string' } }, required: ['href'], additionalProperties: false };

/**
 * An event's schema, alone and as HAL shows it (with `_links.self`): its refs, types and
 * resources are the resources' declarations, read when the OpenAPI document is built.
 */
function eventSchema(hal: boolean): SchemaObject {
  return {
    type: 'object',
    get properties(): Record<string, SchemaObject> {
      const withEvents = resources.all().filter((definition) => definition.events.length > 0);
      return {
        cursor: { type: 'string', pattern: EVENT_CURSOR_PATTERN, description: 'Its place in the log: pass it as `after` to read what followed; GET /events/{cursor} reads the event alone' },
        type: { type: 'string', enum: eventTypes() },
        occurredAt: { type: 'string', format: 'date-time' },
        ...Object.fromEntries(resources.eventRefs().map(({ ref }) => [ref, { type: 'integer' }])),
        resource: {
          description: `The ${withEvents.map((definition) => definition.kind).join(' or ')} as the write left it; absent for deletions`,
          // As the log keeps it: a snapshot may lack the fields a read computes (a post's tags).
          oneOf: withEvents.map((definition) => schemaRef(`${capitalized(definition.kind)}Snapshot`, definition.snapshotSchema)),
        },
        ...(hal ? { _links: { type: 'object', properties: { self: LINK }, required: ['self'], additionalProperties: false } } : {}),
      };
    },
    required: ['cursor', 'type', 'occurredAt', ...(hal ? ['_links'] : [])],
    additionalProperties: false,
  };
}

/**
 * The event log, as a list and one event at a time: what the representations (JSON, HAL, XML;
 * its HTML pages are api/rest/pages' event pages) and the OpenAPI document need of it. An event's JSON and XML are its fields alone; HAL
 * adds `_links.self` (GET /events/{cursor}) to each, so a HAL client can follow it.
 */
export const EVENT_LIST: ResourceOrigin & DocumentedResource = {
  kind: 'event',
  plural: 'events',
  cursorParameter: 'after',
  cursorPattern: EVENT_CURSOR_PATTERN,
  schema: eventSchema(false),
  halSchema: eventSchema(true),
  halLinks: (item) => ({ self: { href: eventPath(String(item.cursor)) } }),
};
