import { Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AppConfig } from '../config/app-config.js';

/** The shared Redis connection for commands (counters, caches), or null when REDIS_URL is unset. */
export const REDIS = Symbol('REDIS');

export async function createRedisClient(url: string, name: string): Promise<Redis> {
  const logger = new Logger(`Redis:${name}`);
  // Loaded with the first client: without REDIS_URL, never.
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    connectionName: `blog-${name}`,
    // Fail commands at once while disconnected instead of queueing them: a Redis outage
    // must not stall requests. The client keeps reconnecting in the background.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let reported = false;
  client.on('error', (error) => {
    if (!reported) logger.warn(`Redis unavailable: ${error.message}`);
    reported = true;
  });
  client.on('ready', () => {
    if (reported) logger.log('Redis connection restored');
    reported = false;
  });
  return client;
}

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: async (config: AppConfig) => (config.redisUrl ? createRedisClient(config.redisUrl, 'commands') : null),
    },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis | null) {}

  async onApplicationShutdown(): Promise<void> {
    if (!this.redis) return;
    await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}
