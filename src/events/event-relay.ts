import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { PubSubEngine } from 'graphql-subscriptions';
import { ResponseCache } from '../common/cache/response-cache.js';
import { Dialect, type Listener } from '../common/persistence/dialect.js';
import { ResourceCatalog } from '../common/resource/resource-catalog.js';
import { AppConfig } from '../config/app-config.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { carriesContent, eventName } from './blog-events.js';
import { encodeEventCursor, type EventPosition } from './event-cursor.js';
import { tagsOfEvents } from './event-tags.js';
import { OutboxRepository, type StoredEvent } from './outbox.repository.js';
import { inSpan, outsideTrace, SpanKind, startRootSpan } from '../tracing/spans.js';

/** The in-process bus the relay publishes to: the subscriptions of this instance listen on it. */
export const LOCAL_EVENTS = Symbol('LOCAL_EVENTS');

/** The channel of every event, with its place in the log (what the `events` subscription reads). */
export const EVERY_EVENT = 'event';

/** An event as published on EVERY_EVENT and on its name's channel (with its audience: StoredEvent.audience). */
export interface LoggedEvent extends StoredEvent {
  cursor: string;
  /** The subscription field's name (`postCreated`). */
  name: string;
  /** What the subscription field resolves: the resource, or a deletion's ids. */
  payload: object;
}

/** PostgreSQL: a commit added events to the log (sent by a trigger on `events`). */
const EVENTS_CHANNEL = 'blog_events';
/** PostgreSQL without Redis: a write that records no event changed what readers see (payload: the writer's origin). */
const CHANGES_CHANNEL = 'blog_changes';

/** An event this instance has just committed, handed to its relay with the payload to publish (EventRelay.committing). */
export interface HandedEvent extends StoredEvent {
  payload: object;
}

const BATCH = 500;
const POLL_MS = 1000;

