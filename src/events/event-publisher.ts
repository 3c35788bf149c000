import { Inject, Injectable, Logger } from '@nestjs/common';
import type { PubSubEngine } from 'graphql-subscriptions';
import { type BlogEvent, CREDENTIALS_CHANGED, type CredentialsChanged } from './blog-events.js';

export const PUB_SUB = Symbol('PUB_SUB');

/**
 * Services hand it the events of a write once its transaction has committed. Publishing is
 * fire-and-forget for the writer: a bus outage never fails a write that already committed.
 */
@Injectable()
export class EventPublisher {
  private readonly logger = new Logger('Events');

  constructor(@Inject(PUB_SUB) private readonly pubSub: PubSubEngine) {}

  publish(...events: BlogEvent[]): void {
    for (const { name, payload } of events) this.send(name, payload);
  }

  /** After a commit that changed what a user's credentials grant. */
  credentialsChanged(userId: number): void {
    this.send(CREDENTIALS_CHANGED, { userId } satisfies CredentialsChanged);
  }

  private send(name: string, payload: unknown): void {
    this.pubSub.publish(name, payload).catch((error: unknown) => {
      this.logger.warn(`Could not publish ${name}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}
