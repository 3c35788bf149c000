import { Body, Controller, Get, Patch, Query } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Actor } from '../common/actor.js';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import { ApiGetList, ApiUpdateMany } from '../common/openapi/api-docs.decorators.js';
import { toPageRequest } from '../common/pagination/cursor.js';
import { NegotiatedRepresentations } from '../common/resource/negotiated.js';
import { nextPageHref, type ResourceList } from '../common/resource/resource.js';
import { COMMENT_RESOURCE } from './comment.resource.js';
import { CommentModerationService } from './comment-moderation.service.js';
import { DEFAULT_QUEUE_STATUS, MAX_MODERATED, ModerateCommentItemDto, ModerationQueueQuery } from './dto/moderate-comment.dto.js';

/** The moderation doors of CONTRACT §9: the queue and bulk status changes (one comment: PATCH /comments/{id}). */
@ApiTags('comments')
@NegotiatedRepresentations()
@Controller()
export class ModerationController {
  constructor(private readonly moderation: CommentModerationService) {}

  @Get('comments')
  @ApiOperation({ summary: 'The moderation queue: the comments of one status (default pending), oldest first (moderators, editors, admins)' })
  @ApiGetList(COMMENT_RESOURCE, 400, 401, 403)
  async queue(@Query() query: ModerationQueueQuery, @CurrentActor() actor: Actor | null): Promise<ResourceList> {
    const request = toPageRequest(query);
    const status = query.status ?? DEFAULT_QUEUE_STATUS;
    const page = await this.moderation.queue(status, request, actor);
    const next = nextPageHref('/comments', page.nextCursor, { limit: request.limit, status });
    return COMMENT_RESOURCE.list(page.items, next);
  }

  @Patch('comments')
  @SignedIn()
  @ApiOperation({ summary: 'Set the status of 1-100 comments at once, all or nothing (moderators, editors, admins)' })
  @ApiExtraModels(ModerateCommentItemDto)
  @ApiBody({ schema: { type: 'array', items: { $ref: getSchemaPath(ModerateCommentItemDto) }, minItems: 1, maxItems: MAX_MODERATED } })
  @ApiUpdateMany(COMMENT_RESOURCE, 400, 401, 403, 404)
  async moderate(@Body() body: unknown, @CurrentActor() actor: Actor): Promise<ResourceList> {
    return COMMENT_RESOURCE.list(await this.moderation.moderateBody(body, actor), null);
  }
}
