import { ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, ValidateIf } from 'class-validator';
import { OMITTED_OR_NOT_NULL } from '../../common/validation/transforms.js';
import { CreateWebhookDto } from './create-webhook.dto.js';

/** The body of PATCH /webhooks/{id}: a new webhook's fields, each optional (null removes the description), and `active`. */
export class UpdateWebhookDto extends PartialType(CreateWebhookDto, { skipNullProperties: false }) {
  @ApiPropertyOptional({ type: 'boolean', description: 'false: no events are sent (those of the meantime are not sent later); true: sending resumes' })
  @IsBoolean({ message: 'active must be true or false' })
  @ValidateIf(OMITTED_OR_NOT_NULL)
  active?: boolean;
}
