import { Body, Controller, Delete, Get, Ip, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import type { Actor } from '../common/actor.js';
import { ApiDelete, ApiJson } from '../common/openapi/api-docs.decorators.js';
import { schemaRef, type SchemaObject } from '../common/openapi/schemas.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { type ApiKeyView, ApiKeysService } from './api-keys.service.js';
import { CreateApiKeyDto } from './dto/create-api-key.dto.js';
import { API_KEY_SCHEMA } from './api-key.schema.js';

const CREATED_SCHEMA: SchemaObject = {
  ...API_KEY_SCHEMA,
  properties: { ...API_KEY_SCHEMA.properties, key: { type: 'string', description: 'blog_…: shown only here' } },
  required: [...(API_KEY_SCHEMA.required ?? []), 'key'],
};

@ApiTags('users')
@Controller('users/:id/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @SignedIn()
  @ApiOperation({
    summary: 'Create an API key (the user or an admin; not with an API key). The key is shown once',
    description:
      'Needs a bearer token less than 5 minutes old, or `currentPassword` (the caller\'s own): 400 BAD_USER_INPUT naming `currentPassword` without either, ' +
      '403 FORBIDDEN when it is wrong, 429 RATE_LIMITED (with Retry-After) once wrong passwords reach the sign-in limits.',
  })
  @ApiJson(201, 'The key, with `key` shown this once', schemaRef('NewApiKey', CREATED_SCHEMA))
  create(@Param('id', ParseIdPipe) userId: number, @Body() input: CreateApiKeyDto, @CurrentActor() actor: Actor, @Ip() clientAddress: string): Promise<ApiKeyView> {
    return this.keys.create(userId, input, actor, clientAddress);
  }

  @Get()
  @SignedIn()
  @ApiOperation({ summary: "A user's API keys, without the keys (the user or an admin)" })
  @ApiJson(200, 'The keys', { type: 'array', items: schemaRef('ApiKey', API_KEY_SCHEMA) })
  list(@Param('id', ParseIdPipe) userId: number, @CurrentActor() actor: Actor): Promise<ApiKeyView[]> {
    return this.keys.list(userId, actor);
  }

  @Delete(':keyId')
  @SignedIn()
  @ApiOperation({ summary: 'Revoke an API key (the user or an admin)' })
  @ApiDelete('Revoked')
  async revoke(@Param('id', ParseIdPipe) userId: number, @Param('keyId', ParseIdPipe) keyId: number, @CurrentActor() actor: Actor): Promise<void> {
    await this.keys.revoke(userId, keyId, actor);
  }
}
