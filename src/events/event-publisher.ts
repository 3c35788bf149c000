import { Inject, Injectable, Logger } from '@nestjs/common';
import type { PubSubEngine } from 'graphql-subscriptions';
import { ResponseCache } from '../common/cache/response-cache.js';
import type { Companion, ResourceRepository, Versioned } from '../common/persistence/resource-repository.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { resources } from '../common/resource/resource-definition.js';
import { AppConfig } from '../config/app-config.js';
import { type BlogEvent, type BlogEventName, type BlogEvents, CONTENT_CHANGED, type ContentChanged, CREDENTIALS_CHANGED, type CredentialsChanged, eventType } from './blog-events.js';
import { EventRelay } from './event-relay.js';
import { OutboxRepository } from './outbox.repository.js';

export const PUB_SUB = Symbol('PUB_SUB');

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

  constructor(
    @Inject(PUB_SUB) private readonly pubSub: PubSubEngine,
    private readonly outbox: OutboxRepository,
    private readonly relay: EventRelay,
    private readonly cache: ResponseCache,
    private readonly sql: Sql,
    private readonly transactions: TransactionRunner,
    config: AppConfig,
  ) {
    this.bus = Boolean(config.redisUrl);
  }

  /** This instance, in the log and on the bus. */
  get origin(): string {
    return this.relay.origin;
  }

  /**
   * A new row and its `created` event, atomically. On PostgreSQL one statement (the event's
   * INSERT fed from the new row in a data-modifying WITH: no BEGIN, no COMMIT, one round trip);
   * on SQLite one transaction of the two INSERTs, queued like every other.
   */
  insertRecorded<T extends Versioned, K extends BlogEventName>(
    repository: ResourceRepository<T>,
    values: Omit<Partial<T>, 'id' | 'version'>,
    name: K,
  ): Promise<T> {
    if (this.sql.sqlite) {
      return this.transactions.run(async (manager) => {
        const created = await repository.insertWith(values, undefined, manager);
        await this.record(manager, { name, payload: created as unknown as BlogEvents[K] });
        return created;
      });
    }
    return repository.insertWith(values, this.createdEvent<T>(name));
  }

  /** Records the events of a write, inside its transaction, in the order given. */
  record(executor: Executor, ...events: BlogEvent[]): Promise<void> {
    const occurredAt = new Date();
    return this.outbox.append(
      executor,
      events.map(({ name, payload }) => {
        const definition = this.definitionOf(name);
        const deletion = !(payload instanceof definition.entity);
        return {
          type: eventType(name),
          occurredAt,
          ...definition.refsOf(payload),
          resource: deletion ? null : definition.toJson(payload as never),
          origin: this.origin,
        };
      }),
    );
  }

  private definitionOf(name: string) {
    const definition = resources.ofEvent(name);
    if (!definition?.eventRefs) throw new Error(`No resource declares the event ${name}`);
    return definition;
  }

  /** The event of a new row as an INSERT made from it in the same statement (PostgreSQL). */
  private createdEvent<T>(name: string): Companion<T> {
    const definition = this.definitionOf(name);
    const refs = definition.eventRefs as Record<string, string>;
    const companion = (column: (property: keyof T & string) => string, next: number) => {
      const ref = (key: string) => (refs[key] ? column(refs[key] as keyof T & string) : 'NULL');
      const fields = definition.fieldNames.map((field) => `'${field.replace(/'/g, "''")}', ${column(field as keyof T & string)}`);
      return {
        sql:
          'INSERT INTO events (type, occurred_at, post_id, comment_id, author_id, resource, origin) ' +
          `SELECT $${next}, $${next + 1}, ${ref('postId')}, ${ref('commentId')}, ${ref('authorId')}, json_build_object(${fields.join(', ')})::text, $${next + 2} FROM r`,
        params: [eventType(name), new Date(), this.origin],
      };
    };
    return Object.assign(companion, { key: `event:${name}` });
  }

  /** After the commit of a write that recorded events. */
  committed(): void {
    this.invalidate();
    this.relay.wake();
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

  /** Empties this instance's cache, and tells the other instances over the bus (they may keep one even if this one does not). */
  private invalidate(): void {
    this.cache.invalidate();
    if (this.bus) this.send(CONTENT_CHANGED, { origin: this.origin } satisfies ContentChanged);
  }

  private send(name: string, payload: unknown): void {
    this.pubSub.publish(name, payload).catch((error: unknown) => {
      this.logger.warn(`Could not publish ${name}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}
