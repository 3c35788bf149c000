import { randomBytes } from 'node:crypto';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { PubSubEngine } from 'graphql-subscriptions';
import { Dialect } from '../common/persistence/dialect.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { ResourceCatalog } from '../common/resource/resource-catalog.js';
import { AppConfig } from '../config/app-config.js';
import { eventName } from '../events/blog-events.js';
import { encodeEventCursor, isAfter } from '../events/event-cursor.js';
import { EVERY_EVENT, LOCAL_EVENTS } from '../events/event-relay.js';
import { OutboxRepository, PUBLIC_READER, type StoredEvent } from '../events/outbox.repository.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { type AttemptOutcome, type ClaimedDelivery, type NewDelivery, WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { inSpan, outsideTrace, SpanKind, startRootSpan } from '../tracing/spans.js';

const FEED_BATCH = 100;
const POLL_MS = 1000;
/** PostgreSQL, with no webhook active and nothing pending: every this many polls (another instance may add one). */
const IDLE_POLLS = 5;
/** Attempts in flight at once on one instance. */
const CONCURRENCY = 10;
/** How long a claimed delivery stays this instance's beyond the attempt's own timeout. */
const LEASE_MARGIN_MS = 30_000;
/** The retry delay is lengthened by up to this fraction, so that retries of many deliveries spread out. */
const JITTER = 0.2;

