import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { PageQueryDto, toInteger } from '../../common/pagination/cursor.js';
import { MAX_INT32 } from '../../common/validation/limits.js';
import { MAX_POST_CURSOR_LENGTH, MAX_TAG_FILTERS, TAG_SLUG_PATTERN } from '../../posts/dto/list-posts.query.js';

const TAG_MESSAGE = { message: 'tag must be a tag slug (a-z, 0-9 and -, at most 50 characters)', each: true };

/** GET /feed: `limit` and `cursor`, and GET /posts' `authorId` and `tag` filters (the public posts only: no `status`). */
export class FeedQuery extends PageQueryDto {
  @IsOptional()
  @IsString({ message: 'cursor is not a cursor this service issued' })
  @MaxLength(MAX_POST_CURSOR_LENGTH, { message: 'cursor is not a cursor this service issued' })
  declare cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_INT32, description: 'Only this author\'s posts' })
  @Max(MAX_INT32, { message: 'authorId must be a positive integer' })
  @Min(1, { message: 'authorId must be a positive integer' })
  @IsInt({ message: 'authorId must be a positive integer' })
  @Transform(toInteger)
  @IsOptional()
  authorId?: number;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', pattern: TAG_SLUG_PATTERN, maxLength: 50 },
    maxItems: MAX_TAG_FILTERS,
    description: `A tag's slug; repeat it (?tag=a&tag=b) for the posts that have every one (at most ${MAX_TAG_FILTERS})`,
  })
  @Matches(new RegExp(TAG_SLUG_PATTERN), TAG_MESSAGE)
  @IsString(TAG_MESSAGE)
  @ArrayMaxSize(MAX_TAG_FILTERS, { message: `tag may be given at most ${MAX_TAG_FILTERS} times` })
  @IsArray({ message: 'tag must be a tag slug' })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value))
  @IsOptional()
  tag?: string[];
}
