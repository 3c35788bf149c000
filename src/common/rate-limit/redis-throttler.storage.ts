import type { ThrottlerStorage } from '@nestjs/throttler';
import type { Redis } from 'ioredis';

/** What a ThrottlerStorage's increment resolves to (the package exports no name for it at its root). */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

// A fixed window per key: the first hit starts the window, the counter dies with it.
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {hits, ttl}`;

// The same window, `ARGV[2]` hits at once (a GraphQL operation's cost).
const INCREMENT_BY = `
local hits = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {hits, ttl}`;

/** @nestjs/throttler's storage contract, counted in Redis so that every instance shares the limits. */
export class RedisThrottlerStorage implements ThrottlerStorage {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const [hits, ttlMs] = (await this.redis.eval(INCREMENT, 1, this.prefix + key, ttl)) as [number, number];
    const seconds = Math.max(1, Math.ceil(ttlMs / 1000));
    const isBlocked = hits > limit;
    return { totalHits: hits, timeToExpire: seconds, isBlocked, timeToBlockExpire: isBlocked ? seconds : 0 };
  }

  /** Adds `amount` hits at once: the total in the window and the milliseconds it has left. */
  async incrementBy(key: string, amount: number, ttl: number): Promise<{ totalHits: number; ttlMs: number }> {
    const [hits, ttlMs] = (await this.redis.eval(INCREMENT_BY, 1, this.prefix + key, ttl, amount)) as [number, number];
    return { totalHits: hits, ttlMs };
  }
}
