import { applyDecorators } from '@nestjs/common';
import { Field, Int } from '@nestjs/graphql';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { decodeListCursor, MAX_PAGE_SIZE, type PageRequest } from '../pagination/cursor.js';

const FIRST_MESSAGE = { message: `first must be an integer from 1 to ${MAX_PAGE_SIZE}` };

/** `first: Int = <default>`: 1-100, like the REST `limit` (an explicit null is refused). */
export function FirstArg(defaultValue: number): PropertyDecorator {
  return applyDecorators(
    Field(() => Int, { nullable: true, defaultValue, description: `How many (1-${MAX_PAGE_SIZE})` }),
    IsInt(FIRST_MESSAGE),
    Min(1, FIRST_MESSAGE),
    Max(MAX_PAGE_SIZE, FIRST_MESSAGE),
  );
}

/** `after: String`: an opaque cursor from a previous page. */
export function AfterArg(): PropertyDecorator {
  return applyDecorators(
    Field(() => String, { nullable: true, description: 'The endCursor (or an edge cursor) of the previous page' }),
    IsOptional(),
    IsString(),
    MaxLength(64, { message: 'after is not a cursor this service issued' }),
  );
}

export interface PageArgs {
  first: number;
  after?: string | null;
}

export function toPageRequest(args: PageArgs): PageRequest {
  return { limit: args.first, ...(args.after == null ? {} : decodeListCursor(args.after, 'after')) };
}

/** Tells page arguments apart (one list loader per distinct `first`/`after`). */
export const pageKey = (page: PageRequest) => `${page.limit}:${page.after ?? ''}:${page.afterTime?.getTime() ?? ''}`;
