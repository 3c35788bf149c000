import type { DocumentedResource } from '../common/openapi/api-docs.decorators.js';
import { type SchemaObject, schemaRef } from '../common/openapi/schemas.js';
import { NEXT_PAGE_TEMPLATE } from '../common/resource/html.js';
import { resources } from '../common/resource/resource-definition.js';
import type { ListItem, ListOrigin } from '../common/resource/resource.js';
import { COMMENT_RESOURCE } from '../comments/comment.resource.js';
import { POST_RESOURCE } from '../posts/post.resource.js';
import { EVENT_TYPES, type FeedEvent } from './feed-event.js';

const capitalized = (kind: string) => kind.charAt(0).toUpperCase() + kind.slice(1);

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
    cursor: { type: 'string', description: 'Its place in the log: pass it as `after` to read what followed' },
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

/** The event log as a list: what the representations (JSON, HAL, XML, HTML) and the OpenAPI document need of it. */
export const EVENT_LIST: ListOrigin & DocumentedResource = {
  kind: 'event',
  plural: 'events',
  cursorParameter: 'after',
  schema: EVENT_SCHEMA,
  html: {
    list: `<h1><%= it.title %></h1>
<ol class="events">
<% it.items.forEach(function (e) { %><li><code><%= e.type %></code> <time datetime="<%= e.occurredAt %>"><%= e.occurredAt %></time><% if (e.resource) { %> <a href="<%= e.resource._links.self.href %>"><%= e.resource._links.self.href %></a><% } %> by <a href="/users/<%= e.authorId %>">user <%= e.authorId %></a> <small>cursor <code><%= e.cursor %></code></small></li>
<% }) %></ol>
${NEXT_PAGE_TEMPLATE}`,
  },
  listItems: (items) => Promise.resolve(items),
};
