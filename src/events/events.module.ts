import { EventEmitter } from 'node:events';
import { Global, Inject, Logger, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { RedisPubSub } from 'graphql-redis-subscriptions';
import { PubSub, type PubSubEngine } from 'graphql-subscriptions';
import { ResponseCache } from '../common/cache/response-cache.js';
import { AppConfig } from '../config/app-config.js';
import { CONTENT_CHANGED, type ContentChanged } from './blog-events.js';
import { EventPublisher, PUB_SUB } from './event-publisher.js';
import { EventRelay, LOCAL_EVENTS } from './event-relay.js';
import { OutboxRepository } from './outbox.repository.js';
import { SubscriptionGateway } from './subscription-gateway.js';

async function createPubSub(config: AppConfig): Promise<PubSubEngine> {
  // Every subscriber is a listener of its event's name: thousands are normal, not a leak.
  if (!config.redisUrl) return new PubSub({ eventEmitter: new EventEmitter().setMaxListeners(0) });
  // Loaded only with REDIS_URL: ioredis and graphql-redis-subscriptions are not needed otherwise.
  const { createRedisPubSub } = await import('./redis-pub-sub.js');
  return createRedisPubSub(config.redisUrl, config.redisKeyPrefix);
}

/** The Redis bus (redis-pub-sub.ts), told apart without loading its module. */
const asRedisPubSub = (pubSub: PubSubEngine): RedisPubSub | null =>
  typeof (pubSub as Partial<RedisPubSub>).getSubscriber === 'function' ? (pubSub as RedisPubSub) : null;

/**
 * Events: the outbox every write records its events in, the relay that publishes them from
 * there to this instance's subscribers (LOCAL_EVENTS), and the bus between instances (PUB_SUB:
 * in-process by default, Redis pub/sub with REDIS_URL) for what is not in the log: credential
 * changes, and the response cache, which every instance empties when another one's write is
 * announced (without Redis, the relays carry that over PostgreSQL: see EventRelay).
 */
@Global()
@Module({
  providers: [
    { provide: PUB_SUB, inject: [AppConfig], useFactory: createPubSub },
    { provide: LOCAL_EVENTS, useFactory: () => new PubSub({ eventEmitter: new EventEmitter().setMaxListeners(0) }) },
    ResponseCache,
    OutboxRepository,
    EventRelay,
    EventPublisher,
    SubscriptionGateway,
  ],
  exports: [PUB_SUB, LOCAL_EVENTS, ResponseCache, OutboxRepository, EventRelay, EventPublisher, SubscriptionGateway],
})
export class EventsModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(PUB_SUB) private readonly pubSub: PubSubEngine,
    private readonly cache: ResponseCache,
    private readonly publisher: EventPublisher,
  ) {}

  onModuleInit(): void {
    if (!this.cache.enabled) return;
    // Over Redis, other instances' writes are heard only while the subscriber is connected and
    // subscribed: the cache serves nothing until then, nor while the connection is down.
    const subscriber = asRedisPubSub(this.pubSub)?.getSubscriber() ?? null;
    let subscribed = false;
    if (subscriber) {
      this.cache.suspend();
      subscriber.on('close', () => this.cache.suspend());
      // ioredis subscribes again on reconnecting; a PING answered after that means it is done.
      subscriber.on('ready', () => {
        if (subscribed) subscriber.ping().then(() => this.cache.resume(), () => undefined);
      });
    }
    // Not awaited: with Redis away, the subscription waits in the subscriber's offline queue.
    this.pubSub
      .subscribe(
        CONTENT_CHANGED,
        (message: ContentChanged) => {
          if (message?.origin !== this.publisher.origin) this.cache.invalidate(Array.isArray(message?.tags) ? message.tags : null);
        },
        {},
      )
      .then(() => {
        subscribed = true;
        if (subscriber?.status === 'ready') this.cache.resume();
      })
      .catch((error: unknown) => new Logger('Events').warn(`Could not subscribe to ${CONTENT_CHANGED}: ${error instanceof Error ? error.message : String(error)}`));
  }

  async onApplicationShutdown(): Promise<void> {
    const redisPubSub = asRedisPubSub(this.pubSub);
    if (redisPubSub) {
      const clients = [redisPubSub.getPublisher(), redisPubSub.getSubscriber()];
      await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
    }
  }
}
