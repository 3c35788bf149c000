import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { DomainError } from '../errors/domain-error.js';
import { base64Pattern, DIGIT, positiveIntegerShapes } from './base64-pattern.js';
import { MAX_INT32 } from '../validation/limits.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** One page of a keyset-paged list: the items and the cursor of the next page, if there is one. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  /**
   * Whether any row comes before the page in list order: set for pages asked for with a
   * cursor, and a function so that the query behind it runs only when someone asks.
   */
  hasPrevious?: () => Promise<boolean>;
  /** The cursor of each item, when the list is not in id order (the default is `encodeCursor(id)`). */
  cursorOf?: (item: T) => string;
}

/**
 * The pattern of list cursors, for the OpenAPI document: base64url of `v1:<id>` for every id up to
 * 1999999999 (the ids there are; the service takes cursors up to MAX_INT32, the largest id).
 */
export const LIST_CURSOR_PATTERN = base64Pattern('v1:', [...positiveIntegerShapes(9), ['1', ...Array<string>(9).fill(DIGIT)]]);

/** Keyset cursors are opaque to clients: base64url of `v1:<last id>`. */
export function encodeCursor(id: number): string {
  return Buffer.from(`v1:${id}`).toString('base64url');
}

export function decodeCursor(cursor: string, field = 'cursor'): number {
  const match = /^v1:([1-9]\d{0,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const id = match ? Number(match[1]) : NaN;
  if (!(id <= MAX_INT32) || Buffer.from(`v1:${id}`).toString('base64url') !== cursor) {
    throw DomainError.badInput(`${field} is not a cursor this service issued`, [
      { field, message: 'is not a valid cursor' },
    ]);
  }
  return id;
}

const TIME_PREFIX = 'p1:';
const TIME_WIDTH = 15;
const ID_WIDTH = 10;

/**
 * The pattern of the cursors of lists ordered by a time, then the id (the public posts, newest
 * publication first): base64url of `p1:<milliseconds, 15 digits>:<id, 10 digits>` (ids up to
 * 1999999999 in the pattern, as LIST_CURSOR_PATTERN).
 */
export const TIME_CURSOR_PATTERN = base64Pattern(TIME_PREFIX, [[...Array<string>(TIME_WIDTH).fill(DIGIT), ':', '01', ...Array<string>(ID_WIDTH - 1).fill(DIGIT)]]);
const TIME_CURSOR = new RegExp(TIME_CURSOR_PATTERN);

/** A list that takes both kinds of cursor (GET /posts: by publication, or by id with ?status). */
export const LIST_OR_TIME_CURSOR_PATTERN = `^(?:${LIST_CURSOR_PATTERN.slice(1, -1)}|${TIME_CURSOR_PATTERN.slice(1, -1)})$`;

/** Keyset cursor of a list in (time, id) order: both, fixed width. */
export function encodeTimeCursor(at: Date, id: number): string {
  return Buffer.from(`${TIME_PREFIX}${String(at.getTime()).padStart(TIME_WIDTH, '0')}:${String(id).padStart(ID_WIDTH, '0')}`).toString('base64url');
}

/** A cursor of either kind: `after` is the id, `afterTime` the time of a (time, id) cursor. */
export function decodeListCursor(cursor: string, field = 'cursor'): Pick<PageRequest, 'after' | 'afterTime'> {
  if (TIME_CURSOR.test(cursor)) {
    const [time, id] = Buffer.from(cursor, 'base64url').toString('utf8').slice(TIME_PREFIX.length).split(':');
    const after = Number(id);
    // Id 0 (never issued) is taken as "from the start" by the keyset comparison: nothing is refused that the pattern allows.
    if (after <= MAX_INT32) return { after, afterTime: new Date(Number(time)) };
  }
  return { after: decodeCursor(cursor, field) };
}

/** Builds a page from `limit + 1` rows fetched in keyset order (`cursorOf`: for lists not in id order). */
export function toPage<T extends { id: number }>(rows: T[], limit: number, cursorOf?: (item: T) => string): Page<T> {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, nextCursor: hasMore ? (cursorOf ? cursorOf(last) : encodeCursor(last.id)) : null, ...(cursorOf ? { cursorOf } : {}) };
}

export const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d{1,10}$/.test(value) ? Number(value) : value;

/** `?limit=` of a list: 1-100, default 20. */
export const PageLimit = () =>
  applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: DEFAULT_PAGE_SIZE }),
    IsOptional(),
    Transform(toInteger),
    IsInt({ message: 'limit must be an integer from 1 to 100' }),
    Min(1, { message: 'limit must be an integer from 1 to 100' }),
    Max(MAX_PAGE_SIZE, { message: 'limit must be an integer from 1 to 100' }),
  );

/** `?limit=&cursor=` on every list. */
export class PageQueryDto {
  @PageLimit()
  limit?: number;

  @ApiPropertyOptional({ description: 'Opaque; from the Link rel="next" of the previous page', pattern: LIST_CURSOR_PATTERN })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  cursor?: string;
}

export interface PageRequest {
  limit: number;
  /** The id after which (in list order) the page starts. */
  after?: number;
  /** With `after`, the time of that item, for lists in (time, id) order (see encodeTimeCursor). */
  afterTime?: Date;
}

export function toPageRequest(query: { limit?: number; cursor?: string }): PageRequest {
  return { limit: query.limit ?? DEFAULT_PAGE_SIZE, ...(query.cursor === undefined ? {} : decodeListCursor(query.cursor)) };
}
