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
}

/**
 * The pattern of list cursors, for the OpenAPI document: base64url of `v1:<id>` for every id up to
 * 1999999999 (the ids there are; the service takes cursors up to 2147483647, the largest id).
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

/** Builds a page from `limit + 1` rows fetched in keyset order. */
export function toPage<T extends { id: number }>(rows: T[], limit: number): Page<T> {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  return { items, nextCursor: hasMore ? encodeCursor(items[items.length - 1].id) : null };
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
}

export function toPageRequest(query: { limit?: number; cursor?: string }): PageRequest {
  return {
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
    after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
  };
}
