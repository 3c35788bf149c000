import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { PubSubEngine } from 'graphql-subscriptions';
import { ResponseCache } from '../common/cache/response-cache.js';
import type { Executor } from '../common/persistence/sql.js';
import { type EventRefs, resources } from '../common/resource/resource-definition.js';
import { type BlogEvent, CONTENT_CHANGED, type ContentChanged, CREDENTIALS_CHANGED, type CredentialsChanged, eventType } from './blog-events.js';
import { EventRelay } from './event-relay.js';
import { OutboxRepository } from './outbox.repository.js';

export const PUB_SUB = Symbol('PUB_SUB');

/**
 * How services announce what they did. The events of a write are recorded in the write's own
 * transaction (`record`): what commits is announced, what rolls back never is, and a crash
 * after the commit loses nothing. Once the transaction has committed, `committed` drops the
 * cached answers (here at once, before the writer answers; on the other instances through the
 * bus) and lets this instance's relay publish at once (the others hear it from the database).
 */
@Injectable()
export class EventPublisher {
  private readonly logger = new Logger('Events');
  /** This instance, on the bus. */
  readonly origin = randomUUID();

  constructor(
    @Inject(PUB_SUB) private readonly pubSub: PubSubEngine,
    private readonly outbox: OutboxRepository,
    private readonly relay: EventRelay,
    private readonly cache: ResponseCache,
  ) {}

  /** Records the events of a write, inside its transaction, in the order given. */
  record(executor: Executor, ...events: BlogEvent[]): Promise<void> {
    const occurredAt = new Date();
    return this.outbox.append(
      executor,
      events.map(({ name, payload }) => {
        const definition = resources.ofEvent(name);
        if (!definition?.eventRefs) throw new Error(`No resource declares the event ${name}`);
        const refs = (definition.eventRefs.of as (payload: unknown) => EventRefs)(payload);
        const deletion = !(payload instanceof definition.entity);
        return { type: eventType(name), occurredAt, ...refs, resource: deletion ? null : definition.toJson(payload as never) };
      }),
    );
  }

  /** After the commit of a write that recorded events. */
  committed(): void {
    this.changed();
    this.relay.wake();
  }

  /** After a commit that changed what a user's credentials grant: said on the bus, to every instance. */
  credentialsChanged(userId: number): void {
    this.changed();
    this.send(CREDENTIALS_CHANGED, { userId } satisfies CredentialsChanged);
  }

  /** After a commit that changed what readers see but has no event in the log (a user's name, a new user). */
  changed(): void {
    this.cache.invalidate();
    if (this.cache.enabled) this.send(CONTENT_CHANGED, { origin: this.origin } satisfies ContentChanged);
  }

  private send(name: string, payload: unknown): void {
    this.pubSub.publish(name, payload).catch((error: unknown) => {
      this.logger.warn(`Could not publish ${name}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}
