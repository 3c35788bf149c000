import type { EventAudience } from '../auth/read-policy.js';
import type { ResourceCatalog } from '../common/resource/resource-catalog.js';
import type { EventRefs } from '../common/resource/resource-definition.js';
import { eventName } from '../events/blog-events.js';
import { encodeEventCursor, type EventPosition } from '../events/event-cursor.js';
import type { LoggedEvent } from '../events/event-relay.js';
import type { EventReader, StoredEvent } from '../events/outbox.repository.js';

/** An event as GET /events and the `events` subscription serve it. */
export interface FeedEvent {
  position: EventPosition;
  cursor: string;
  type: string;
  occurredAt: Date;
  /** Every ref of the log, null where the event has none. */
  refs: EventRefs;
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
  /** Only the events with these ids (ref → id). */
  refs?: Readonly<Record<string, number>>;
  reader?: FeedReader;
}

export function matchesFilter(filter: FeedFilter, event: { type: string; refs: EventRefs; audience: EventAudience }): boolean {
  if (filter.types && filter.types.length > 0 && !filter.types.includes(event.type)) return false;
  for (const ref in filter.refs) if (filter.refs[ref] !== event.refs[ref]) return false;
  return !filter.reader || filter.reader.sees(event.audience);
}

/** An event read from the log; null when its type is unknown to this build. */
export function fromStored(catalog: ResourceCatalog, event: StoredEvent): FeedEvent | null {
  const definition = catalog.ofEvent(eventName(event.type));
  if (!definition) return null;
  return feedEvent(event, encodeEventCursor(event), definition.kind, event.resource === null ? null : (definition.fromJson(event.resource) as object));
}

/** An event as the relay published it (its payload is the revived resource already). */
export function fromLogged(catalog: ResourceCatalog, event: LoggedEvent): FeedEvent | null {
  const definition = catalog.ofEvent(event.name);
  if (!definition) return null;
  return feedEvent(event, event.cursor, definition.kind, event.resource === null ? null : event.payload);
}

function feedEvent(event: StoredEvent, cursor: string, kind: string, resource: object | null): FeedEvent {
  const { tx, id, type, occurredAt, refs } = event;
  return { position: { tx, id }, cursor, type, occurredAt, refs, kind, resource, size: event.resource?.length ?? 0 };
}
