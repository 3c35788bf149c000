import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { PubSubEngine } from 'graphql-subscriptions';
import pg from 'pg';
import { resources } from '../common/resource/resource-definition.js';
import { AppConfig } from '../config/app-config.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { eventName } from './blog-events.js';
import { encodeEventCursor, type EventPosition } from './event-cursor.js';
import { OutboxRepository, type StoredEvent } from './outbox.repository.js';

/** The in-process bus the relay publishes to: the subscriptions of this instance listen on it. */
export const LOCAL_EVENTS = Symbol('LOCAL_EVENTS');

/** The channel of every event, with its place in the log (what the `events` subscription reads). */
export const EVERY_EVENT = 'event';

/** An event as published on EVERY_EVENT. */
export interface LoggedEvent extends StoredEvent {
  cursor: string;
  /** The subscription field's name (`postCreated`). */
  name: string;
  /** What the subscription field resolves: the resource, or a deletion's ids. */
  payload: object;
}

const BATCH = 500;
const POLL_MS = 1000;
const RECONNECT_MS = 1000;

/**
 * Publishes committed events to this instance's subscribers, from the outbox, in log order,
 * each once. Every instance reads the log for itself (a write on one instance reaches the
 * subscribers of all of them through the database), so nothing acknowledged is lost to a
 * crash after the commit or to a Redis outage: the relay simply goes on from where it was.
 *
 * It reads when this instance has just committed a write (`wake`), when PostgreSQL announces an
 * insert into the log (LISTEN), and every second in any case (a missed announcement, a
 * transaction that was still open when the log was last read).
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EventRelay');
  private position: EventPosition = { tx: 0, id: 0 };
  private started = false;
  private draining: Promise<void> | null = null;
  private again = false;
  private timer?: NodeJS.Timeout;
  private listener?: pg.Client;
  private stopped = false;

  constructor(
    private readonly outbox: OutboxRepository,
    @Inject(LOCAL_EVENTS) private readonly bus: PubSubEngine,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  /** Where this instance has published up to. */
  get published(): EventPosition {
    return this.position;
  }

  async onApplicationBootstrap(): Promise<void> {
    // Subscribers of this instance hear what is written from now on; earlier events are history
    // (the `events` subscription and GET /events read it).
    this.position = await this.outbox.latest();
    this.started = true;
    this.timer = setInterval(() => this.wake(), POLL_MS);
    this.timer.unref();
    if (this.config.database.type === 'postgres') this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.draining;
  }

  /** Reads the log now (coalesced: one read at a time, and one more if woken meanwhile). */
  wake(): void {
    if (!this.started || this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const batch = await this.outbox.after(this.position, BATCH);
        for (const event of batch) this.publish(event);
        if (batch.length < BATCH) return;
      }
    } catch (error) {
      // The database is away: the next wake-up (at the latest, the next second) goes on from here.
      this.logger.debug(`Could not read the event log: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private publish(event: StoredEvent): void {
    this.position = { tx: event.tx, id: event.id };
    const name = eventName(event.type);
    const definition = resources.ofEvent(name);
    if (!definition?.eventRefs) {
      this.logger.warn(`An event of unknown type ${event.type} in the log (id ${event.id}) was skipped`);
      return;
    }
    const payload = event.resource !== null ? definition.fromJson(event.resource) : definition.deletedPayload(event);
    this.metrics.eventsPublished.labels(event.type).inc();
    this.metrics.eventsRelayLag.observe(Math.max(0, Date.now() - event.occurredAt.getTime()) / 1000);
    void this.bus.publish(name, payload);
    const logged: LoggedEvent = { ...event, cursor: encodeEventCursor(event), name, payload };
    void this.bus.publish(EVERY_EVENT, logged);
  }

  /** PostgreSQL: a connection of its own that hears every insert into the log, and comes back after an outage. */
  private listen(): void {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.config.database.url, application_name: 'blog-event-relay' });
    this.listener = client;
    const retry = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.removeAllListeners();
      void client.end().catch(() => undefined);
      setTimeout(() => this.listen(), RECONNECT_MS).unref();
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', () => this.wake());
    client
      .connect()
      .then(() => client.query('LISTEN blog_events'))
      // Whatever was written while not listening.
      .then(() => this.wake())
      .catch(retry);
  }
}
