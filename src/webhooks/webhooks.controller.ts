import { Body, Controller, Delete, Get, Param, Patch, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import type { Actor } from '../common/actor.js';
import { ApiDelete, ApiJson, ApiProblems } from '../common/openapi/api-docs.decorators.js';
import { headerRef, schemaRef, type SchemaObject } from '../common/openapi/schemas.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { CreateWebhookDto } from './dto/create-webhook.dto.js';
import { UpdateWebhookDto } from './dto/update-webhook.dto.js';
import type { AttemptRecord } from './webhook-deliveries.repository.js';
import { type WebhookView, WebhooksService } from './webhooks.service.js';

const date = (nullable: boolean): SchemaObject => ({ type: 'string', format: 'date-time', ...(nullable ? { nullable: true } : {}) });
const WEBHOOK_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    url: { type: 'string', format: 'uri' },
    // Its types are the application's (describeWebhookTypes).
    types: { type: 'array', items: { type: 'string' } },
    description: { type: 'string', nullable: true },
    active: { type: 'boolean' },
    createdAt: date(false),
  },
  required: ['id', 'url', 'types', 'description', 'active', 'createdAt'],
  additionalProperties: false,
};
const CREATED_SCHEMA: SchemaObject = {
  ...WEBHOOK_SCHEMA,
  properties: { ...WEBHOOK_SCHEMA.properties, secret: { type: 'string', pattern: '^whsec_', description: 'The signing secret (whsec_ + base64): shown only here' } },
  required: [...(WEBHOOK_SCHEMA.required ?? []), 'secret'],
};
const ATTEMPT_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    eventCursor: { type: 'string', description: 'The cursor of the event sent (as in GET /events)' },
    attempt: { type: 'integer', minimum: 1, description: 'Which attempt of this event it was' },
    status: { type: 'string', enum: ['delivered', 'retrying', 'failed'], description: 'delivered: a 2xx answer; retrying: failed, tried again at nextAttemptAt; failed: failed, given up' },
    durationMs: { type: 'integer', minimum: 0 },
    error: { type: 'string', nullable: true, description: 'Why it failed (the HTTP status, a timeout, a refused address…)' },
    at: date(false),
    nextAttemptAt: date(true),
  },
  required: ['eventCursor', 'attempt', 'status', 'durationMs', 'error', 'at', 'nextAttemptAt'],
  additionalProperties: false,
};

/** Webhooks, admins only: plain JSON routes, never negotiated and never answered from the response cache. */
@ApiTags('webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @SignedIn()
  @ApiOperation({ summary: 'Register a webhook (admins). The signing secret is shown once' })
  @ApiJson(201, 'The webhook, with `secret` shown this once; Location names it', schemaRef('NewWebhook', CREATED_SCHEMA), { Location: headerRef('Location') })
  @ApiProblems(403)
  async create(@Body() input: CreateWebhookDto, @CurrentActor() actor: Actor, @Res({ passthrough: true }) reply: FastifyReply): Promise<WebhookView> {
    const created = await this.webhooks.create(input, actor);
    reply.header('location', `/webhooks/${created.id}`);
    return created;
  }

  @Get()
  @SignedIn()
  @ApiOperation({ summary: 'Every webhook, without secrets (admins)' })
  @ApiJson(200, 'The webhooks', { type: 'array', items: schemaRef('Webhook', WEBHOOK_SCHEMA) })
  @ApiProblems(403)
  list(@CurrentActor() actor: Actor): Promise<WebhookView[]> {
    return this.webhooks.list(actor);
  }

  @Get(':id')
  @SignedIn()
  @ApiOperation({ summary: 'One webhook, without its secret (admins)' })
  @ApiJson(200, 'The webhook', schemaRef('Webhook', WEBHOOK_SCHEMA))
  @ApiProblems(403, 404)
  get(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor): Promise<WebhookView> {
    return this.webhooks.get(id, actor);
  }

  @Patch(':id')
  @SignedIn()
  @ApiOperation({ summary: 'Change a webhook: url, types, description, active (admins)' })
  @ApiJson(200, 'The changed webhook', schemaRef('Webhook', WEBHOOK_SCHEMA))
  @ApiProblems(403, 404)
  update(@Param('id', ParseIdPipe) id: number, @Body() input: UpdateWebhookDto, @CurrentActor() actor: Actor): Promise<WebhookView> {
    return this.webhooks.update(id, input, actor);
  }

  @Delete(':id')
  @SignedIn()
  @ApiOperation({ summary: 'Delete a webhook and its pending deliveries (admins)' })
  @ApiDelete('Deleted', 403, 404)
  async delete(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor): Promise<void> {
    await this.webhooks.delete(id, actor);
  }

  @Get(':id/deliveries')
  @SignedIn()
  @ApiOperation({ summary: "A webhook's latest delivery attempts (at most 50), newest first (admins)" })
  @ApiJson(200, 'The attempts', { type: 'array', items: schemaRef('WebhookAttempt', ATTEMPT_SCHEMA) })
  @ApiProblems(403, 404)
  deliveries(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor): Promise<AttemptRecord[]> {
    return this.webhooks.attempts(id, actor);
  }
}
