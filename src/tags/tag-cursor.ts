import { DomainError } from '../common/errors/domain-error.js';
import { base64Pattern, DIGIT } from '../common/pagination/base64-pattern.js';
import { MAX_INT32 } from '../common/validation/limits.js';

const PREFIX = 't1:';
const COUNT_WIDTH = 10;
const ID_WIDTH = 10;

/**
 * The cursors of the tag list (most used first): base64url of `t1:<public post count, 10
 * digits>:<id, 10 digits>`, the pair the list is ordered by (ids up to 1999999999 in the pattern,
 * as the other lists').
 */
export const TAG_CURSOR_PATTERN = base64Pattern(PREFIX, [[...Array<string>(COUNT_WIDTH).fill(DIGIT), ':', '01', ...Array<string>(ID_WIDTH - 1).fill(DIGIT)]]);
const TAG_CURSOR = new RegExp(TAG_CURSOR_PATTERN);

/** Where a page of the tag list starts: after the tag with this count and id. */
export interface TagPosition {
  count: number;
  id: number;
}

export function encodeTagCursor(count: number, id: number): string {
  return Buffer.from(`${PREFIX}${String(count).padStart(COUNT_WIDTH, '0')}:${String(id).padStart(ID_WIDTH, '0')}`).toString('base64url');
}

/** 400 naming `field` for anything this service did not issue. */
export function decodeTagCursor(cursor: string, field: string): TagPosition {
  if (TAG_CURSOR.test(cursor)) {
    const [count, id] = Buffer.from(cursor, 'base64url').toString('utf8').slice(PREFIX.length).split(':').map(Number);
    // Any count the pattern allows is taken: a count above any tag's pages from the start of the
    // list, as the largest count the column can hold does (compared with an integer column, a
    // larger number would be an error on PostgreSQL).
    if (id <= MAX_INT32) return { count: Math.min(count, MAX_INT32), id };
  }
  throw DomainError.badInput(`${field} is not a cursor this service issued`, [{ field, message: 'is not a valid cursor' }]);
}
