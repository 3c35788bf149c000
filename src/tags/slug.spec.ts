import { describe, expect, it } from 'vitest';
import { slugify } from './slug.js';
import { decodeTagCursor, encodeTagCursor, TAG_CURSOR_PATTERN } from './tag-cursor.js';

describe('slugify', () => {
  it('lower-cases, makes each run of other characters one dash, trims dashes', () => {
    expect(slugify('Release Notes!')).toBe('release-notes');
    expect(slugify('  --Hello,   World!!--  ')).toBe('hello-world');
    expect(slugify('C++ & C#')).toBe('c-c');
    expect(slugify('Café Crème')).toBe('caf-cr-me');
    expect(slugify('news')).toBe('news');
    expect(slugify('2026')).toBe('2026');
  });

  it('is empty for a name without a-z0-9', () => {
    for (const name of ['', '!!!', '日本語', '   ', '---']) expect(slugify(name)).toBe('');
  });

  it('is at most 50 characters, never ending in a dash', () => {
    const slug = slugify('İ'.repeat(50));
    expect(slug.length).toBeLessThanOrEqual(50);
    expect(slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  });
});

describe('tag cursors', () => {
  it('round-trip (count, id) and match the pattern the OpenAPI document states', () => {
    const cursor = encodeTagCursor(12, 345);
    expect(cursor).toMatch(new RegExp(TAG_CURSOR_PATTERN));
    expect(decodeTagCursor(cursor, 'cursor')).toEqual({ count: 12, id: 345 });
  });

  it('takes a count the pattern allows above any column value as the largest one (pages from the start)', () => {
    expect(decodeTagCursor(encodeTagCursor(9_211_594_149, 7), 'cursor')).toEqual({ count: 2_147_483_647, id: 7 });
  });

  it('refuses anything else, naming the field', () => {
    for (const cursor of ['', 'nope', Buffer.from('v1:5').toString('base64url'), Buffer.from('t1:12:345').toString('base64url')]) {
      expect(() => decodeTagCursor(cursor, 'after')).toThrow(/after is not a cursor/);
    }
  });
});
