import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { PageLimit } from '../../common/pagination/cursor.js';
import { eventTypes } from '../feed-event.js';

const TYPES_DOCS = { example: 'POST_CREATED,COMMENT_CREATED', maxLength: 200 };

/** `?after=&limit=&types=` of GET /events. */
export class ListEventsQuery {
  @ApiPropertyOptional({ description: 'The cursor of the last event seen (from an event, or the Link rel="next" of the previous page); without it, from the oldest event kept' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  after?: string;

  @PageLimit()
  limit?: number;

  // The types themselves are stated once every resource has declared its events (describeEventQuery).
  @ApiPropertyOptional(TYPES_DOCS)
  @IsOptional()
  @IsString()
  @MaxLength(200)
  types?: string;
}

/** States the event types in the OpenAPI document's `types` (the list, and the pattern of a comma-separated list of them), when the resources are all declared. */
export function describeEventQuery(): void {
  const types = eventTypes();
  const type = `(?:${types.join('|')})`;
  ApiPropertyOptional({ ...TYPES_DOCS, description: `Only these types, comma-separated: ${types.join(', ')}`, pattern: `^${type}(?:,${type})*$` })(ListEventsQuery.prototype, 'types');
}
