import { Inject, Injectable, Logger } from '@nestjs/common';
import { ThrottlerStorageService } from '@nestjs/throttler';
import type { Redis } from 'ioredis';
import { AppConfig } from '../../config/app-config.js';
import { REDIS } from '../../redis/redis.module.js';
import { DomainError } from '../errors/domain-error.js';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

/** The key of the general limit (RATE_LIMIT_MAX) for a client address, whichever transport counts it. */
export const requestKey = (address: string) => `ip:${address}`;

/**
 * Counts hits per key in fixed windows: in this process (@nestjs/throttler's storage) or,
 * with REDIS_URL, in Redis so all instances share one count. If Redis is unreachable the
 * limiter fails open: availability matters more than an exact count during an outage.
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger('RateLimit');
  private readonly redisStorage?: RedisThrottlerStorage;

  constructor(
    private readonly memoryStorage: ThrottlerStorageService,
    @Inject(REDIS) redis: Redis | null,
    config: AppConfig,
  ) {
    if (redis) this.redisStorage = new RedisThrottlerStorage(redis, `${config.redisKeyPrefix}rate:`);
  }

  /** Counts one hit; throws RATE_LIMITED with Retry-After once `limit` hits fall in the window. */
  async consume(key: string, limit: number, windowS: number): Promise<void> {
    if (limit <= 0) return;
    const storage = this.redisStorage ?? this.memoryStorage;
    let record;
    try {
      record = await storage.increment(key, windowS * 1000, limit, windowS * 1000, 'default');
    } catch (error) {
      this.logger.warn(`Rate limit not counted (${error instanceof Error ? error.message : String(error)})`);
      return;
    }
    if (record.totalHits > limit) {
      const retryAfter = Math.max(1, record.isBlocked ? record.timeToBlockExpire : record.timeToExpire);
      throw new DomainError('RATE_LIMITED', `Too many requests; try again in ${retryAfter} s`, undefined, {
        'retry-after': String(retryAfter),
      });
    }
  }
}
