import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, LIST_CURSOR_PATTERN } from './cursor.js';

describe('LIST_CURSOR_PATTERN', () => {
  const pattern = new RegExp(LIST_CURSOR_PATTERN);

  it('matches the cursor of every id up to 1999999999', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 1_999_999_999 }), (id) => pattern.test(encodeCursor(id))), { numRuns: 5000 });
    for (const id of [1, 9, 10, 99, 100, 999, 1000, 99_999, 999_999_999, 1_000_000_000, 1_999_999_999]) expect(pattern.test(encodeCursor(id)), String(id)).toBe(true);
  });

  it('matches nothing the service refuses: every string it matches is a cursor decodeCursor takes', () => {
    fc.assert(
      fc.property(fc.stringMatching(pattern), (cursor) => {
        const id = decodeCursor(cursor);
        return encodeCursor(id) === cursor;
      }),
      { numRuns: 5000 },
    );
    for (const text of ['v1:0', 'v1:01', 'v1:-1', 'v1:2000000000', 'v1:', 'v1:1a', 'v2:1', 'e1:0:1']) {
      expect(pattern.test(Buffer.from(text).toString('base64url')), text).toBe(false);
    }
    expect(pattern.test(`${encodeCursor(42)}=`)).toBe(false);
  });
});
