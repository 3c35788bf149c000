import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsDefined, IsIn, IsOptional, IsString, IsUrl, MaxLength, ValidateIf } from 'class-validator';
import { MaxChars, REQUIRED, Trim } from '../../common/validation/transforms.js';

/** The types of events a webhook may ask for: those of the event log. */
export const EVENT_TYPES = ['POST_CREATED', 'POST_UPDATED', 'POST_DELETED', 'POST_PUBLISHED', 'POST_UNPUBLISHED', 'COMMENT_CREATED', 'COMMENT_UPDATED', 'COMMENT_DELETED'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
const URL_MESSAGE = { message: 'url must be an http(s) URL of at most 2048 characters' };
const TYPES_MESSAGE = { message: `types must be a non-empty list of ${EVENT_TYPES.join(', ')}, each at most once` };
const DESCRIPTION_MESSAGE = { message: 'description must be a string of at most 500 characters' };

/** The body of POST /webhooks. */
export class CreateWebhookDto {
  @ApiProperty({ type: 'string', format: 'uri', maxLength: 2048, example: 'https://example.com/hooks/blog', description: 'Where events are POSTed (http or https)' })
  @MaxChars(2048, URL_MESSAGE)
  @IsUrl(HTTP_URL, URL_MESSAGE)
  @MaxLength(2048, URL_MESSAGE)
  @IsString(URL_MESSAGE)
  @IsDefined(REQUIRED)
  @Trim()
  url: string;

  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...EVENT_TYPES] }, minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true, example: ['POST_CREATED'] })
  @IsIn(EVENT_TYPES, { each: true, ...TYPES_MESSAGE })
  @ArrayUnique(undefined, TYPES_MESSAGE)
  @ArrayMaxSize(EVENT_TYPES.length, TYPES_MESSAGE)
  @ArrayNotEmpty(TYPES_MESSAGE)
  @IsArray(TYPES_MESSAGE)
  @IsDefined(REQUIRED)
  types: EventType[];

  @ApiPropertyOptional({ type: 'string', maxLength: 500, nullable: true, description: 'What the webhook is for (null or none: no description)' })
  @MaxChars(500, DESCRIPTION_MESSAGE)
  @IsString(DESCRIPTION_MESSAGE)
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  description?: string | null;
}
