import { EventEmitter } from 'node:events';
import { Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { RedisPubSub } from 'graphql-redis-subscriptions';
import { PubSub, type PubSubEngine } from 'graphql-subscriptions';
import { Redis } from 'ioredis';
import { AppConfig } from '../config/app-config.js';
import { createRedisClient } from '../redis/redis.module.js';
import { EventPublisher, PUB_SUB } from './event-publisher.js';
import { EventRelay, LOCAL_EVENTS } from './event-relay.js';
import { OutboxRepository } from './outbox.repository.js';
import { SubscriptionGateway } from './subscription-gateway.js';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Payloads cross Redis as JSON: turn the timestamps back into Dates. */
const reviveDates = (key: string, value: unknown) =>
  (key === 'createdAt' || key === 'updatedAt') && typeof value === 'string' && ISO_DATE.test(value) ? new Date(value) : value;

/**
 * graphql-redis-subscriptions applies `triggerTransform` to subscribe() only, never to
 * publish(): publishing must name the same prefixed channel, or no subscriber ever hears it.
 */
class PrefixedRedisPubSub extends RedisPubSub {
  constructor(
    options: ConstructorParameters<typeof RedisPubSub>[0],
    private readonly channel: (trigger: string) => string,
  ) {
    super({ ...options, triggerTransform: (trigger) => channel(String(trigger)) });
  }

  override publish<T>(trigger: string, payload: T): Promise<void> {
    return super.publish(this.channel(trigger), payload);
  }
}

function createPubSub(config: AppConfig): PubSubEngine {
  // Every subscriber is a listener of its event's name: thousands are normal, not a leak.
  if (!config.redisUrl) return new PubSub({ eventEmitter: new EventEmitter().setMaxListeners(0) });
  const logger = new Logger('Events');
  // The subscriber keeps its offline queue: (re)subscriptions wait for Redis to come back.
  const subscriber = new Redis(config.redisUrl, {
    connectionName: 'blog-events-subscriber',
    maxRetriesPerRequest: null,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  subscriber.on('error', (error) => logger.debug(`Redis subscriber: ${error.message}`));
  return new PrefixedRedisPubSub(
    { publisher: createRedisClient(config.redisUrl, 'events-publisher'), subscriber, reviver: reviveDates },
    (trigger) => `${config.redisKeyPrefix}events:${trigger}`,
  );
}

/**
 * Events: the outbox every write records its events in, the relay that publishes them from
 * there to this instance's subscribers (LOCAL_EVENTS), and the bus between instances (PUB_SUB:
 * in-process by default, Redis pub/sub with REDIS_URL) for what is not in the log, such as
 * credential changes.
 */
@Global()
@Module({
  providers: [
    { provide: PUB_SUB, inject: [AppConfig], useFactory: createPubSub },
    { provide: LOCAL_EVENTS, useFactory: () => new PubSub({ eventEmitter: new EventEmitter().setMaxListeners(0) }) },
    OutboxRepository,
    EventRelay,
    EventPublisher,
    SubscriptionGateway,
  ],
  exports: [PUB_SUB, LOCAL_EVENTS, OutboxRepository, EventRelay, EventPublisher, SubscriptionGateway],
})
export class EventsModule implements OnApplicationShutdown {
  constructor(@Inject(PUB_SUB) private readonly pubSub: PubSubEngine) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.pubSub instanceof RedisPubSub) {
      const clients = [this.pubSub.getPublisher(), this.pubSub.getSubscriber()];
      await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
    }
  }
}
