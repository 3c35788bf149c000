import { Field, GraphQLISODateTime, InputType, Int } from '@nestjs/graphql';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDefined, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min, ValidateBy, ValidateIf } from 'class-validator';
import { BODY_FORMATS, type BodyFormat, GraphQLBodyFormat } from '../../content/body-format.js';
import type { PostStatus } from '../../auth/read-policy.js';
import { DATE_TIME_PATTERN, IsDateTime, MaxChars, NOT_BLANK_PATTERN, OMITTED_OR_NOT_NULL, REQUIRED, SLUGGABLE_PATTERN, toDate, Trim } from '../../common/validation/transforms.js';
import { MAX_INT32 } from '../../common/validation/limits.js';
import { GraphQLPostStatus } from '../models/post-status.enum.js';

/** The states a post may be written into; `trashed` is reached by DELETE only. */
export const WRITABLE_POST_STATUSES = ['draft', 'in_review', 'scheduled', 'published'] as const satisfies readonly PostStatus[];
const STATUS_MESSAGE = { message: 'status must be "draft", "in_review", "scheduled" or "published" (DELETE moves a post to the trash)' };

const TAG_MESSAGE = { each: true, message: 'tags must be names of 1-50 characters' };

/** A slug as stored: lower-case letters and digits in runs joined by single '-'. */
export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';
const SLUG_MESSAGE = { message: 'slug must be 1-120 characters of a-z, 0-9 and single "-" (not at either end)' };
/** An absolute http(s) URL: the scheme, a host, then anything but white space. */
const CANONICAL_PATTERN = '^https?://[A-Za-z0-9._~%!$&\'()*+,;=:\\[\\]-]+(?:[/?#]\\S*)?$';
const CANONICAL_MESSAGE = { message: 'canonicalUrl must be an absolute http(s) URL of at most 2048 characters' };

const COVER_MESSAGE = { message: 'coverImageId must be the id of a media item (a positive integer) or null' };

const LOCALE_MESSAGE = { message: 'locale must be a BCP 47 language tag of SUPPORTED_LOCALES (e.g. "en", "de-CH")' };

/** A post to translate: REST's `{"postId": 1}`, GraphQL's Int (the REST door refuses a bare number). Its class is its OpenAPI schema. */
export class TranslationOfRef {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_INT32, description: 'The id of the post it translates' })
  postId: number;
}

const isPostId = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_INT32;

/** `translationOf`: the id of a post (GraphQL), or `{postId}` and nothing else (REST). */
function IsTranslationOf(): PropertyDecorator {
  return ValidateBy({
    name: 'isTranslationOf',
    validator: {
      validate: (value: unknown) => {
        if (isPostId(value)) return true;
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
        const keys = Object.keys(value);
        return keys.length === 1 && keys[0] === 'postId' && isPostId((value as TranslationOfRef).postId);
      },
      defaultMessage: () => 'translationOf must be {"postId": <the id of a post>}',
    },
  });
}

const TITLE_MESSAGE = { message: 'title must be 1-200 characters (after trimming)' };

/** The body of POST /posts and GraphQL's CreatePostInput. */
@InputType('CreatePostInput', { description: 'A new post' })
export class CreatePostDto {
  @Field(() => String, { description: 'The title (1-200 characters, trimmed)' })
  @ApiProperty({ minLength: 1, maxLength: 200, pattern: NOT_BLANK_PATTERN, example: 'Hello', description: 'Trimmed' })
  @MaxChars(200, TITLE_MESSAGE)
  @Length(1, 200, TITLE_MESSAGE)
  @IsString()
  @IsDefined(REQUIRED)
  @Trim()
  title: string;

  @Field(() => String, { description: 'The text (1-100000 characters)' })
  @ApiProperty({ minLength: 1, maxLength: 100000, example: 'My first post' })
  @Length(1, 100_000, { message: 'body must be 1-100000 characters' })
  @IsString()
  @IsDefined(REQUIRED)
  body: string;

  @Field(() => GraphQLBodyFormat, { nullable: true, description: 'How body is written: PLAIN (the default), MARKDOWN or HTML' })
  @ApiPropertyOptional({ type: 'string', enum: [...BODY_FORMATS], description: 'Default "plain"; bodyHtml is the sanitized rendering whatever the format' })
  @IsIn(BODY_FORMATS, { message: 'bodyFormat must be "plain", "markdown" or "html"' })
  @IsOptional()
  bodyFormat?: BodyFormat;

  @Field(() => String, { nullable: true, description: 'Its address (lower-case a-z0-9 and single "-", 1-120 characters); made from the title when not given; a taken one is CONFLICT' })
  @ApiPropertyOptional({ minLength: 1, maxLength: 120, pattern: SLUG_PATTERN, example: 'hello-world', description: 'Made from the title when not given; one another post has (or had) is 409' })
  @Matches(new RegExp(SLUG_PATTERN), SLUG_MESSAGE)
  @Length(1, 120, SLUG_MESSAGE)
  @IsString(SLUG_MESSAGE)
  @IsOptional()
  slug?: string;

  @Field(() => String, { nullable: true, description: 'A plain-text summary (at most 500 characters); null or omitted: derived from the body' })
  @ApiPropertyOptional({ type: 'string', maxLength: 500, nullable: true, description: 'Plain text; null or omitted: the start of the body (at most 300 characters)' })
  @MaxChars(500, { message: 'excerpt must be at most 500 characters' })
  @IsString({ message: 'excerpt must be a string' })
  @IsOptional()
  excerpt?: string | null;

