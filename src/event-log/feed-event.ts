import type { EventAudience } from '../auth/read-policy.js';
import { resources } from '../common/resource/resource-definition.js';
import { eventName } from '../events/blog-events.js';
import { encodeEventCursor, type EventPosition } from '../events/event-cursor.js';
import type { LoggedEvent } from '../events/event-relay.js';
import type { EventReader, StoredEvent } from '../events/outbox.repository.js';

/** Every type of event in the log, in the order the schema lists them. */
export const EVENT_TYPES = ['POST_CREATED', 'POST_UPDATED', 'POST_DELETED', 'POST_PUBLISHED', 'POST_UNPUBLISHED', 'COMMENT_CREATED', 'COMMENT_UPDATED', 'COMMENT_DELETED'] as const;

export type EventTypeName = (typeof EVENT_TYPES)[number];

/** An event as GET /events and the `events` subscription serve it. */
export interface FeedEvent {
  position: EventPosition;
  cursor: string;
  type: string;
  occurredAt: Date;
  postId: number | null;
  commentId: number | null;
  authorId: number;
  /** The kind of resource it is about (`post`, `comment`). */
  kind: string;
  /** That resource as the write left it (an entity); null for deletions. */
  resource: object | null;
  /** The length of the resource as stored (JSON): about what holding the event costs. */
  size: number;
}

/**
 * Who reads, as the read policy says (EventLogService.readerOf): reads from the log test
 * `role`/`userId` in SQL (audienceSql), live events are tested by `sees` (ReadPolicy.canSeeAudience).
 */
export interface FeedReader extends EventReader {
  sees(audience: EventAudience): boolean;
}

/** Which events a reader wants (unset: all) and may see (`reader`; unset: every event). */
export interface FeedFilter {
  types?: readonly string[];
  postId?: number;
  authorId?: number;
  reader?: FeedReader;
}

export function matchesFilter(filter: FeedFilter, event: { type: string; postId: number | null; authorId: number; audience: EventAudience }): boolean {
  return (
    (!filter.types || filter.types.length === 0 || filter.types.includes(event.type)) &&
    (filter.postId === undefined || filter.postId === event.postId) &&
    (filter.authorId === undefined || filter.authorId === event.authorId) &&
    (!filter.reader || filter.reader.sees(event.audience))
  );
}

/** An event read from the log; null when its type is unknown to this build. */
export function fromStored(event: StoredEvent): FeedEvent | null {
  const definition = resources.ofEvent(eventName(event.type));
  if (!definition) return null;
  return feedEvent(event, encodeEventCursor(event), definition.kind, event.resource === null ? null : (definition.fromJson(event.resource) as object));
}

/** An event as the relay published it (its payload is the revived resource already). */
export function fromLogged(event: LoggedEvent): FeedEvent | null {
  const definition = resources.ofEvent(event.name);
  if (!definition) return null;
  return feedEvent(event, event.cursor, definition.kind, event.resource === null ? null : event.payload);
}

function feedEvent(event: StoredEvent, cursor: string, kind: string, resource: object | null): FeedEvent {
  const { tx, id, type, occurredAt, postId, commentId, authorId } = event;
  return { position: { tx, id }, cursor, type, occurredAt, postId, commentId, authorId, kind, resource, size: event.resource?.length ?? 0 };
}
