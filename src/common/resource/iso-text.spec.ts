import { describe, expect, it } from 'vitest';
import { isoText } from './iso-text.js';

describe('isoText', () => {
  it('writes what toISOString writes, for every field width', () => {
    const times = [
      Date.UTC(1970, 0, 1),
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2026, 10, 29, 3, 4, 5, 6),
      Date.UTC(2026, 1, 28, 12, 30, 0, 50),
      Date.UTC(2024, 1, 29, 0, 0, 0, 100),
      Date.UTC(1000, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    // And a spread of random instants between 1900 and 2100.
    let seed = 7;
    for (let index = 0; index < 2000; index++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      times.push(Date.UTC(1900, 0, 1) + Math.floor((seed / 2 ** 31) * 200 * 365.25 * 86_400_000));
    }
    for (const time of times) expect(isoText(new Date(time))).toBe(new Date(time).toISOString());
  });

  it('leaves years outside 1000–9999 to toISOString (signed six-digit years), and refuses an invalid date as it does', () => {
    for (const time of [Date.UTC(999, 0, 1), Date.UTC(-1, 5, 1), Date.UTC(10_000, 0, 1), -8.64e15, 8.64e15]) {
      expect(isoText(new Date(time))).toBe(new Date(time).toISOString());
    }
    expect(() => isoText(new Date(Number.NaN))).toThrow(RangeError);
  });
});
