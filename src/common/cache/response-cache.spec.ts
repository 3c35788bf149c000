import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../../config/app-config.js';
import { ResponseCache } from './response-cache.js';

const cache = (responseCacheMaxBytes = 1_048_576, responseCache: AppConfig['responseCache'] = 'memory') =>
  new ResponseCache({ responseCache, responseCacheMaxBytes } as AppConfig);

describe('ResponseCache', () => {
  it('keeps an answer stored at the current generation', () => {
    const store = cache();
    expect(store.set('k', 'v1', 2, store.generation())).toBe(true);
    expect(store.get('k')).toBe('v1');
  });

  it('an invalidation drops every answer', () => {
    const store = cache();
    store.set('a', 'A', 1, store.generation());
    store.set('b', 'B', 1, store.generation());
    store.invalidate();
    expect(store.get('a')).toBeUndefined();
    expect(store.get('b')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('a read that started before a write never stores its answer after the write was invalidated', () => {
    const store = cache();
    const readStarted = store.generation(); // the read begins, reads the old version…
    store.invalidate(); // …a write commits and invalidates…
    expect(store.set('post', 'old title', 9, readStarted)).toBe(false); // …and the read's answer is refused
    expect(store.get('post')).toBeUndefined();
    const nextRead = store.generation();
    expect(store.set('post', 'new title', 9, nextRead)).toBe(true);
    expect(store.get('post')).toBe('new title');
  });

  it('is bounded by bytes, dropping the least recently used first', () => {
    const store = cache(100);
    const since = store.generation();
    store.set('a', 'A', 40, since);
    store.set('b', 'B', 40, since);
    expect(store.get('a')).toBe('A'); // a is now the more recently used
    store.set('c', 'C', 40, since);
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toBe('A');
    expect(store.get('c')).toBe('C');
    expect(store.size).toBeLessThanOrEqual(100);
  });

  it('refuses an answer larger than the whole cache', () => {
    const store = cache(100);
    expect(store.set('big', 'x', 200, store.generation())).toBe(false);
    expect(store.get('big')).toBeUndefined();
  });

  it('suspended (deaf to other instances): serves and keeps nothing; resumed: starts empty', () => {
    const store = cache();
    store.set('k', 'v', 1, store.generation());
    const readStarted = store.generation();
    store.suspend();
    expect(store.get('k')).toBeUndefined();
    expect(store.set('k', 'v2', 1, store.generation())).toBe(false);
    store.resume();
    expect(store.get('k')).toBeUndefined();
    expect(store.set('k', 'v3', 1, readStarted)).toBe(false);
    expect(store.set('k', 'v4', 1, store.generation())).toBe(true);
    expect(store.get('k')).toBe('v4');
  });

  it('off: keeps nothing', () => {
    const store = cache(1_048_576, 'off');
    expect(store.enabled).toBe(false);
    expect(store.set('k', 'v', 1, store.generation())).toBe(false);
    expect(store.get('k')).toBeUndefined();
  });

  describe('tags', () => {
    it('an invalidation of tags drops only the answers that read them (and every `*` answer)', () => {
      const store = cache();
      const since = store.generation();
      store.set('a', 'A', 1, since, ['post:1', 'comments:1']);
      store.set('b', 'B', 1, since, ['post:2', 'comments:2']);
      store.set('list', 'L', 1, since, ['posts']);
      store.set('any', 'X', 1, since, ['*']);
      store.set('nothing', 'N', 1, since, []);
      store.invalidate(['comments:1']);
      expect(store.get('a')).toBeUndefined();
      expect(store.get('b')).toBe('B');
      expect(store.get('list')).toBe('L');
      expect(store.get('any')).toBeUndefined();
      expect(store.get('nothing')).toBeUndefined();
      expect(store.keysTagged('comments:1')).toBe(0);
      expect(store.keysTagged('post:1')).toBe(0); // the dropped answer left every tag's index
      expect(store.keysTagged('*')).toBe(0);
      store.invalidate();
      expect(store.get('b')).toBeUndefined();
      expect(store.get('list')).toBeUndefined();
    });

    it('a read that began before an invalidation of one of its tags never stores its answer; one of other tags does', () => {
      const store = cache();
      const readStarted = store.generation();
      store.invalidate(['post:1']);
      expect(store.set('a', 'stale', 1, readStarted, ['post:1'])).toBe(false);
      expect(store.set('b', 'fresh', 1, readStarted, ['post:2'])).toBe(true);
      // A `*` answer (or one that recorded nothing) is refused after any invalidation.
      expect(store.set('any', 'x', 1, readStarted, ['*'])).toBe(false);
      expect(store.set('nothing', 'x', 1, readStarted)).toBe(false);
      const next = store.generation();
      expect(store.set('a', 'new', 1, next, ['post:1'])).toBe(true);
      expect(store.get('a')).toBe('new');
    });

    it('an invalidation of everything refuses every read that began before it', () => {
      const store = cache();
      const readStarted = store.generation();
      store.invalidate();
      expect(store.set('a', 'x', 1, readStarted, ['post:9'])).toBe(false);
      expect(store.set('a', 'x', 1, store.generation(), ['post:9'])).toBe(true);
    });

    it('eviction and replacement keep the tag index in step', () => {
      const store = cache(100);
      const since = store.generation();
      store.set('a', 'A', 40, since, ['post:1']);
      store.set('b', 'B', 40, since, ['post:1', 'posts']);
      store.set('c', 'C', 40, since, ['post:2']); // evicts a
      expect(store.get('a')).toBeUndefined();
      expect(store.keysTagged('post:1')).toBe(1);
      store.set('b', 'B2', 10, since, ['post:3']); // replaces b under other tags
      expect(store.keysTagged('post:1')).toBe(0);
      expect(store.keysTagged('posts')).toBe(0);
      expect(store.keysTagged('post:3')).toBe(1);
      store.invalidate(['post:1', 'posts']);
      expect(store.get('b')).toBe('B2');
      store.invalidate(['post:3']);
      expect(store.get('b')).toBeUndefined();
      expect(store.get('c')).toBe('C');
      expect(store.keysTagged('post:3')).toBe(0);
    });

    it('suspended: invalidations of tags still refuse reads under way once resumed', () => {
      const store = cache();
      const readStarted = store.generation();
      store.suspend();
      store.resume();
      expect(store.set('a', 'x', 1, readStarted, ['post:1'])).toBe(false);
    });
  });
});
