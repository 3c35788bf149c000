import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayNotEmpty, ArrayUnique, IsArray, IsDefined, IsOptional, IsString, IsUrl, MaxLength, ValidateBy, ValidateIf } from 'class-validator';
import { resources } from '../../common/resource/resource-definition.js';
import { MaxChars, REQUIRED, Trim } from '../../common/validation/transforms.js';

/** The types of events a webhook may ask for: those of the event log, as the resources declare them (read when needed). */
export const eventTypes = (): string[] => resources.eventTypes().map(({ type }) => type);

/** An event type (`POST_CREATED`): one of eventTypes(). */
export type EventType = string;

/** The schema of a list of event types, its types read when the OpenAPI document is built. */
export const eventTypesSchema = () => ({
  type: 'array' as const,
  items: {
    type: 'string' as const,
    get enum() {
      return eventTypes();
    },
  },
});

const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
const URL_MESSAGE = { message: 'url must be an http(s) URL of at most 2048 characters' };
const TYPES_MESSAGE = { message: () => `types must be a non-empty list of ${eventTypes().join(', ')}, each at most once` };

/** Each element is an event type of the log. */
const IsEventType = () =>
  ValidateBy({ name: 'isEventType', validator: { validate: (value: unknown) => typeof value === 'string' && eventTypes().includes(value) } }, { each: true, ...TYPES_MESSAGE });
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

  // Each type at most once: as many as there are types, at most (maxItems: describeWebhookTypes).
  @ApiProperty({ ...eventTypesSchema(), minItems: 1, uniqueItems: true, example: ['POST_CREATED'] })
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

