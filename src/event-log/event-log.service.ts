import { Inject, Injectable } from '@nestjs/common';
import type { PubSubEngine } from 'graphql-subscriptions';
import { ReadPolicy } from '../auth/read-policy.js';
import type { Actor } from '../common/actor.js';
import { DomainError } from '../common/errors/domain-error.js';
import { ResourceCatalog } from '../common/resource/resource-catalog.js';
import { decodeEventCursor, encodeEventCursor, type EventPosition, isAfter, START } from '../events/event-cursor.js';
import { EVERY_EVENT, LOCAL_EVENTS, type LoggedEvent } from '../events/event-relay.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import { EventLogRepository } from './event-log.repository.js';
import { EventStream } from './event-stream.js';
import { type FeedEvent, type FeedFilter, type FeedReader, fromLogged, fromStored } from './feed-event.js';

/** Events read from the log at a time when a subscriber resumes, at most... */
const REPLAY_PAGE = 200;
/** ...and about how many bytes of them (a stream whose client is slow holds up to a page). */
const REPLAY_PAGE_BYTES = 1_048_576;
/** Live events one subscriber may have waiting (beyond it the stream reads them back from the log). */
const LIVE_BUFFER = 1000;

export interface EventPage {
  events: FeedEvent[];
  /** The cursor the next page starts after, when more events exist. */
  next: string | null;
}

/** What a reader asks of the log: types and ids (the read policy adds whose eyes). */
export type FeedQuery = Omit<FeedFilter, 'reader'>;

/**
 * The event log as readers see it: pages of it (GET /events) and streams that replay it from a
 * cursor and then go on live (the `events` subscription). A cursor from before what retention
 * pruned is refused with CURSOR_EXPIRED, since the events after it are no longer all there.
 *
 * Every read is for an actor: it gets only the events whose audience the read policy lets it
 * see (ReadPolicy.canSeeAudience), skipped in SQL when read from the log, so pages and replays
 * stay full and their cursors only name events the reader saw; live events are tested in memory.
 */
@Injectable()
export class EventLogService {
  /** One feed view per live event, so every subscriber gets the same object (and shares its execution). */
  private readonly views = new WeakMap<LoggedEvent, FeedEvent | null>();

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly pruning: EventLogRepository,
    @Inject(LOCAL_EVENTS) private readonly bus: PubSubEngine,
    private readonly policy: ReadPolicy,
    private readonly catalog: ResourceCatalog,
  ) {}

  /** The read policy's word on an actor, in the two forms reads need (SQL and in memory). */
  readerOf(actor: Actor | null | undefined): FeedReader {
    return { ...this.policy.audienceReader(actor), sees: (audience) => this.policy.canSeeAudience(actor, audience) };
  }

  /** `POST_CREATED,COMMENT_CREATED` → the types; an unknown one is bad input. */
  parseTypes(list: string | undefined, field = 'types'): string[] | undefined {
    if (list === undefined) return undefined;
    const types = list.split(',').map((type) => type.trim());
    const known = this.catalog.eventTypeNames();
    const unknown = types.filter((type) => !known.includes(type));
    if (unknown.length > 0) {
      throw DomainError.badInput(`${field} has an unknown event type: ${unknown.join(', ')}`, [
        { field, message: `must be a comma-separated list of ${known.join(', ')}` },
      ]);
    }
    return types;
  }

  /**
   * One event by its cursor, as a page shows it: read and filtered as pages are, so whoever may not
   * see it in a page cannot read it here. 404 when there is none, 410 when retention pruned it.
   */
  async event(cursor: string, actor: Actor | null, query: FeedQuery = {}): Promise<FeedEvent> {
    const [event] = await this.read(decodeEventCursor(cursor, 'cursor'), 1, { ...query, reader: this.readerOf(actor) }, true);
    if (!event) throw DomainError.notFound('Event', cursor);
    return event;
  }

  /** Up to `limit` events after the cursor (from the oldest kept without one), oldest first. */
  async page(after: string | undefined, limit: number, query: FeedQuery, actor: Actor | null): Promise<EventPage> {
    const position = after === undefined ? START : decodeEventCursor(after);
    const events = await this.read(position, limit + 1, { ...query, reader: this.readerOf(actor) });
    const more = events.length > limit;
    const items = more ? events.slice(0, limit) : events;
    return { events: items, next: more ? items[items.length - 1].cursor : null };
  }

  /**
   * The events after the cursor, then live ones; without a cursor, live ones only. The cursor is
   * checked here, before any event, so that a bad or expired one fails the subscription at once.
   */
  async stream(after: string | null | undefined, query: FeedQuery, actor: Actor | null): Promise<EventStream> {
    const filter: FeedFilter = { ...query, reader: this.readerOf(actor) };
    const position = after === undefined || after === null ? null : decodeEventCursor(after);
    if (position) await this.assertKept(position);
    // Live only: what commits from now on. The head of the log is read first and the stream then
    // reads from there (usually nothing) before going live, so an event this instance's relay
    // has not published yet is neither taken for a new one nor missed.
    const start = position ?? (await this.outbox.latest());
    return new EventStream(
      {
        listen: (onEvent) => this.listen(onEvent),
        read: (from, limit, readFilter) => this.read(from, limit, readFilter),
        live: (event) => this.view(event),
      },
      { after: start, replay: true, filter, pageSize: REPLAY_PAGE, pageBytes: REPLAY_PAGE_BYTES, bufferLimit: LIVE_BUFFER },
    );
  }

  /**
   * Reads the log (the events after `position`, or with `exact` the one at it), then looks at the
   * pruning mark: a prune that committed before the read is seen by the look after it, so a page
   * never silently misses pruned events, and a pruned event is told apart from one that never was.
   */
  private async read(position: EventPosition, limit: number, filter: FeedFilter, exact = false): Promise<FeedEvent[]> {
    const stored = exact ? await this.outbox.at(position, filter) : await this.outbox.after(position, limit, filter);
    if (!exact || stored.length === 0) await this.assertKept(position, exact);
    return stored.map((event) => fromStored(this.catalog, event)).filter((event): event is FeedEvent => event !== null);
  }

  /** Refuses (CURSOR_EXPIRED) a position whose followers were pruned, or with `itself` one that was pruned. */
  private async assertKept(position: EventPosition, itself = false): Promise<void> {
    // The start stands for "from the oldest event kept".
    if (position.tx === START.tx && position.id === START.id) return;
    const pruned = await this.pruning.pruned();
    if (itself ? !isAfter(position, pruned) : isAfter(pruned, position)) {
      throw new DomainError(
        'CURSOR_EXPIRED',
        itself
          ? 'This event has been pruned (events are kept EVENTS_RETENTION_DAYS days)'
          : `Events after this cursor have been pruned (they are kept EVENTS_RETENTION_DAYS days); read again from the oldest kept (no cursor), which starts after ${encodeEventCursor(pruned)}`,
      );
    }
  }

  private listen(onEvent: (event: LoggedEvent) => void): () => void {
    let id: number | undefined;
    let stopped = false;
    // The in-process bus registers the handler at once; only the id comes back later.
    void this.bus.subscribe(EVERY_EVENT, onEvent, {}).then((subscriptionId) => {
      if (stopped) this.bus.unsubscribe(subscriptionId);
      else id = subscriptionId;
    });
    return () => {
      stopped = true;
      if (id !== undefined) this.bus.unsubscribe(id);
    };
  }

  private view(event: LoggedEvent): FeedEvent | null {
    let view = this.views.get(event);
    if (view === undefined) {
      view = fromLogged(this.catalog, event);
      this.views.set(event, view);
    }
    return view;
  }
}
