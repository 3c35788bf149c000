import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEventCursor, encodeEventCursor, EVENT_CURSOR_PATTERN } from './event-cursor.js';

describe('event cursors', () => {
  const pattern = new RegExp(EVENT_CURSOR_PATTERN);
  const number = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 999 }), fc.integer({ min: 0, max: 999_999_999_999_999 }));

  it('every position is written in the stated pattern and read back', () => {
    fc.assert(
      fc.property(number, number, (tx, id) => {
        const cursor = encodeEventCursor({ tx, id });
        expect(cursor).toMatch(pattern);
        expect(decodeEventCursor(cursor)).toEqual({ tx, id });
      }),
      { numRuns: 3000 },
    );
  });

  it('every string of the pattern is a position (a schema-driven client never makes a refused one)', () => {
    fc.assert(
      fc.property(fc.stringMatching(pattern), (cursor) => {
        const position = decodeEventCursor(cursor);
        expect(encodeEventCursor(position)).toBe(cursor);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes the unpadded cursors issued before, exactly as they were written; refuses anything else', () => {
    const unpadded = (text: string) => Buffer.from(text).toString('base64url');
    expect(decodeEventCursor(unpadded('e1:0:42'))).toEqual({ tx: 0, id: 42 });
    expect(decodeEventCursor(unpadded('e1:7310:1'))).toEqual({ tx: 7310, id: 1 });
    for (const bad of [unpadded('e1:0:042'), unpadded('e1:0'), unpadded('v1:5'), unpadded('e1:0:1:2'), `${unpadded('e1:0:42')}=`, unpadded(`e1:${'0'.repeat(15)}:${'0'.repeat(14)}x`), 'nope', '']) {
      expect(() => decodeEventCursor(bad), bad).toThrow(/not an event cursor/);
    }
    expect(() => decodeEventCursor(`${encodeEventCursor({ tx: 0, id: 1 })}A`)).toThrow(/not an event cursor/);
  });

  it('a number beyond 15 digits (never, in practice) is written unpadded, and still read', () => {
    const position = { tx: 2 ** 52, id: 5 };
    expect(decodeEventCursor(encodeEventCursor(position))).toEqual(position);
  });
});
