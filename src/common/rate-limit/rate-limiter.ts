import { Inject, Injectable, Logger } from '@nestjs/common';
import { ThrottlerStorageService } from '@nestjs/throttler';
import { LRUCache } from 'lru-cache';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { AppConfig } from '../../config/app-config.js';
import { REDIS } from '../../redis/redis.module.js';
import { DomainError } from '../errors/domain-error.js';
import { type LimitState, rateLimitHeaders, REQUESTS_POLICY } from './rate-limit-headers.js';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

/** The key of the general limit (RATE_LIMIT_MAX) for a client address, whichever transport counts it. */
export const requestKey = (address: string) => `ip:${address}`;
/** The key of the GraphQL cost budget (RATE_LIMIT_COST_MAX) for a client address. */
export const costKey = (address: string) => `cost:${address}`;
export type { LimitState };

const LIMIT_KEYS = { maxSize: 100_000, sizeCalculation: () => 1 };

/**
 * Counts hits per key in fixed windows: in this process (@nestjs/throttler's storage) or,
 * with REDIS_URL, in Redis so all instances share one count. If Redis is unreachable the
 * limiter fails open: availability matters more than an exact count during an outage.
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger('RateLimit');
  private readonly redisStorage?: RedisThrottlerStorage;
  private readonly redisPrefix: string;
  /**
   * Failure windows in this process (without Redis), bounded: the oldest keys go first. Bounded
   * by maxSize (1 a key), not max: with max, lru-cache allocates its arrays for all 100,000
   * keys up front (unused without a single client, and with Redis).
   */
  private readonly failures = new LRUCache<string, { hits: number; expiresAt: number }>(LIMIT_KEYS);
  /** Cost budgets in this process (without Redis), bounded likewise. */
  private readonly spent = new LRUCache<string, { hits: number; expiresAt: number }>(LIMIT_KEYS);

  constructor(
    private readonly memoryStorage: ThrottlerStorageService,
    @Inject(REDIS) private readonly redis: Redis | null,
    config: AppConfig,
  ) {
    this.redisPrefix = `${config.redisKeyPrefix}rate:`;
    if (redis) this.redisStorage = new RedisThrottlerStorage(redis, this.redisPrefix);
  }

  /**
   * Refuses (RATE_LIMITED) when `key` already has `limit` hits in its window, without counting
   * one: for limits on failures, checked before the attempt and counted (`consume`) after a failure.
   */
  async refuseAtLimit(key: string, limit: number): Promise<void> {
    if (limit <= 0) return;
    let hits: number;
    let ttlMs: number;
    try {
      if (this.redis) {
        const [[, count], [, ttl]] = (await this.redis.multi().get(this.redisPrefix + key).pttl(this.redisPrefix + key).exec()) as [[unknown, string | null], [unknown, number]];
        hits = Number(count ?? 0);
        ttlMs = ttl;
      } else {
        const window = this.failures.get(key);
        hits = window && window.expiresAt > Date.now() ? window.hits : 0;
        ttlMs = window ? window.expiresAt - Date.now() : 0;
      }
    } catch (error) {
      this.logger.warn(`Rate limit not checked (${error instanceof Error ? error.message : String(error)})`);
      return;
    }
    if (hits >= limit) throw rateLimited(Math.max(1, Math.ceil(ttlMs / 1000)));
  }

  /** Counts one failure against `key` (see refuseAtLimit). */
  async countFailure(key: string, windowS: number): Promise<void> {
    try {
      if (this.redisStorage) {
        await this.redisStorage.increment(key, windowS * 1000, Number.MAX_SAFE_INTEGER);
        return;
      }
      const now = Date.now();
      const window = this.failures.get(key);
      if (window && window.expiresAt > now) window.hits += 1;
      else this.failures.set(key, { hits: 1, expiresAt: now + windowS * 1000 });
    } catch (error) {
      this.logger.warn(`Failure not counted (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  /** Counts one hit; throws RATE_LIMITED with Retry-After once `limit` hits fall in the window. */
  async consume(key: string, limit: number, windowS: number): Promise<void> {
    const state = await this.count(key, 'requests', limit, windowS);
    if (state?.exceeded) throw rateLimited(state.resetS);
  }

  /**
   * Counts one hit and says where the window stands (for the RateLimit headers), without
   * throwing; null when the limit is off or could not be counted (failing open).
   */
  async count(key: string, policy: string, limit: number, windowS: number): Promise<LimitState | null> {
    if (limit <= 0) return null;
    const storage = this.redisStorage ?? this.memoryStorage;
    let record;
    try {
      record = await storage.increment(key, windowS * 1000, limit, windowS * 1000, 'default');
    } catch (error) {
      this.logger.warn(`Rate limit not counted (${error instanceof Error ? error.message : String(error)})`);
      return null;
    }
    const exceeded = record.totalHits > limit;
    const resetS = Math.max(1, record.isBlocked ? record.timeToBlockExpire : record.timeToExpire);
    return { policy, limit, windowS, remaining: exceeded ? 0 : limit - record.totalHits, resetS, exceeded };
  }

  /**
   * Spends `amount` (a GraphQL operation's cost) from `key`'s budget of `limit` per window, in
   * Redis (INCRBY with the window's expiry, one script) or in this process. What was spent counts
   * even when it went over: like a refused request, a refused operation is not free.
   */
  async spend(key: string, policy: string, amount: number, limit: number, windowS: number): Promise<LimitState | null> {
    if (limit <= 0) return null;
    let total: number;
    let ttlMs: number;
    try {
      if (this.redisStorage) {
        ({ totalHits: total, ttlMs } = await this.redisStorage.incrementBy(key, amount, windowS * 1000));
      } else {
        const now = Date.now();
        let window = this.spent.get(key);
        if (!window || window.expiresAt <= now) {
          window = { hits: 0, expiresAt: now + windowS * 1000 };
          this.spent.set(key, window);
        }
        window.hits += amount;
        total = window.hits;
        ttlMs = window.expiresAt - now;
      }
    } catch (error) {
      this.logger.warn(`Cost not counted (${error instanceof Error ? error.message : String(error)})`);
      return null;
    }
    const exceeded = total > limit;
    return { policy, limit, windowS, remaining: Math.max(0, limit - total), resetS: Math.max(1, Math.ceil(ttlMs / 1000)), exceeded };
  }
}

/**
 * An `onRequest` hook: RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_S per client address, on
 * every route (REST, GraphQL, docs, 404s), checked before any other work. The stricter sign-in
 * limits (SignInLimiter) are applied by the services that check passwords, so REST and GraphQL
 * share them; WebSocket upgrades, which no Fastify hook sees, are counted by their transport.
 */
export function rateLimitHook(limiter: RateLimiter, max: number, windowS: number): onRequestHookHandler {
  return async function rateLimit(request: FastifyRequest, reply: FastifyReply) {
    const state = await limiter.count(requestKey(request.ip), REQUESTS_POLICY, max, windowS);
    if (!state) return;
    const headers = rateLimitHeaders([state]);
    if (state.exceeded) throw rateLimited(state.resetS, headers);
    for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  };
}

export function rateLimited(retryAfter: number, headers: Record<string, string> = {}): DomainError {
  return new DomainError('RATE_LIMITED', `Too many requests; try again in ${retryAfter} s`, undefined, { ...headers, 'retry-after': String(retryAfter) });
}
