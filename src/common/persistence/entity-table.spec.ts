import { describe, expect, it } from 'vitest';
import { toDate } from './entity-table.js';

/** What toDate did before its fast path: the text made ISO and parsed by Date. */
const generic = (text: string) => new Date(text.includes('T') ? text : `${text.replace(' ', 'T')}Z`);

describe('toDate', () => {
  it.each(['2026-11-25 03:41:13.262', '1999-12-31 23:59:59.999', '2024-02-29 00:00:00.000', '1970-01-01 00:00:00.001'])(
    'reads the SQLite form %s as Date does',
    (text) => {
      expect(toDate(text).getTime()).toBe(generic(text).getTime());
    },
  );

  it.each(['2026-11-25T03:41:13.262Z', '2026-11-25 03:41:13', '0999-01-01 00:00:00.000', '2026-13-45 99:99:99.999', '2026x11-25 03:41:13.262', 'not a date at all ok!!'])(
    'leaves any other text (%s) to Date',
    (text) => {
      expect(String(toDate(text))).toBe(String(generic(text)));
    },
  );

  it('passes a Date through', () => {
    const date = new Date();
    expect(toDate(date)).toBe(date);
  });
});
