import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Matches, MaxLength, Max, Min } from 'class-validator';
import { POST_STATUSES, type PostStatus } from '../../auth/read-policy.js';
import { PageQueryDto, toInteger } from '../../common/pagination/cursor.js';
import { MAX_INT32 } from '../../common/validation/limits.js';
import { DATE_TIME_PATTERN, IsDateTime, MaxChars, toDate } from '../../common/validation/transforms.js';
import { POST_SORTS, type PostSort } from '../post-order.js';
import { SLUG_PATTERN } from './create-post.dto.js';

/** The longest `?locale=` (a BCP 47 tag as SUPPORTED_LOCALES holds them). */
export const MAX_LOCALE_LENGTH = 35;
const LOCALE_MESSAGE = { message: 'locale must be * or one of SUPPORTED_LOCALES' };

const STATUS_MESSAGE = { message: 'status must be "draft", "in_review", "scheduled", "published" or "trashed"' };

/** A tag's slug as the filter takes it: lower-case a-z, 0-9 and `-` (CONTRACT §8). */
export const TAG_SLUG_PATTERN = '^[a-z0-9-]{1,50}$';
/** At most this many `tag` filters (a post has at most 10 tags). */
export const MAX_TAG_FILTERS = 10;
/** The longest search, in characters. */
export const MAX_SEARCH_LENGTH = 200;
/** The longest cursor of a filtered list (one ordered by title carries the title). */
export const MAX_POST_CURSOR_LENGTH = 1400;

const DATE_MESSAGE = (name: string) => ({ message: `${name} must be an ISO 8601 date-time with a time zone, e.g. 2030-01-01T09:00:00Z` });
const SLUG_QUERY_MESSAGE = { message: 'slug must be 1-120 characters of a-z, 0-9 and single "-" (not at either end)' };
const TAG_MESSAGE = { message: 'tag must be a tag slug (a-z, 0-9 and -, at most 50 characters)', each: true };

/** `?status=`: the non-public posts of a state the caller may see (signed in), or the public list (`published`, the default). */
export class PostStatusQuery extends PageQueryDto {
  @ApiPropertyOptional({
    type: 'string',
    enum: [...POST_STATUSES],
    description: 'draft, in_review, scheduled or trashed: those of your posts (admins: everyone\'s) in that state, newest first; signed in only (401). Default: the public posts',
  })
  @IsIn(POST_STATUSES, STATUS_MESSAGE)
  @IsOptional()
  status?: PostStatus;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: MAX_LOCALE_LENGTH,
    description:
      'The language to show each translation group in: one of SUPPORTED_LOCALES (else along LOCALE_FALLBACKS, then DEFAULT_LOCALE, then any), or * for every translation. Default: the lookup of Accept-Language, else DEFAULT_LOCALE',
  })
  @MaxLength(MAX_LOCALE_LENGTH, LOCALE_MESSAGE)
  @IsString(LOCALE_MESSAGE)
  @IsOptional()
  locale?: string;
}

/** GET /posts: the scope (status, authorId), the filters, the order and the search of CONTRACT §8. */
export class ListPostsQuery extends PostStatusQuery {
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

  @ApiPropertyOptional({
    type: 'string',
    maxLength: MAX_SEARCH_LENGTH,
    description:
      'Full-text search over title and body: words, "phrases" and -excluded words, stemmed (run finds running). Each item gains _search {rank, snippet}; the default order becomes relevance. A search with no word to find (only exclusions or punctuation) finds nothing',
  })
  @MaxChars(MAX_SEARCH_LENGTH, { message: `q must be at most ${MAX_SEARCH_LENGTH} characters` })
  @IsString({ message: 'q must be a text' })
  @IsOptional()
  q?: string;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', pattern: DATE_TIME_PATTERN, description: 'Posts published at or after this time (inclusive)' })
  @IsDateTime(DATE_MESSAGE('publishedAfter'))
  @Transform(toDate)
  @IsOptional()
  publishedAfter?: Date;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', pattern: DATE_TIME_PATTERN, description: 'Posts published before this time (exclusive)' })
  @IsDateTime(DATE_MESSAGE('publishedBefore'))
  @Transform(toDate)
  @IsOptional()
  publishedBefore?: Date;

  @ApiPropertyOptional({
    type: 'string',
    enum: [...POST_SORTS],
    description:
      '-publishedAt (newest publication first, the default), publishedAt, -updatedAt, title, or relevance (the default with q; 400 without it). With status, the publication orders are by creation (id)',
  })
  @IsIn(POST_SORTS, { message: `sort must be one of ${POST_SORTS.join(', ')}` })
  @IsOptional()
  sort?: PostSort;

  @ApiPropertyOptional({
    type: 'string',
    pattern: SLUG_PATTERN,
    maxLength: 120,
    description: 'The post that has or had this slug, if you may see it: a list of at most one, whose item carries the current slug (redirect when it differs). Given alone (limit aside)',
  })
  @Matches(new RegExp(SLUG_PATTERN), SLUG_QUERY_MESSAGE)
  @MaxLength(120, SLUG_QUERY_MESSAGE)
  @IsString(SLUG_QUERY_MESSAGE)
  @IsOptional()
  slug?: string;
}
