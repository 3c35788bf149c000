import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { PageLimit } from '../../common/pagination/cursor.js';

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

  // The types themselves are the application's, stated in its OpenAPI document (describeEventLog).
  @ApiPropertyOptional(TYPES_DOCS)
  @IsOptional()
  @IsString()
  @MaxLength(200)
  types?: string;
}

