import type { OpenAPIObject, ParameterObject } from '@nestjs/swagger';
import type { DocumentedResource } from '../common/openapi/api-docs.decorators.js';
import type { SchemaObject } from '../common/openapi/schemas.js';
import type { ResourceCatalog } from '../common/resource/resource-catalog.js';
import type { ListItem, ResourceOrigin } from '../common/resource/resource.js';
import { EVENT_CURSOR_PATTERN } from '../events/event-cursor.js';
import type { FeedEvent } from './feed-event.js';

const capitalized = (kind: string) => kind.charAt(0).toUpperCase() + kind.slice(1);

/** The path of one event: GET /events/{cursor}. */
export const eventPath = (cursor: string) => `/events/${cursor}`;

/** An event as GET /events shows it: ids only when it has them, the resource (its REST view) unless deleted. */
export function eventItem(catalog: ResourceCatalog, event: FeedEvent): ListItem {
  const item: ListItem = { cursor: event.cursor, type: event.type, occurredAt: event.occurredAt.toISOString() };
  for (const ref in event.refs) {
    const id = event.refs[ref];
    if (id !== null) item[ref] = id;
  }
  const definition = catalog.get(event.kind);
  if (event.resource !== null && definition) item.resource = definition.view(event.resource as never);
  return item;
}

const LINK: SchemaObject = { type: 'object', properties: { href: { type: 'string' } }, required: ['href'], additionalProperties: false };

/**
 * An event's schema, alone and as HAL shows it (with `_links.self`): its refs, types and
 * resources are the application's resources' declarations.
 */
function eventSchema(catalog: ResourceCatalog, hal: boolean): SchemaObject {
  const withEvents = catalog.all().filter((definition) => definition.events.length > 0);
  return {
    type: 'object',
    properties: {
      cursor: { type: 'string', pattern: EVENT_CURSOR_PATTERN, description: 'Its place in the log: pass it as `after` to read what followed; GET /events/{cursor} reads the event alone' },
      type: { type: 'string', enum: catalog.eventTypeNames() },
      occurredAt: { type: 'string', format: 'date-time' },
      ...Object.fromEntries(catalog.eventRefs().map(({ ref }) => [ref, { type: 'integer' }])),
      resource: {
        description: `The ${withEvents.map((definition) => definition.kind).join(' or ')} as the write left it; absent for deletions`,
        // As the log keeps it: a snapshot may lack the fields a read computes (a post's tags).
        oneOf: withEvents.map((definition) => ({ $ref: `#/components/schemas/${snapshotName(definition.kind)}` })),
      },
      ...(hal ? { _links: { type: 'object', properties: { self: LINK }, required: ['self'], additionalProperties: false } } : {}),
    },
    required: ['cursor', 'type', 'occurredAt', ...(hal ? ['_links'] : [])],
    additionalProperties: false,
  };
}

const snapshotName = (kind: string) => `${capitalized(kind)}Snapshot`;

/**
 * States the application's event vocabulary in its OpenAPI document: the schemas of an event
 * (alone and in HAL) with those of the snapshots they refer to, and the types GET /events filters by.
 */
export function describeEventLog(document: OpenAPIObject, catalog: ResourceCatalog): void {
  const schemas = (document.components ??= {}).schemas ?? (document.components.schemas = {});
  schemas.Event = eventSchema(catalog, false);
  schemas.EventHal = eventSchema(catalog, true);
  // In the order the document's walk of its references added them before (the last first).
  for (const definition of catalog.all().reverse()) if (definition.events.length > 0) schemas[snapshotName(definition.kind)] = definition.snapshotSchema;
  const types = catalog.eventTypeNames();
  const type = `(?:${types.join('|')})`;
  for (const operation of [document.paths['/events']?.get, document.paths['/events']?.head]) {
    const parameters = operation?.parameters as ParameterObject[] | undefined;
    const index = parameters?.findIndex((candidate) => candidate.in === 'query' && candidate.name === 'types') ?? -1;
    if (index < 0) continue;
    const { name, required, in: location, schema } = parameters![index];
    const { maxLength, ...rest } = schema as SchemaObject;
    parameters![index] = {
      name,
      required,
      in: location,
      description: `Only these types, comma-separated: ${types.join(', ')}`,
      schema: { maxLength, pattern: `^${type}(?:,${type})*$`, ...rest },
    };
  }
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
  // Placeholders: the application's schemas replace them in its document (describeEventLog).
  schema: { type: 'object' },
  halSchema: { type: 'object' },
  halLinks: (item) => ({ self: { href: eventPath(String(item.cursor)) } }),
};
