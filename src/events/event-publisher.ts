import { Inject, Injectable, Logger } from '@nestjs/common';
import type { PubSubEngine } from 'graphql-subscriptions';
import { type AudienceSet, type EventAudience, PUBLIC_AUDIENCE } from '../auth/read-policy.js';
import { ResponseCache } from '../common/cache/response-cache.js';
import type { Companion } from '../common/persistence/resource-repository.js';
import { Dialect } from '../common/persistence/dialect.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import type { Executor } from '../common/persistence/sql.js';
import { ResourceCatalog } from '../common/resource/resource-catalog.js';
import { AppConfig } from '../config/app-config.js';
import { type BlogEvent, type BlogEventName, CONTENT_CHANGED, type ContentChanged, CREDENTIALS_CHANGED, type CredentialsChanged, eventType } from './blog-events.js';
import { EventRelay } from './event-relay.js';
import { tagsOfEvents } from './event-tags.js';
import { type ErasureScope, OutboxRepository } from './outbox.repository.js';
import { traceParentOfActiveSpan } from '../tracing/spans.js';

export const PUB_SUB = Symbol('PUB_SUB');

/** How a resource's JSON starts, its id 0 (see `createdAs`). */
const ID_PLACEHOLDER = '{"id":0';

/** Ids named by one erasure statement, at most. */
const ERASURE_CHUNK = 1000;

/**
 * What keeps a copy of events' content outside the log (webhook deliveries) and erases it with
 * the log's: `events` is `SELECT id FROM events WHERE …`, the events an erasure reaches.
 */
export interface ContentEraser {
  eraseContent(executor: Executor, events: Fragment): Promise<void>;
}

/**
 * How services announce what they did. The events of a write are recorded in the write's own
 * transaction (`record`): what commits is announced, what rolls back never is, and a crash
 * after the commit loses nothing. Once the transaction has committed, `committed` drops the
 * cached answers here at once, before the writer answers, and lets this instance's relay publish
 * at once; the other instances hear of it from the database, and their relays drop their cached
 * answers before publishing it (and, with Redis, when the bus's word arrives, if that is sooner).
 * A write that records no event (`changed`) reaches their caches through the bus (Redis), or
 * without Redis through PostgreSQL (see EventRelay.announceChange).
 */
@Injectable()
export class EventPublisher {
  private readonly logger = new Logger('Events');
  private readonly bus: boolean;
  private readonly erasers: ContentEraser[] = [];

  constructor(
    @Inject(PUB_SUB) private readonly pubSub: PubSubEngine,
    private readonly outbox: OutboxRepository,
    private readonly relay: EventRelay,
    private readonly cache: ResponseCache,
    private readonly dialect: Dialect,
    config: AppConfig,
    private readonly catalog: ResourceCatalog,
  ) {
    this.bus = Boolean(config.redisUrl);
  }

  /** This instance, in the log and on the bus. */
  get origin(): string {
    return this.relay.origin;
  }

  /**
   * Records the events of a write, inside its transaction, in the order given. Where the dialect
   * tells when the transaction commits (SQLite), the relay is handed the events then, with a copy
   * of each resource as its payload, and need not read them back from the log.
   */
  async record(executor: Executor, ...events: BlogEvent[]): Promise<void> {
    const occurredAt = new Date();
    const traceParent = traceParentOfActiveSpan();
    const payloads: object[] = [];
    const stored = await this.outbox.append(
      executor,
      events.map(({ name, payload, audience }) => {
        const definition = this.definitionOf(name);
        const deletion = !(payload instanceof definition.entity);
        payloads.push(deletion ? definition.deletedPayload(definition.refsOf(payload)) : definition.copyOf(payload as never));
        return {
          type: eventType(name),
          occurredAt,
          refs: definition.refsOf(payload),
          resource: deletion ? null : definition.toJson(payload as never),
          origin: this.origin,
          audience,
          traceParent,
        };
      }),
    );
    if (!this.relay.takesHandOver) return;
    const handed = stored.map((event, index) => ({ ...event, payload: payloads[index] }));
    this.dialect.whenTransactionEnds((committed) => {
      if (committed) this.relay.committing(handed);
    });
  }

  /**
   * Privacy (CONTRACT §7): when resources or users are deleted for good, erases the content of
   * the earlier events that carry their ids (`{postId: [...]}`: a post's, and its comments', which
   * carry it; `{authorId: [...]}`: everything a user wrote) and of the copies kept of it
   * (ContentEraser), inside the deletion's transaction, so a deletion that rolls back erases
   * nothing. Type, ids and time stay. A few statements, whatever the count.
   */
  eraseContent(executor: Executor, scope: ErasureScope): Promise<void> {
    return this.erase(executor, scope);
  }

