import { digits } from '../common/persistence/entity-table.js';
import { loadPg } from './pg-module.js';

const TIMESTAMPTZ = 1184;
let generic: ((text: string) => Date | string | null) | undefined;
const slow = (text: string) => (generic ??= loadPg().types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => Date | string | null)(text);

/**
 * A `timestamptz` as PostgreSQL writes it in ISO style (`2026-11-25 03:41:13.262+00`, the offset
 * `±HH` or `±HH:MM`) read into a Date without a regular expression: every row of every list has
 * two, and pg's generic parser (postgres-date) was the largest single cost of reading a page of
 * comments. Any other shape (BC years, years past 9999, `infinity`, offsets with seconds) goes to
 * that generic parser, so the result is always the same as before.
 */
export function parseTimestamptz(text: string): Date | string | null {
  const length = text.length;
  if (length < 22 || text.charCodeAt(4) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return slow(text);
  let position = 19;
  let millis = 0;
  if (text.charCodeAt(position) === 46) {
    let scale = 100;
    position++;
    for (let digit = text.charCodeAt(position) - 48; digit >= 0 && digit <= 9; digit = text.charCodeAt(position) - 48) {
      millis += digit * scale;
      scale /= 10;
      position++;
    }
    millis = Math.floor(millis);
  }
  const sign = text.charCodeAt(position);
  let offset: number;
  if (length === position + 3) offset = digits(text, position + 1, 2) * 60;
  else if (length === position + 6 && text.charCodeAt(position + 3) === 58) offset = digits(text, position + 1, 2) * 60 + digits(text, position + 4, 2);
  else return slow(text);
  if (sign === 45) offset = -offset;
  else if (sign !== 43) return slow(text);
  const time = Date.UTC(
    digits(text, 0, 4),
    digits(text, 5, 2) - 1,
    digits(text, 8, 2),
    digits(text, 11, 2),
    digits(text, 14, 2),
    digits(text, 17, 2),
    millis,
  ) - offset * 60_000;
  // A digit out of place makes NaN: let the generic parser have its say on such text.
  if (Number.isNaN(time) || digits(text, 0, 4) < 100) return slow(text);
  return new Date(time);
}

/** pg's type parsers, with the fast timestamptz one. Given to the pool as `types`. */
export const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): unknown {
    return oid === TIMESTAMPTZ && format !== 'binary' ? parseTimestamptz : loadPg().types.getTypeParser(oid, format);
  },
};
