import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { PageLimit } from '../../common/pagination/cursor.js';
import { EVENT_TYPES } from '../feed-event.js';

const TYPE = `(?:${EVENT_TYPES.join('|')})`;
/** A comma-separated list of event types, as the OpenAPI document states it. */
const TYPES_PATTERN = `^${TYPE}(?:,${TYPE})*$`;

/** `?after=&limit=&types=` of GET /events. */
export class ListEventsQuery {
  @ApiPropertyOptional({ description: 'The cursor of the last event seen (from an event, or the Link rel="next" of the previous page); without it, from the oldest event kept' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  after?: string;

  @PageLimit()
  limit?: number;

  @ApiPropertyOptional({
    description: `Only these types, comma-separated: ${EVENT_TYPES.join(', ')}`,
    example: 'POST_CREATED,COMMENT_CREATED',
    pattern: TYPES_PATTERN,
    maxLength: 200,
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  types?: string;
}