  /** eraseContent, with `beyond` only of the events whose audience is wider than that one. */
  private async erase(executor: Executor, scope: ErasureScope, beyond?: AudienceSet): Promise<void> {
    const entries = Object.entries(scope).map(([ref, ids = []]) => [ref, ids] as const);
    if (entries.reduce((count, [, ids]) => count + ids.length, 0) > ERASURE_CHUNK) {
      // A user with thousands of posts: a few statements per thousand ids (the drivers bound the parameters of one).
      for (const [ref, ids] of entries) {
        for (let start = 0; start < ids.length; start += ERASURE_CHUNK) await this.erase(executor, { [ref]: ids.slice(start, start + ERASURE_CHUNK) }, beyond);
      }
      return;
    }
    const events = this.outbox.erasedEvents(scope, beyond);
    if (!events) return;
    // The copies first: they are found through the events the erasure reaches.
    for (const eraser of this.erasers) await eraser.eraseContent(executor, events);
    await this.outbox.erase(executor, scope, beyond);
  }

  /**
   * CONTRACT §18: content that stops being public (a post unpublished or trashed, a comment set to
   * spam or hidden) leaves the log as deleted content does (eraseContent), but only in the events
   * whose audience is wider than `now`, the audience of its events from now on: those who still
   * see it (and its author, the owner of its non-public events) keep its history. Called in the write's transaction, before its new events are recorded.
   * Content made public again is announced anew, with its content, by the write's own event; the
   * earlier events stay without.
   */
  withdrawContent(executor: Executor, scope: ErasureScope, now: AudienceSet): Promise<void> {
    return now.audience === 'public' ? Promise.resolve() : this.erase(executor, scope, now);
  }

  /** A keeper of copies of events' content (see ContentEraser), at start-up. */
  addEraser(eraser: ContentEraser): void {
    this.erasers.push(eraser);
  }

  private definitionOf(name: string) {
    const definition = this.catalog.ofEvent(name);
    if (!definition?.eventRefs) throw new Error(`No resource declares the event ${name}`);
    return definition;
  }

  /**
   * The `created` event of a new row, for its repository to write with the row, atomically
   * (ResourceRepository.insertRecorded): an INSERT into the outbox made from the new row.
   */
  created<T>(name: BlogEventName, audience: EventAudience = PUBLIC_AUDIENCE): Companion<T> {
    const fields = Object.entries(this.definitionOf(name).eventRefs ?? {}) as [string, keyof T & string][];
    return (row, source) => {
      const refs = Object.fromEntries(fields.map(([ref, field]) => [ref, row.column(field)]));
      return this.outbox.insertFrom(source, { type: eventType(name), occurredAt: new Date(), origin: this.origin, refs, resource: row.json, audience, traceParent: traceParentOfActiveSpan() });
    };
  }

  /**
   * `created`, for an event whose payload the writer knows but for its id (a new post): the
   * resource is the text `record` writes for that payload, byte for byte, with the new row's id.
   */
  createdAs<T extends { id: number }>({ name, payload, audience }: BlogEvent): Companion<T> {
    const definition = this.definitionOf(name);
    const fields = Object.entries(definition.eventRefs ?? {}) as [string, keyof T & string][];
    // The id is the first field of every resource: the text after it is the payload's own.
    const text = definition.toJson(Object.assign(definition.copyOf(payload as never), { id: 0 }) as never);
    if (!text.startsWith(ID_PLACEHOLDER)) throw new Error(`The ${name} payload does not start with its id`);
    const rest = text.slice(ID_PLACEHOLDER.length);
    return (row, source) => {
      const refs = Object.fromEntries(fields.map(([ref, field]) => [ref, row.column(field)]));
      const resource = sql`${sql.raw(`'{"id":' || CAST(${row.column('id')} AS text) || `)}CAST(${rest} AS text)`;
      return this.outbox.insertFrom(source, { type: eventType(name), occurredAt: new Date(), origin: this.origin, refs, resource, audience, traceParent: traceParentOfActiveSpan() });
    };
  }

  /**
   * After the commit of a write that recorded events: with `events` (those it recorded), the
   * cached answers they touch are dropped (tagsOfEvents); without, every one.
   */
  committed(events?: readonly Pick<BlogEvent, 'name' | 'payload'>[]): void {
    this.invalidate(events && tagsOfEvents(events.map(({ name, payload }) => ({ name, postId: this.definitionOf(name).refsOf(payload).postId ?? null }))));
    this.relay.settle();
  }

  /** After a commit that changed what a user's credentials grant: said on the bus, to every instance. */
  credentialsChanged(userId: number): void {
    this.changed();
    this.send(CREDENTIALS_CHANGED, { userId } satisfies CredentialsChanged);
  }

  /** After a commit that changed what readers see but has no event in the log (a user's name, a new user). */
  changed(): void {
    this.invalidate();
    if (!this.bus) this.relay.announceChange();
  }

  /**
   * Drops the cached answers of these tags (null: every one) here, and tells the other instances
   * over the bus (they may keep some even if this one does not).
   */
  private invalidate(tags: string[] | null = null): void {
    this.cache.invalidate(tags);
    if (this.bus) this.send(CONTENT_CHANGED, (tags ? { origin: this.origin, tags } : { origin: this.origin }) satisfies ContentChanged);
  }

  private send(name: string, payload: unknown): void {
    this.pubSub.publish(name, payload).catch((error: unknown) => {
      this.logger.warn(`Could not publish ${name}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}
