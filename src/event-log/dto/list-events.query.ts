import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_PAGE_SIZE, toInteger } from '../../common/pagination/cursor.js';
import { EVENT_TYPES } from '../feed-event.js';

/** `?after=&limit=&types=` of GET /events. */
export class ListEventsQuery {
  @ApiPropertyOptional({ description: 'The cursor of the last event seen (from an event, or the Link rel="next" of the previous page); without it, from the oldest event kept' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  after?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'limit must be an integer from 1 to 100' })
  @Min(1, { message: 'limit must be an integer from 1 to 100' })
  @Max(MAX_PAGE_SIZE, { message: 'limit must be an integer from 1 to 100' })
  limit?: number;

  @ApiPropertyOptional({ description: `Only these types, comma-separated: ${EVENT_TYPES.join(', ')}`, example: 'POST_CREATED,COMMENT_CREATED' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  types?: string;
}
