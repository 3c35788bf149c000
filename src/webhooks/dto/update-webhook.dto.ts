import { ApiPropertyOptional, type OpenAPIObject, PartialType, type SchemaObject } from '@nestjs/swagger';
import { IsBoolean, ValidateIf } from 'class-validator';
import { OMITTED_OR_NOT_NULL } from '../../common/validation/transforms.js';
import type { ResourceCatalog } from '../../common/resource/resource-catalog.js';
import { CreateWebhookDto } from './create-webhook.dto.js';

/** The body of PATCH /webhooks/{id}: a new webhook's fields, each optional (null removes the description), and `active`. */
export class UpdateWebhookDto extends PartialType(CreateWebhookDto, { skipNullProperties: false }) {
  @ApiPropertyOptional({ type: 'boolean', description: 'false: no events are sent (those of the meantime are not sent later); true: sending resumes' })
  @IsBoolean({ message: 'active must be true or false' })
  @ValidateIf(OMITTED_OR_NOT_NULL)
  active?: boolean;
}

/**
 * States the application's event types in its OpenAPI document: those a webhook lists (`types` of
 * a webhook, of POST's body and PATCH's), and on the bodies how many it may list (each once).
 */
export function describeWebhookTypes(document: OpenAPIObject, catalog: ResourceCatalog): void {
  const types = catalog.eventTypeNames();
  const schemas = (document.components?.schemas ?? {}) as Record<string, SchemaObject>;
  for (const [name, body] of [['CreateWebhookDto', true], ['UpdateWebhookDto', true], ['Webhook', false], ['NewWebhook', false]] as const) {
    const property = schemas[name]?.properties?.types as SchemaObject | undefined;
    if (!property) continue;
    property.items = { ...(property.items as SchemaObject), enum: types };
    if (body) property.maxItems = types.length;
  }
}
