import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, ValidateIf } from 'class-validator';
import { OMITTED_OR_NOT_NULL } from '../../common/validation/transforms.js';
import { CreateWebhookDto, eventTypes } from './create-webhook.dto.js';

/** The body of PATCH /webhooks/{id}: a new webhook's fields, each optional (null removes the description), and `active`. */
export class UpdateWebhookDto extends PartialType(CreateWebhookDto, { skipNullProperties: false }) {
  @ApiPropertyOptional({ type: 'boolean', description: 'false: no events are sent (those of the meantime are not sent later); true: sending resumes' })
  @IsBoolean({ message: 'active must be true or false' })
  @ValidateIf(OMITTED_OR_NOT_NULL)
  active?: boolean;
}

/**
 * States in the OpenAPI document how many types a webhook may list (each once), once every
 * resource has declared its events (WebhooksModule's constructor): on POST's body and on PATCH's,
 * whose copy of the property PartialType made when it was declared.
 */
export function describeWebhookTypes(): void {
  const maxItems = eventTypes().length;
  ApiProperty({ maxItems })(CreateWebhookDto.prototype, 'types');
  ApiPropertyOptional({ maxItems })(UpdateWebhookDto.prototype, 'types');
}
