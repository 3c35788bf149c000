import { Logger } from '@nestjs/common';
import { RedisPubSub } from 'graphql-redis-subscriptions';
import { Redis } from 'ioredis';
import { createRedisClient } from '../redis/redis.module.js';

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

/** The bus between instances over Redis pub/sub (events.module.ts loads this file only with REDIS_URL). */
export async function createRedisPubSub(redisUrl: string, keyPrefix: string): Promise<RedisPubSub> {
  const logger = new Logger('Events');
  // The subscriber keeps its offline queue: (re)subscriptions wait for Redis to come back.
  const subscriber = new Redis(redisUrl, {
    connectionName: 'blog-events-subscriber',
    maxRetriesPerRequest: null,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  subscriber.on('error', (error) => logger.debug(`Redis subscriber: ${error.message}`));
  return new PrefixedRedisPubSub(
    { publisher: await createRedisClient(redisUrl, 'events-publisher'), subscriber, reviver: reviveDates },
    (trigger) => `${keyPrefix}events:${trigger}`,
  );
}