  @Field(() => Int, { nullable: true, description: 'The id of a media item you may see, as its cover image; null: none' })
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_INT32, nullable: true, description: 'The id of a media item you may see (400 otherwise), as its cover image; null: none. A public post makes its cover public' })
  @Max(MAX_INT32, COVER_MESSAGE)
  @Min(1, COVER_MESSAGE)
  @IsInt(COVER_MESSAGE)
  @IsOptional()
  coverImageId?: number | null;

  @Field(() => String, { nullable: true, description: 'The title for search engines (at most 70 characters)' })
  @ApiPropertyOptional({ type: 'string', maxLength: 70, nullable: true })
  @MaxChars(70, { message: 'metaTitle must be at most 70 characters' })
  @IsString({ message: 'metaTitle must be a string' })
  @IsOptional()
  metaTitle?: string | null;

  @Field(() => String, { nullable: true, description: 'The description for search engines (at most 200 characters)' })
  @ApiPropertyOptional({ type: 'string', maxLength: 200, nullable: true })
  @MaxChars(200, { message: 'metaDescription must be at most 200 characters' })
  @IsString({ message: 'metaDescription must be a string' })
  @IsOptional()
  metaDescription?: string | null;

  @Field(() => String, { nullable: true, description: 'Where the canonical copy lives: an absolute http(s) URL' })
  @ApiPropertyOptional({ type: 'string', maxLength: 2048, pattern: CANONICAL_PATTERN, nullable: true, example: 'https://example.com/original' })
  @MaxChars(2048, CANONICAL_MESSAGE)
  @Matches(new RegExp(CANONICAL_PATTERN), CANONICAL_MESSAGE)
  @IsString(CANONICAL_MESSAGE)
  @IsOptional()
  canonicalUrl?: string | null;

  @Field(() => GraphQLPostStatus, { nullable: true, description: 'DRAFT, IN_REVIEW (submitted for review, with an optional publishAt), SCHEDULED (with publishAt) or PUBLISHED (the default); TRASHED is refused (deletePost trashes). Under POSTS_REVIEW=required authors may not publish or schedule (FORBIDDEN)' })
  @ApiPropertyOptional({ type: 'string', enum: [...WRITABLE_POST_STATUSES], description: 'Default "published"; "scheduled" needs publishAt in the future; "in_review" submits it for review (under POSTS_REVIEW=required, the only way for an author: "published" and "scheduled" are 403)' })
  @IsIn(WRITABLE_POST_STATUSES, STATUS_MESSAGE)
  @IsOptional()
  status?: PostStatus;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'With status SCHEDULED: when to publish it (in the future); with IN_REVIEW: when to publish it once approved' })
  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    pattern: DATE_TIME_PATTERN,
    // IsOptional: null is taken, as no date.
    nullable: true,
    description: 'With status "scheduled" (in the future) or "in_review" (used on approval: scheduled then if still in the future) only, else 400: when to publish it. RFC 3339: 2030-01-01T09:00:00Z',
  })
  @IsDateTime({ message: 'publishAt must be an ISO 8601 date-time with a time zone, e.g. 2030-01-01T09:00:00Z' })
  @IsOptional()
  @Transform(toDate)
  publishAt?: Date;

  @Field(() => [String], { nullable: true, description: 'Its tags by name or slug (each slugified and matched by slug; a new one is created); at most 10 different ones' })
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: 50, pattern: SLUGGABLE_PATTERN },
    maxItems: 100,
    example: ['news', 'Release Notes'],
    description: 'Each slugified (lower-case, runs of other characters than a-z0-9 one "-") and matched by slug; a tag that does not exist yet is created. At most 10 different ones; on PATCH the new set',
  })
  @MaxChars(50, TAG_MESSAGE)
  @Length(1, 50, TAG_MESSAGE)
  @IsString(TAG_MESSAGE)
  @ArrayMaxSize(100, { message: 'tags: at most 10 different tags per post' })
  @IsArray({ message: 'tags must be an array of tag names' })
  // Not nullable: `{"tags": null}` (GraphQL's `tags: null` too) is 400, where [] is no tags.
  @IsDefined({ message: 'tags must not be null (an empty array: no tags)' })
  @ValidateIf(OMITTED_OR_NOT_NULL)
  tags?: string[];

  @Field(() => String, { nullable: true, description: 'Its language: a BCP 47 tag of SUPPORTED_LOCALES (any case); default DEFAULT_LOCALE; another is BAD_USER_INPUT' })
  @ApiPropertyOptional({ type: 'string', minLength: 2, maxLength: 35, example: 'en', description: 'Its language: one of SUPPORTED_LOCALES (BCP 47, any case: stored canonical); default DEFAULT_LOCALE; another is 400' })
  @Length(2, 35, LOCALE_MESSAGE)
  @IsString(LOCALE_MESSAGE)
  @IsOptional()
  locale?: string;

  @Field(() => Int, { nullable: true, description: 'Write it as the translation of this post, in another locale (one per locale of its group: CONFLICT); a post you may not see is NOT_FOUND' })
  @ApiPropertyOptional({
    type: TranslationOfRef,
    description: 'Write it as the translation of this post, in another locale: 409 when its group has a post in that locale already; 404 when there is no such post you may see',
  })
  @IsTranslationOf()
  // Not nullable: null is 400 (GraphQL's `translationOf: null` too); omitted, it is no translation.
  @IsDefined({ message: 'translationOf must not be null (omit it: not a translation)' })
  @ValidateIf(OMITTED_OR_NOT_NULL)
  translationOf?: number | TranslationOfRef;

  /** Admins only: write the post on someone else's behalf. */
  @Field(() => Int, { nullable: true, description: 'Admins only: the author, if not yourself' })
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_INT32, description: 'Admins only: the author, if not yourself (the id of a user: another is 400)' })
  @Max(MAX_INT32)
  @Min(1)
  @IsInt({ message: 'authorId must be an integer' })
  @IsOptional()
  authorId?: number;
}
