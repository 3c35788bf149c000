import { Controller, Delete, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '../common/openapi/schemas.js';
import type { Actor } from '../common/actor.js';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import { ApiDelete, ApiJson, ApiProblems } from '../common/openapi/api-docs.decorators.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { PostPreviews, type PreviewLink } from './post-previews.service.js';

const PREVIEW_LINK_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    token: { type: 'string', pattern: '^[0-9a-z]{1,10}\\.[A-Za-z0-9_-]{43}$', description: 'Give it as ?preview= (REST) or preview: (GraphQL)' },
    url: { type: 'string', format: 'uri', description: '{PUBLIC_BASE_URL}/posts/{id}?preview={token}' },
    expiresAt: { type: 'string', format: 'date-time', description: 'PREVIEW_TTL_S from now' },
  },
  required: ['token', 'url', 'expiresAt'],
  additionalProperties: false,
};

@ApiTags('posts')
@Controller('posts/:id/previews')
export class PostPreviewsController {
  constructor(private readonly previews: PostPreviews) {}

  @Post()
  @SignedIn()
  @ApiOperation({
    summary: 'A preview link: opens the post in its current state (a draft, say) to anyone holding it, read-only (its author, an editor or an admin)',
  })
  @ApiJson(201, 'The link, valid PREVIEW_TTL_S', PREVIEW_LINK_SCHEMA)
  @ApiProblems(404)
  create(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor): Promise<PreviewLink> {
    return this.previews.create(id, actor);
  }

  @Delete()
  @SignedIn()
  @ApiOperation({ summary: "Revoke every preview link of the post at once (its author, an editor or an admin)" })
  @ApiDelete('Revoked', 404)
  revoke(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor): Promise<void> {
    return this.previews.revoke(id, actor);
  }
}
