import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

/**
 * Where automatically persisted queries live, by SHA-256: bounded in bytes, whatever clients
 * register. In this process (an LRU) or, with Redis, shared by every instance (oldest
 * registrations evicted first). Documents arrive here stripped of comments and ignored
 * characters, so padding a document does not buy storage.
 */
export interface PersistedQueryStore {
  get(hash: string): Promise<string | undefined>;
  set(hash: string, document: string): Promise<void>;
}

export interface PersistedQueryStoreOptions {
  maxBytes: number;
  ttlS: number;
}

export class MemoryPersistedQueryStore implements PersistedQueryStore {
  private readonly cache: LRUCache<string, string>;

  constructor(options: PersistedQueryStoreOptions) {
    this.cache = new LRUCache<string, string>({
      maxSize: options.maxBytes,
      sizeCalculation: (document, hash) => document.length + hash.length,
      ttl: options.ttlS * 1000,
    });
  }

  async get(hash: string): Promise<string | undefined> {
    return this.cache.get(hash);
  }

  async set(hash: string, document: string): Promise<void> {
    if (document.length + hash.length <= this.cache.maxSize) this.cache.set(hash, document);
  }
}

// KEYS: document key, index (zset: hash → registration time), sizes (hash: hash → bytes), total bytes.
// ARGV: hash, document, ttl s, now ms, max bytes, document key prefix.
const REGISTER = `
local size = string.len(ARGV[2])
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
local previous = redis.call('HGET', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], size)
local total = redis.call('INCRBY', KEYS[4], size - (tonumber(previous) or 0))
while total > tonumber(ARGV[5]) do
  local oldest = redis.call('ZPOPMIN', KEYS[2])
  if #oldest == 0 then break end
  local evicted = tonumber(redis.call('HGET', KEYS[3], oldest[1])) or 0
  redis.call('HDEL', KEYS[3], oldest[1])
  redis.call('DEL', ARGV[6] .. oldest[1])
  total = redis.call('DECRBY', KEYS[4], evicted)
end
return total`;

/**
 * The Redis store: a document registered on one instance runs by hash on every other. The
 * registrations are indexed by age with their sizes, and the oldest go once the total passes
 * the budget. A Redis outage degrades to misses (the client then sends the document again),
 * never to a failed request.
 */
export class RedisPersistedQueryStore implements PersistedQueryStore {
  private readonly logger = new Logger('PersistedQueries');

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly options: PersistedQueryStoreOptions,
  ) {}

  private get documentPrefix(): string {
    return `${this.prefix}apq:doc:`;
  }

  async get(hash: string): Promise<string | undefined> {
    try {
      return (await this.redis.get(this.documentPrefix + hash)) ?? undefined;
    } catch (error) {
      this.warn('read', error);
      return undefined;
    }
  }

  async set(hash: string, document: string): Promise<void> {
    if (Buffer.byteLength(document) > this.options.maxBytes) return;
    const keys = [this.documentPrefix + hash, `${this.prefix}apq:index`, `${this.prefix}apq:sizes`, `${this.prefix}apq:bytes`];
    try {
      await this.redis.eval(REGISTER, keys.length, ...keys, hash, document, this.options.ttlS, Date.now(), this.options.maxBytes, this.documentPrefix);
    } catch (error) {
      this.warn('write', error);
    }
  }

  private warn(what: string, error: unknown): void {
    this.logger.warn(`Could not ${what} a persisted query in Redis: ${error instanceof Error ? error.message : String(error)}`);
  }
}
