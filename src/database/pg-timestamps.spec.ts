import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseTimestamptz } from './pg-timestamps.js';

const generic = pg.types.getTypeParser(1184, 'text') as (text: string) => Date | string | null;

describe('parseTimestamptz', () => {
  const samples = [
    '2026-11-25 03:41:13.262+00',
    '2026-11-25 03:41:13+00',
    '2026-11-25 03:41:13.2+00',
    '2026-11-25 03:41:13.123456+00',
    '2026-11-25 03:41:13.999999+00',
    '1999-12-31 23:59:59.5-08',
    '2026-03-01 00:00:00+05:30',
    '2026-03-01 00:00:00.001-03:30',
    '0100-01-01 00:00:00+00',
    '1970-01-01 00:00:00+00',
    '2024-02-29 12:00:00+14',
  ];

  it.each(samples)('reads %s as the generic parser does', (text) => {
    const fast = parseTimestamptz(text);
    expect(fast).toBeInstanceOf(Date);
    expect((fast as Date).getTime()).toBe((generic(text) as Date).getTime());
  });

  it.each(['infinity', '-infinity', '0044-03-15 12:00:00+00 BC', '12026-01-01 00:00:00+00', '2026-11-25 03:41:13+05:30:15', '2026-1x-25 03:41:13+00'])(
    'hands %s to the generic parser',
    (text) => {
      const fast = parseTimestamptz(text);
      const expected = generic(text);
      if (expected instanceof Date && !Number.isNaN(expected.getTime())) expect((fast as Date).getTime()).toBe(expected.getTime());
      else expect(String(fast)).toBe(String(expected));
    },
  );
});
