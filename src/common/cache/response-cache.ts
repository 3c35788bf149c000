import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '../../config/app-config.js';

/** What the `Cache-Status` header (RFC 9211) says about an answer. */
export const CACHE_STATUS = {
  hit: 'blog; hit',
  miss: 'blog; fwd=miss',
  uncacheable: 'blog; fwd=uncacheable',
} as const;

interface Entry {
  value: unknown;
  size: number;
}

/**
 * Answers to anonymous reads, kept in memory until a write changes what they show.
 *
 * Every write invalidates every answer: after its commit and before its response is sent
 * (`invalidate()`, called by the event publisher), and on the other instances when its event
 * arrives (their relays invalidate before publishing it) or, for a write without events, when
 * its word arrives (over Redis, or without Redis over PostgreSQL's NOTIFY). Almost every answer shows several kinds of resource (a post page shows its author's
 * name and its comments, a GraphQL query whatever it selects), so tagging answers by what they
 * read would rarely keep one alive, and a missed tag would serve stale pages: one generation
 * for everything is the simple sound scheme.
 *
 * A read takes the generation when it starts (`generation()`, before it reads anything) and
 * hands it back to `set()`, which keeps the answer only if no write was invalidated meanwhile:
 * an answer read before a write never outlives that write's invalidation.
 */
@Injectable()
export class ResponseCache {
  readonly enabled: boolean;
  /** False while this instance may not hear of other instances' writes (Redis, or without it PostgreSQL's LISTEN, is away). */
  private listening = true;
  private current = 0;
  private readonly entries: LRUCache<string, Entry>;

  constructor(config: AppConfig) {
    this.enabled = config.responseCache === 'memory';
    this.entries = new LRUCache<string, Entry>({ maxSize: config.responseCacheMaxBytes, sizeCalculation: (entry) => entry.size });
  }

  generation(): number {
    return this.current;
  }

  get<T>(key: string): T | undefined {
    return this.enabled && this.listening ? (this.entries.get(key)?.value as T | undefined) : undefined;
  }

  /** Keeps `value` (about `size` bytes) under `key`, unless a write was invalidated since `since`. */
  set(key: string, value: unknown, size: number, since: number): boolean {
    if (!this.enabled || !this.listening || since !== this.current) return false;
    this.entries.set(key, { value, size: Math.max(1, size + key.length) });
    return this.entries.has(key);
  }

  /** A write changed what readers see: nothing kept so far may be served, nor stored by a read already under way. */
  invalidate(): void {
    this.current += 1;
    this.entries.clear();
  }

  /**
   * The bus to the other instances is away: their writes go unheard, so nothing is served or
   * kept until `resume()`.
   */
  suspend(): void {
    this.listening = false;
    this.invalidate();
  }

  /** Listening again: what was missed meanwhile is unknown, so start empty. */
  resume(): void {
    this.invalidate();
    this.listening = true;
  }

  /** Bytes held (for tests and metrics). */
  get size(): number {
    return this.entries.calculatedSize;
  }
}
