import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayNotEmpty, ArrayUnique, IsArray, IsDefined, IsOptional, IsString, IsUrl, MaxLength, ValidateBy, ValidateIf, type ValidationArguments } from 'class-validator';
import type { ResourceCatalog } from '../../common/resource/resource-catalog.js';
import { validationContext } from '../../common/validation/validation.pipe.js';
import { MaxChars, REQUIRED, Trim } from '../../common/validation/transforms.js';

/** The types of events a webhook may ask for: those of the event log, as the application's resources declare them (its validation pipe's catalog). */
const eventTypes = (args: ValidationArguments): string[] => validationContext<ResourceCatalog>(args.object)?.eventTypeNames() ?? [];

/** An event type (`POST_CREATED`): one of the catalog's eventTypeNames(). */
export type EventType = string;

const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
const URL_MESSAGE = { message: 'url must be an http(s) URL of at most 2048 characters' };
const TYPES_MESSAGE = { message: (args: ValidationArguments) => `types must be a non-empty list of ${eventTypes(args).join(', ')}, each at most once` };

/** Each element is an event type of the log. */
const IsEventType = () =>
  ValidateBy({ name: 'isEventType', validator: { validate: (value: unknown, args?: ValidationArguments) => typeof value === 'string' && args !== undefined && eventTypes(args).includes(value) } }, { each: true, ...TYPES_MESSAGE });
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

  // Each type at most once: as many as there are types, at most. The types (enum, maxItems) are
  // the application's, stated in its OpenAPI document (describeWebhookTypes).
  @ApiProperty({ type: 'array', items: { type: 'string' }, minItems: 1, uniqueItems: true, example: ['POST_CREATED'] })
  @IsEventType()
  @ArrayUnique(undefined, TYPES_MESSAGE)
  @ArrayNotEmpty(TYPES_MESSAGE)
  @IsArray(TYPES_MESSAGE)
  @IsDefined(REQUIRED)
  types: string[];

  @ApiPropertyOptional({ type: 'string', maxLength: 500, nullable: true, description: 'What the webhook is for (null or none: no description)' })
  @MaxChars(500, DESCRIPTION_MESSAGE)
  @IsString(DESCRIPTION_MESSAGE)
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  description?: string | null;
}

