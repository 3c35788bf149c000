import { describe, expect, it } from 'vitest';
import { parseRange } from './byte-range.js';

describe('parseRange', () => {
  it.each([
    ['bytes=0-9', { start: 0, end: 9 }],
    ['bytes=90-', { start: 90, end: 99 }],
    ['bytes=-10', { start: 90, end: 99 }],
    ['bytes=-1000', { start: 0, end: 99 }],
    ['bytes=50-5000', { start: 50, end: 99 }],
    ['bytes=99-99', { start: 99, end: 99 }],
  ])('%s of 100 bytes', (header, range) => {
    expect(parseRange(header, 100)).toEqual(range);
  });

  it.each(['bytes=100-', 'bytes=100-200', 'bytes=-0'])('%s of 100 bytes is unsatisfiable', (header) => {
    expect(parseRange(header, 100)).toBe('unsatisfiable');
  });

  it.each([undefined, 'bytes=0-1,5-6', 'items=0-1', 'bytes=9-1', 'bytes=-', 'bytes=a-b', 'bytes=1.5-2'])('%s serves the whole', (header) => {
    expect(parseRange(header, 100)).toBeNull();
  });
});