/**
 * Sends the event log to the webhooks, through the database so that nothing is lost across
 * restarts and several instances share the work:
 *
 * - the feeder reads the public events of the outbox after its stored position and, in one transaction, queues one
 *   delivery per matching webhook and event and advances the position (PostgreSQL: under a lock
 *   on the position's row, so two instances never feed the same events);
 * - the sender claims due deliveries with a lease (PostgreSQL: FOR UPDATE SKIP LOCKED, so each
 *   is claimed by one instance), POSTs them, and records each attempt: delivered, or due again
 *   after a delay doubling per attempt, or given up after WEBHOOK_MAX_ATTEMPTS.
 *
 * Both run when this instance's relay publishes an event, and every second in any case.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly inFlight = new Set<Promise<void>>();
  private readonly wakeUps = new Set<NodeJS.Timeout>();
  private feeding: Promise<void> | null = null;
  private feedAgain = false;
  private claiming: Promise<void> | null = null;
  private claimAgain = false;
  private timer?: NodeJS.Timeout;
  private subscription?: number;
  private started = false;
  private stopped = false;
  /** As last counted: active webhooks, and deliveries pending. */
  private activeWebhooks = 0;
  private pending = 0;
  private idlePolls = 0;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly transactions: TransactionRunner,
    @Inject(LOCAL_EVENTS) private readonly bus: PubSubEngine,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly dialect: Dialect,
    private readonly catalog: ResourceCatalog,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.started = true;
    this.subscription = await this.bus.subscribe(EVERY_EVENT, () => {
      if (this.activeWebhooks > 0) this.wakeFeeder();
    }, {});
    this.timer = setInterval(() => this.poll(), POLL_MS);
    this.timer.unref();
    this.tick();
  }

  /** Stops taking work, then waits for the attempts in flight to be sent and recorded. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    for (const wakeUp of this.wakeUps) clearTimeout(wakeUp);
    this.wakeUps.clear();
    if (this.subscription !== undefined) this.bus.unsubscribe(this.subscription);
    let timeout: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timeout = setTimeout(resolve, this.config.webhookTimeoutMs + 1000)));
    await Promise.race([Promise.allSettled([this.feeding, this.claiming, ...this.inFlight]), deadline]);
    clearTimeout(timeout);
  }

  /** Looks at the queue again now: a webhook was created, changed or deleted. */
  refresh(): void {
    if (this.started && !this.stopped) this.tick();
  }

  /**
   * The safety net (a retry due from another instance, a webhook another instance created): one
   * statement a second while there is work; while there is none, none at all where no other
   * instance shares the database (SQLite: this process knows of every change) and one every few
   * seconds where others do (PostgreSQL).
   */
  private poll(): void {
    const busy = this.activeWebhooks > 0 || this.pending > 0 || this.inFlight.size > 0;
    if (!busy && (!this.dialect.shared || ++this.idlePolls < IDLE_POLLS)) return;
    this.idlePolls = 0;
    this.tick();
  }

  private tick(): void {
    // Outside the trace of whatever woke it (a request that changed a webhook), as the feeder and sender are.
    outsideTrace(() => this.transactions.single(() => this.deliveries.workload()))
      .then(({ pending, activeWebhooks }) => {
        this.activeWebhooks = activeWebhooks;
        this.pending = pending;
        this.metrics.webhookQueueDepth.set(pending);
        if (activeWebhooks > 0) this.wakeFeeder();
        if (pending > 0) this.wakeSender();
      })
      .catch((error: unknown) => this.logger.debug(`Could not read the webhook queue: ${message(error)}`));
  }

  /** Queues deliveries for what the log holds beyond the feed's position (coalesced, like the relay). */
  wakeFeeder(): void {
    if (!this.started || this.stopped) return;
    if (this.feeding) {
      this.feedAgain = true;
      return;
    }
    // Outside the trace of what woke it (the relay's batch): each feed that queues deliveries is a trace of its own.
    this.feeding = outsideTrace(() => this.feed())
      .catch((error: unknown) => this.logger.debug(`Could not queue webhook deliveries: ${message(error)}`))
      .finally(() => {
        this.feeding = null;
        if (this.feedAgain) {
          this.feedAgain = false;
          this.wakeFeeder();
        }
      });
  }

  /** Claims and sends what is due, as far as this instance has room for more attempts in flight. */
  wakeSender(): void {
    if (!this.started || this.stopped) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = outsideTrace(() => this.claim())
      .catch((error: unknown) => this.logger.debug(`Could not claim webhook deliveries: ${message(error)}`))
      .finally(() => {
        this.claiming = null;
        if (this.claimAgain) {
          this.claimAgain = false;
          this.wakeSender();
        }
      });
  }

  private async feed(): Promise<void> {
    for (;;) {
      const wanted = await this.transactions.single(() => this.webhooks.active());
      if (wanted.length === 0 || this.stopped) return;
      const fed = await this.transactions.single(() => this.webhooks.feedPosition(undefined, false));
      // No active webhook wants anything before the earliest of their starting points.
      const earliest = wanted.reduce((min, webhook) => (isAfter(min, webhook.after) ? webhook.after : min), wanted[0].after);
      // Public events only (CONTRACT §7), skipped in SQL: the feed's position moves past the
      // others with the next public event read.
      const events = await this.outbox.after(isAfter(earliest, fed) ? earliest : fed, FEED_BATCH, { reader: PUBLIC_READER });
      if (events.length === 0) return;
      // With tracing on, the queuing has a span of its own, linked to the writes that recorded the events.
      const span = startRootSpan('webhook feed', SpanKind.INTERNAL, { 'messaging.batch.message_count': events.length }, events.map((event) => event.traceParent));
      const queued = await inSpan(span, () => this.transactions.run(async (manager) => {
        const position = await this.webhooks.feedPosition(manager, true);
        // Another instance fed these events meanwhile: read again from where it left off.
        if (position.tx !== fed.tx || position.id !== fed.id) return null;
        const active = await this.webhooks.active(manager);
        const rows: NewDelivery[] = [];
        for (const event of events) {
          const matching = active.filter((webhook) => webhook.types.includes(event.type as never) && isAfter(event, webhook.after));
          if (matching.length === 0) continue;
          let payload: string;
          try {
            payload = payloadOf(event, this.catalog);
          } catch (error) {
            // One unreadable event must not stop the feed for every later one.
            this.logger.warn(`Event ${event.id} (${event.type}) could not be sent to webhooks: ${message(error)}`);
            continue;
          }
          const eventCursor = encodeEventCursor(event);
          for (const webhook of matching) {
            rows.push({ webhookId: webhook.id, eventId: event.id, eventCursor, messageId: `msg_${randomBytes(16).toString('base64url')}`, payload, traceParent: event.traceParent });
          }
        }
        await this.deliveries.insert(rows, manager);
        await this.webhooks.advanceFeed(events[events.length - 1], manager);
        return rows.length;
      })).finally(() => span?.end());
      if (queued) this.wakeSender();
      if (queued !== null && events.length < FEED_BATCH) return;
    }
  }

  private async claim(): Promise<void> {
    while (!this.stopped) {
      const room = CONCURRENCY - this.inFlight.size;
      if (room <= 0) return;
      const now = new Date();
      const leaseUntil = new Date(now.getTime() + this.config.webhookTimeoutMs + LEASE_MARGIN_MS);
      const claimed = await this.transactions.single(() => this.deliveries.claimDue(now, leaseUntil, room));
      for (const delivery of claimed) {
        const attempt: Promise<void> = this.attempt(delivery)
          .catch((error: unknown) => this.logger.warn(`Webhook attempt of delivery ${delivery.id} not recorded: ${message(error)}`))
          .finally(() => {
            this.inFlight.delete(attempt);
            this.wakeSender();
          });
        this.inFlight.add(attempt);
      }
      if (claimed.length < room) return;
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    // The sender (and standardwebhooks) is loaded with the first delivery: never while no webhook exists.
    const { sendSigned } = await import('./webhook-sender.js');
    const result = await sendSigned({
      url: delivery.url,
      secret: delivery.secret,
      messageId: delivery.messageId,
      body: delivery.payload,
      timeoutMs: this.config.webhookTimeoutMs,
      allowPrivate: this.config.webhookAllowPrivate,
      traceParent: delivery.traceParent,
    });
    const at = new Date();
    const attempt = delivery.attempts + 1;
    const outcome: AttemptOutcome = result.ok ? 'delivered' : attempt >= this.config.webhookMaxAttempts ? 'failed' : 'retrying';
    const delay = this.config.webhookRetryBaseMs * 2 ** (attempt - 1) * (1 + Math.random() * JITTER);
    const nextAttemptAt = outcome === 'retrying' ? new Date(at.getTime() + Math.round(delay)) : null;
    const recorded = await this.transactions.run((manager) =>
      this.deliveries.record(delivery, { outcome, httpStatus: result.httpStatus, durationMs: result.durationMs, error: result.error, at, nextAttemptAt }, manager),
    );
    if (!recorded) return;
    this.metrics.webhookDeliveries.labels(outcome).inc();
    if (nextAttemptAt) this.wakeAt(nextAttemptAt);
  }

  /** Wakes the sender when a retry falls due, rather than at the next poll. */
  private wakeAt(due: Date): void {
    if (this.stopped) return;
    const wakeUp = setTimeout(() => {
      this.wakeUps.delete(wakeUp);
      this.wakeSender();
    }, Math.max(0, due.getTime() - Date.now()));
    wakeUp.unref();
    this.wakeUps.add(wakeUp);
  }
}

/** The body POSTed for an event: `{type, timestamp, data}`, `data` as GET /events lists the event. */
export function payloadOf(event: StoredEvent, catalog: ResourceCatalog): string {
  const occurredAt = event.occurredAt.toISOString();
  const data: Record<string, unknown> = { cursor: encodeEventCursor(event), type: event.type, occurredAt };
  for (const ref in event.refs) {
    const id = event.refs[ref];
    if (id !== null) data[ref] = id;
  }
  if (event.resource !== null) {
    const definition = catalog.ofEvent(eventName(event.type));
    if (definition) data.resource = definition.view(definition.fromJson(event.resource));
  }
  return JSON.stringify({ type: event.type, timestamp: occurredAt, data });
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
