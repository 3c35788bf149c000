import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '../../config/app-config.js';
import { ANY_TAG } from './read-tags.js';

/** What the `Cache-Status` header (RFC 9211) says about an answer. */
export const CACHE_STATUS = {
  hit: 'blog; hit',
  miss: 'blog; fwd=miss',
  uncacheable: 'blog; fwd=uncacheable',
} as const;

/** Tags invalidated one by one since the last invalidation of everything, at most: beyond, everything is dropped (and the clocks with it). */
const MAX_TAG_CLOCKS = 10_000;

interface Entry {
  value: unknown;
  size: number;
  tags: readonly string[];
}

/**
 * Answers to anonymous reads, kept in memory until a write changes what they show.
 *
 * Each answer is kept with the tags of what it read (read-tags.ts: a post, a post's comments, the
 * lists of posts, or `*` for anything else and for an answer that recorded nothing). A write
 * drops the tags it touches (`invalidate(tags)`, see tagsOfEvents): after its commit and before
 * its response is sent (the event publisher), and on the other instances when its event arrives
 * (their relays drop the tags before publishing it) or when the bus's word does (Redis). Writes
 * whose reach is not told by tags (users, tags admin, bulk moderation, erasures) drop everything
 * (`invalidate()`), as does an answer tagged `*` whatever the write.
 *
 * A read takes the clock when it starts (`generation()`, before it reads anything) and hands it
 * back to `set()`, which keeps the answer only if none of its tags (nor everything; for a `*`
 * answer, nothing at all) was invalidated meanwhile: an answer read before a write never
 * outlives that write's invalidation.
 */
@Injectable()
export class ResponseCache {
  readonly enabled: boolean;
  /** False while this instance may not hear of other instances' writes (Redis, or without it PostgreSQL's LISTEN, is away). */
  private listening = true;
  /** Bumped by every invalidation. */
  private clock = 0;
  /** The clock when everything was last invalidated. */
  private everythingAt = 0;
  /** The clock when each tag was last invalidated (since everything last was). */
  private readonly tagClocks = new Map<string, number>();
  /** The keys kept under each tag (`*` included), kept in step with the entries by their disposal. */
  private readonly keysByTag = new Map<string, Set<string>>();
  private readonly entries: LRUCache<string, Entry>;

  constructor(config: AppConfig) {
    this.enabled = config.responseCache === 'memory';
    this.entries = new LRUCache<string, Entry>({
      maxSize: config.responseCacheMaxBytes,
      sizeCalculation: (entry) => entry.size,
      dispose: (entry, key) => this.unindex(key, entry.tags),
    });
  }

  generation(): number {
    return this.clock;
  }

  get<T>(key: string): T | undefined {
    return this.enabled && this.listening ? (this.entries.get(key)?.value as T | undefined) : undefined;
  }

  /**
   * Keeps `value` (about `size` bytes) under `key`, tagged with what it read (`*`, or none at
   * all: dropped by any write), unless one of those tags was invalidated since `since`.
   */
  set(key: string, value: unknown, size: number, since: number, tags: Iterable<string> = []): boolean {
    if (!this.enabled || !this.listening || since < this.everythingAt) return false;
    let kept = [...tags];
    if (kept.length === 0 || kept.includes(ANY_TAG)) {
      if (since !== this.clock) return false;
      kept = [ANY_TAG];
    } else if (kept.some((tag) => (this.tagClocks.get(tag) ?? 0) > since)) {
      return false;
    }
    // An entry under the same key leaves first (and its keys in the index with it).
    this.entries.delete(key);
    const entry: Entry = { value, size: Math.max(1, size + key.length), tags: kept };
    this.entries.set(key, entry);
    if (this.entries.peek(key) !== entry) return false;
    for (const tag of kept) {
      let keys = this.keysByTag.get(tag);
      if (keys === undefined) this.keysByTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
    return true;
  }

  /**
   * A write changed what readers see: without `tags`, nothing kept so far may be served, nor
   * stored by a read already under way; with them, only the answers that read one of those tags
   * (and every `*` answer).
   */
  invalidate(tags?: Iterable<string> | null): void {
    this.clock += 1;
    if (tags === undefined || tags === null || this.tagClocks.size >= MAX_TAG_CLOCKS) {
      this.everythingAt = this.clock;
      this.tagClocks.clear();
      this.entries.clear();
      this.keysByTag.clear();
      return;
    }
    for (const tag of tags) {
      if (tag === ANY_TAG) continue;
      this.tagClocks.set(tag, this.clock);
      this.drop(tag);
    }
    this.drop(ANY_TAG);
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

  /** Keys indexed under `tag` (for tests). */
  keysTagged(tag: string): number {
    return this.keysByTag.get(tag)?.size ?? 0;
  }

  private drop(tag: string): void {
    const keys = this.keysByTag.get(tag);
    if (keys === undefined) return;
    // Each deletion's disposal takes the key out of its tags' sets (this one's included).
    for (const key of [...keys]) this.entries.delete(key);
    this.keysByTag.delete(tag);
  }

  private unindex(key: string, tags: readonly string[]): void {
    for (const tag of tags) {
      const keys = this.keysByTag.get(tag);
      if (keys === undefined) continue;
      keys.delete(key);
      if (keys.size === 0) this.keysByTag.delete(tag);
    }
  }
}
