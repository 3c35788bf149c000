import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { PageLimit } from '../../common/pagination/cursor.js';
import { TAG_CURSOR_PATTERN } from '../tag-cursor.js';

/** `GET /tags?limit=&cursor=&slug=`. */
export class ListTagsQuery {
  @PageLimit()
  limit?: number;

  @ApiPropertyOptional({ description: 'Opaque; from the Link rel="next" of the previous page', pattern: TAG_CURSOR_PATTERN })
  @MaxLength(64, { message: 'cursor is not a cursor this service issued' })
  @IsString({ message: 'cursor is not a cursor this service issued' })
  @IsOptional()
  cursor?: string;

  @ApiPropertyOptional({ type: 'string', maxLength: 200, example: 'news', description: 'The tag with this slug: a list of it alone, or an empty one' })
  @MaxLength(200, { message: 'slug must be at most 200 characters' })
  @IsString({ message: 'slug must be a string' })
  @IsOptional()
  slug?: string;
}
