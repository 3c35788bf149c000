import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { PubSubEngine } from 'graphql-subscriptions';
import { ResponseCache } from '../common/cache/response-cache.js';
import { type BlogEvent, CONTENT_CHANGED, type ContentChanged, CREDENTIALS_CHANGED, type CredentialsChanged } from './blog-events.js';

export const PUB_SUB = Symbol('PUB_SUB');

/**
 * Services hand it the events of a write once its transaction has committed. Publishing is
 * fire-and-forget for the writer: a bus outage never fails a write that already committed.
 * Every write also drops the cached answers, here at once (before the writer answers) and on
 * the other instances through the bus.
 */
@Injectable()
export class EventPublisher {
  private readonly logger = new Logger('Events');
  /** This instance, on the bus. */
  readonly origin = randomUUID();

  constructor(
    @Inject(PUB_SUB) private readonly pubSub: PubSubEngine,
    private readonly cache: ResponseCache,
  ) {}

  publish(...events: BlogEvent[]): void {
    this.changed();
    for (const { name, payload } of events) this.send(name, payload);
  }

  /** After a commit that changed what a user's credentials grant. */
  credentialsChanged(userId: number): void {
    this.changed();
    this.send(CREDENTIALS_CHANGED, { userId } satisfies CredentialsChanged);
  }

  /** After a commit that changed what readers see but has no subscription event (a user's name, a new user). */
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
