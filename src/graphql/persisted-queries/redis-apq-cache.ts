import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';

/**
 * Apollo's KeyValueCache over Redis, for automatic persisted queries: a document registered on
 * one instance is found by hash on every other. A Redis outage degrades to cache misses (the
 * client then sends the full document again), never to a failed request.
 */
export class RedisApqCache {
  private readonly logger = new Logger('PersistedQueries');

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async get(key: string): Promise<string | undefined> {
    try {
      return (await this.redis.get(this.prefix + key)) ?? undefined;
    } catch (error) {
      this.warn('read', error);
      return undefined;
    }
  }

  async set(key: string, value: string, options?: { ttl?: number | null }): Promise<void> {
    try {
      if (options?.ttl) await this.redis.set(this.prefix + key, value, 'EX', Math.ceil(options.ttl));
      else await this.redis.set(this.prefix + key, value);
    } catch (error) {
      this.warn('write', error);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.redis.del(this.prefix + key);
    } catch (error) {
      this.warn('delete', error);
    }
  }

  private warn(what: string, error: unknown): void {
    this.logger.warn(`Could not ${what} a persisted query in Redis: ${error instanceof Error ? error.message : String(error)}`);
  }
}
