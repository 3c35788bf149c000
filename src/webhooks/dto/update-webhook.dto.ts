import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsBoolean, IsIn, IsOptional, IsString, IsUrl, MaxLength, ValidateIf } from 'class-validator';
import { MaxChars, OMITTED_OR_NOT_NULL, Trim } from '../../common/validation/transforms.js';
import { DESCRIPTION_MESSAGE, EVENT_TYPES, type EventType, HTTP_URL, TYPES_MESSAGE, URL_MESSAGE } from './create-webhook.dto.js';

/** The body of PATCH /webhooks/{id}: only the fields given change. */
export class UpdateWebhookDto {
  @ApiPropertyOptional({ type: 'string', format: 'uri', maxLength: 2048 })
  @MaxChars(2048, URL_MESSAGE)
  @IsUrl(HTTP_URL, URL_MESSAGE)
  @MaxLength(2048, URL_MESSAGE)
  @IsString(URL_MESSAGE)
  @ValidateIf(OMITTED_OR_NOT_NULL)
  @Trim()
  url?: string;

  @ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: [...EVENT_TYPES] }, minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true })
  @IsIn(EVENT_TYPES, { each: true, ...TYPES_MESSAGE })
  @ArrayUnique(undefined, TYPES_MESSAGE)
  @ArrayMaxSize(EVENT_TYPES.length, TYPES_MESSAGE)
  @ArrayNotEmpty(TYPES_MESSAGE)
  @IsArray(TYPES_MESSAGE)
  @ValidateIf(OMITTED_OR_NOT_NULL)
  types?: EventType[];

  /** null removes it. */
  @ApiPropertyOptional({ type: 'string', maxLength: 500, nullable: true, description: 'null removes it' })
  @MaxChars(500, DESCRIPTION_MESSAGE)
  @IsString(DESCRIPTION_MESSAGE)
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  description?: string | null;

  @ApiPropertyOptional({ type: 'boolean', description: 'false: no events are sent (those of the meantime are not sent later); true: sending resumes' })
  @IsBoolean({ message: 'active must be true or false' })
  @ValidateIf(OMITTED_OR_NOT_NULL)
  active?: boolean;
}