/**
 * Publishes committed events to this instance's subscribers, from the outbox, in log order,
 * each once. Every instance reads the log for itself (a write on one instance reaches the
 * subscribers of all of them through the database), so nothing acknowledged is lost to a
 * crash after the commit or to a Redis outage: the relay simply goes on from where it was.
 *
 * It reads when this instance has just committed a write (`wake`), when PostgreSQL announces an
 * insert into the log (LISTEN), and every second in any case (a missed announcement, a
 * transaction that was still open when the log was last read).
 *
 * On SQLite (one process owns the file, so every event is this instance's own), a write's events
 * are handed over as its transaction commits (`committing`), and published without reading the
 * log back when they follow on from the relay's position (their ids contiguous with it): nothing
 * can lie between. Otherwise (an event written by another path came between) the log is read as
 * above, and the handed events it covers are dropped, so each event is published once, in order.
 *
 * The response cache: before it publishes an event that another instance wrote, the relay drops
 * the cached answers the event touches (tagsOfEvents; a deletion, every one), so a subscriber
 * that has seen the event never reads what the write replaced here (whatever the bus between
 * instances, if any, says and when). An event of this instance's own is left alone: its writer
 * dropped them already, before it answered, and dropping them again later would only drop
 * answers kept since. Without Redis, the writes that
 * record no event (a user's name, a sign-up) are announced to the other instances through
 * PostgreSQL (NOTIFY on `blog_changes`), and while this instance cannot hear that channel its
 * cache serves and keeps nothing.
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EventRelay');
  private position: EventPosition = { tx: 0, id: 0 };
  private started = false;
  private draining: Promise<void> | null = null;
  private again = false;
  /** Whether the next drain (`again`) reads the log, or only publishes what was handed over. */
  private againReads = false;
  /** Events committed here and handed over, in commit (= id) order, not yet published. */
  private handed: HandedEvent[] = [];
  /** Writes whose events were handed over and whose writer has not yet settled (EventPublisher.committed). */
  private handedWrites = 0;
  private handedOverCount = 0;
  private timer?: NodeJS.Timeout;
  private listener: Listener | null = null;
  private stopped = false;
  /** The look at the held-back events under way, if any (measureHeldBack). */
  private measuring: Promise<void> | null = null;
  /** This instance, in the log (the events it wrote) and on the bus. */
  readonly origin = randomUUID();
  /** A database other instances share (PostgreSQL), without Redis: the database carries the writes that record no event. */
  private readonly carriesChanges: boolean;

  constructor(
    private readonly outbox: OutboxRepository,
    @Inject(LOCAL_EVENTS) private readonly bus: PubSubEngine,
    config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly cache: ResponseCache,
    private readonly dialect: Dialect,
    private readonly catalog: ResourceCatalog,
  ) {
    this.carriesChanges = dialect.shared && !config.redisUrl;
  }

  /** How many events were published as handed over, without reading them back (for tests). */
  get handedOver(): number {
    return this.handedOverCount;
  }

  /** Where this instance has published up to. */
  get published(): EventPosition {
    return this.position;
  }

  async onApplicationBootstrap(): Promise<void> {
    // Subscribers of this instance hear what is written from now on; earlier events are history
    // (the `events` subscription and GET /events read it).
    this.position = await this.outbox.latest();
    this.started = true;
    this.timer = setInterval(() => {
      this.wake();
      this.measureHeldBack();
    }, POLL_MS);
    this.timer.unref();
    // Other instances' writes without events are unheard until LISTEN is in place.
    if (this.carriesChanges) this.cache.suspend();
    await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.listener?.close();
    await this.draining;
    await this.measuring;
  }

  /** Whether this instance's writers hand it their committed events (`committing`): where no other process writes the log. */
  get takesHandOver(): boolean {
    return !this.dialect.shared;
  }

  /** The events of a transaction that has just committed, in id order (see `takesHandOver`); published at the next `settle`. */
  committing(events: readonly HandedEvent[]): void {
    if (!this.started || this.stopped || events.length === 0) return;
    this.handed.push(...events);
    this.handedWrites += 1;
  }

  /**
   * After a write that recorded events: publishes the events handed over, or reads the log for
   * a write that handed none (the log is read once after every such write, so none waits for
   * the timer: the writers settle in any order, but each write that handed events settles once).
   */
  settle(): void {
    if (this.handedWrites > 0) {
      this.handedWrites -= 1;
      this.run(false);
    } else {
      this.run(true);
    }
  }

  /** Reads the log now (coalesced: one read at a time, and one more if woken meanwhile). */
  wake(): void {
    this.run(true);
  }

  /** Settles once the relay has nothing running or due (a read of the log, handed-over events to publish); for tests that count statements. */
  async quiet(): Promise<void> {
    while (this.draining || this.measuring) await (this.draining ?? this.measuring);
  }

  private run(reads: boolean): void {
    if (!this.started || this.stopped) return;
    if (this.draining) {
      this.again = true;
      this.againReads ||= reads;
      return;
    }
    // Outside the trace of the request that woke it: each batch is a trace of its own, linked to its events' writes.
    this.draining = outsideTrace(() => this.drain(reads)).finally(() => {
      this.draining = null;
      if (this.again) {
        const again = this.againReads;
        this.again = false;
        this.againReads = false;
        this.run(again);
      }
    });
  }

  private async drain(reads: boolean): Promise<void> {
    try {
      for (;;) {
        this.publishHanded();
        // What was handed over and does not follow on: something came between, only the log knows what.
        if (!reads && this.handed.length === 0) return;
        const batch = await this.outbox.after(this.position, BATCH);
        this.dropTouched(batch);
        if (batch.length > 0) this.publishBatch(batch, null, { 'messaging.batch.message_count': batch.length });
        if (batch.length < BATCH) {
          // Handed events that still do not follow on were committed after the read: their writer's `settle` reads again.
          this.publishHanded();
          return;
        }
      }
    } catch (error) {
      // The database is away: the next wake-up (at the latest, the next second) goes on from here.
      this.logger.debug(`Could not read the event log: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * What an operator watches (README, Operations): the events committed after this instance's
   * position that it may not read yet, and how long the oldest has waited. On PostgreSQL a read
   * of the log waits for every transaction older than an event's own, on the whole cluster (so
   * that an event committing late with a lower position is never skipped): one open write
   * transaction anywhere holds back delivery, and the invalidation of other instances' caches
   * that rides on it, for as long as it stays open.
   */
  private measureHeldBack(): void {
    if (this.measuring || this.stopped) return;
    this.measuring = this.outbox
      .heldBack(this.position)
      .then(({ count, oldest }) => {
        this.metrics.eventsRelayHeldBack.set(count);
        this.metrics.eventsRelayHeldBackAge.set(oldest ? Math.max(0, Date.now() - oldest.getTime()) / 1000 : 0);
      })
      // The database is away: the gauges keep their last values until it answers again.
      .catch(() => undefined)
      .finally(() => (this.measuring = null));
  }

  /**
   * Drops the cached answers that other instances' events touch (tagsOfEvents); a deletion drops
   * every one (an erasure arrives as deletions, and says nothing of the names it removed).
   */
  private dropTouched(batch: readonly StoredEvent[]): void {
    const theirs = batch.filter((event) => event.origin !== this.origin);
    if (theirs.length === 0) return;
    if (theirs.some((event) => event.resource === null)) return this.cache.invalidate();
    this.cache.invalidate(tagsOfEvents(theirs.map((event) => ({ name: eventName(event.type), postId: event.refs.postId ?? null }))));
  }

  /** Publishes the handed-over events that follow on from the position; drops those already published from the log. */
  private publishHanded(): void {
    while (this.handed.length > 0 && this.handed[0].id <= this.position.id) this.handed.shift();
    let count = 0;
    while (count < this.handed.length && this.handed[count].id === this.position.id + 1 + count && this.handed[count].tx === this.position.tx) count += 1;
    if (count === 0) return;
    this.publishBatch(this.handed.splice(0, count), (event) => (event as HandedEvent).payload, { 'messaging.batch.message_count': count, 'blog.events.handed_over': true });
    this.handedOverCount += count;
  }

  /**
   * Publishes a batch under its span (with tracing on): the root of a trace of its own, linked to
   * the spans of the writes that recorded its events (their `traceParent`).
   */
  private publishBatch(batch: readonly StoredEvent[], payloadOf: ((event: StoredEvent) => object) | null, attributes: Record<string, number | boolean>): void {
    const span = startRootSpan('event relay batch', SpanKind.INTERNAL, attributes, batch.map((event) => event.traceParent));
    inSpan(span, () => {
      for (const event of batch) this.publish(event, payloadOf ? payloadOf(event) : null);
    });
    span?.end();
  }

  /** `payload`: the resource handed over with the event; null to read it from the event's JSON. */
  private publish(event: StoredEvent, payload: object | null): void {
    this.position = { tx: event.tx, id: event.id };
    const name = eventName(event.type);
    const definition = this.catalog.ofEvent(name);
    if (!definition?.eventRefs) {
      this.logger.warn(`An event of unknown type ${event.type} in the log (id ${event.id}) was skipped`);
      return;
    }
    // Its content erased or withdrawn since the write: the feed still has its ids, its own field has nothing to resolve.
    const erased = payload === null && event.resource === null && carriesContent(name);
    payload ??= event.resource !== null ? definition.fromJson(event.resource) : definition.deletedPayload(event.refs);
    this.metrics.eventsPublished.labels(event.type).inc();
    this.metrics.eventsRelayLag.observe(Math.max(0, Date.now() - event.occurredAt.getTime()) / 1000);
    // One object for every listener, with its audience: each subscriber keeps what it may see.
    const { id, tx, type, occurredAt, refs, resource, origin, audience, traceParent } = event;
    const logged: LoggedEvent = { id, tx, type, occurredAt, refs, resource, origin, audience, traceParent, cursor: encodeEventCursor(event), name, payload };
    if (!erased) void this.bus.publish(name, logged);
    void this.bus.publish(EVERY_EVENT, logged);
  }

  /**
   * After the commit of a write that records no event: the other instances drop their cached
   * answers. PostgreSQL without Redis only (with Redis, the bus carries it; SQLite serves one
   * process per database file).
   */
  announceChange(): void {
    if (!this.carriesChanges) return;
    this.outbox.notify(CHANGES_CHANNEL, this.origin).catch((error: unknown) => {
      this.logger.warn(`Could not announce a change to the other instances: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /**
   * Where other instances share the database (PostgreSQL): a connection that hears every insert
   * into the log (and, without Redis, the other instances' writes without events), and comes
   * back after an outage. Settles once the first attempt has connected or failed.
   */
  private listen(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const channels = this.carriesChanges ? [EVENTS_CHANNEL, CHANGES_CHANNEL] : [EVENTS_CHANNEL];
    this.listener = this.dialect.listen('blog-event-relay', channels, {
      notification: (channel, payload) => {
        if (channel !== CHANGES_CHANNEL) this.wake();
        else if (payload !== this.origin) this.cache.invalidate();
      },
      up: () => {
        // Whatever was written while not listening.
        if (this.carriesChanges) this.cache.resume();
        this.wake();
      },
      down: () => {
        if (this.carriesChanges) this.cache.suspend();
      },
    });
    return this.listener?.ready ?? Promise.resolve();
  }
}
