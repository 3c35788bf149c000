import type { DocumentedResource } from '../common/openapi/api-docs.decorators.js';
import { type SchemaObject, schemaRef } from '../common/openapi/schemas.js';
import { NEXT_PAGE_TEMPLATE } from '../common/resource/html.js';
import { resources } from '../common/resource/resource-definition.js';
import type { ListItem, ListOrigin, PageOrigin } from '../common/resource/resource.js';
import { COMMENT_RESOURCE } from '../comments/comment.resource.js';
import { EVENT_CURSOR_PATTERN } from '../events/event-cursor.js';
import { POST_RESOURCE } from '../posts/post.resource.js';
import { EVENT_TYPES, type FeedEvent } from './feed-event.js';

const capitalized = (kind: string) => kind.charAt(0).toUpperCase() + kind.slice(1);

/** The path of one event: GET /events/{cursor}. */
export const eventPath = (cursor: string) => `/events/${cursor}`;

/** An event as GET /events shows it: ids only when it has them, the resource (its REST view) unless deleted. */
export function eventItem(event: FeedEvent): ListItem {
  const item: ListItem = { cursor: event.cursor, type: event.type, occurredAt: event.occurredAt.toISOString() };
  if (event.postId !== null) item.postId = event.postId;
  if (event.commentId !== null) item.commentId = event.commentId;
  item.authorId = event.authorId;
  const definition = resources.get(event.kind);
  if (event.resource !== null && definition) item.resource = definition.view(event.resource as never);
  return item;
}

const EVENT_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    cursor: { type: 'string', pattern: EVENT_CURSOR_PATTERN, description: 'Its place in the log: pass it as `after` to read what followed; GET /events/{cursor} reads the event alone' },
    type: { type: 'string', enum: [...EVENT_TYPES] },
    occurredAt: { type: 'string', format: 'date-time' },
    postId: { type: 'integer' },
    commentId: { type: 'integer' },
    authorId: { type: 'integer' },
    resource: {
      description: 'The post or comment as the write left it; absent for deletions',
      oneOf: [POST_RESOURCE, COMMENT_RESOURCE].map((definition) => schemaRef(capitalized(definition.kind), definition.schema)),
    },
  },
  required: ['cursor', 'type', 'occurredAt', 'authorId'],
  additionalProperties: false,
};

const LINK: SchemaObject = { type: 'object', properties: { href: { type: 'string' } }, required: ['href'], additionalProperties: false };

/** An event as HAL shows it, alone or in a collection: the JSON fields and `_links.self`. */
const EVENT_HAL_SCHEMA: SchemaObject = {
  ...EVENT_SCHEMA,
  properties: {
    ...EVENT_SCHEMA.properties,
    _links: { type: 'object', properties: { self: LINK }, required: ['self'], additionalProperties: false },
  },
  required: [...EVENT_SCHEMA.required!, '_links'],
};

/**
 * The event log, as a list and one event at a time: what the representations (JSON, HAL, XML,
 * HTML) and the OpenAPI document need of it. An event's JSON and XML are its fields alone; HAL
 * adds `_links.self` (GET /events/{cursor}) to each, so a HAL client can follow it.
 */
export const EVENT_LIST: ListOrigin & PageOrigin & DocumentedResource = {
  kind: 'event',
  plural: 'events',
  cursorParameter: 'after',
  cursorPattern: EVENT_CURSOR_PATTERN,
  schema: EVENT_SCHEMA,
  halSchema: EVENT_HAL_SCHEMA,
  halLinks: (item) => ({ self: { href: eventPath(String(item.cursor)) } }),
  html: {
    title: (view) => `Event ${String(view.type)}`,
    page: `<article class="event">
<h1><code><%= it.event.type %></code></h1>
<p><time datetime="<%= it.event.occurredAt %>"><%= it.event.occurredAt %></time> by <a rel="author" href="/users/<%= it.event.authorId %>">user <%= it.event.authorId %></a></p>
<% if (it.event.resource) { %><p>As the write left it: <a href="<%= it.event.resource._links.self.href %>"><%= it.event.resource._links.self.href %></a></p><% } %>
<p><small>cursor <code><%= it.event.cursor %></code> · <a href="/events?after=<%= it.event.cursor %>">the events after it</a></small></p>
</article>`,
    list: `<h1><%= it.title %></h1>
<ol class="events">
<% it.items.forEach(function (e) { %><li><code><%= e.type %></code> <time datetime="<%= e.occurredAt %>"><%= e.occurredAt %></time><% if (e.resource) { %> <a href="<%= e.resource._links.self.href %>"><%= e.resource._links.self.href %></a><% } %> by <a href="/users/<%= e.authorId %>">user <%= e.authorId %></a> <small>cursor <a href="/events/<%= e.cursor %>"><code><%= e.cursor %></code></a></small></li>
<% }) %></ol>
${NEXT_PAGE_TEMPLATE}`,
  },
  listItems: (items) => Promise.resolve(items),
  pageModel: (view) => Promise.resolve({ event: view }),
};
